// What keeps one caller from taking the gateway from the others, and every document bounded in
// time: documents in flight per caller, the rate charged in upstream calls (rate.ts), a short wait
// when RunPod asks the gateway to slow down, and a deadline per document.
import { PossiblyCreatedError, RateLimitError } from '../errors.js';
import { globalFetch, type FetchLike, type FetchOptions } from '../transport/options.js';
import type { PacingStore } from '../transport/pacing.js';
import { parseRateLimitHeaders } from '../transport/rate-limit-headers.js';
import { parseRetryAfterMs } from '../transport/retry-after.js';
import type { ResolvedLimits } from './limits.js';
import type { HangUp } from './hang-up.js';
import { Refusal } from './protocol.js';
import { createCallerRate, type CallerRate } from './rate.js';

type RateWindow = false | { readonly requests: number; readonly intervalMs: number };

/** A caller's own limits, where its token sets them (else the gateway's). */
export interface CallerLimitSettings {
  readonly maxInFlight?: number | undefined;
  readonly queueWaitMs?: number | undefined;
  readonly rate?: RateWindow | undefined;
}

const monotonicNow = (): number => performance.now();

/** Where a document's fetch options carry what observes its upstream answers (see {@link observingFetch}). */
const OBSERVER: unique symbol = Symbol('gateway answers');
type Observer = (status: number, headers: Headers) => void;

/**
 * The upstream client's fetch, reporting each answer to the document it was made for (the turn's
 * observer rides in the call's fetch options). Cheaper than `onResponse`, which scrubs every header
 * of every answer for its caller: the gateway reads only the status and RunPod's wait hints.
 */
export function observingFetch(base: FetchLike = globalFetch): FetchLike {
  return async (input, init) => {
    const response = await base(input, init);
    (init as { [OBSERVER]?: Observer } | undefined)?.[OBSERVER]?.(response.status, response.headers);
    return response;
  };
}

/** A document's run upstream: the options its `execute` takes, and what stopped it, if anything. */
export interface Turn {
  /** Fires when the caller hangs up, the deadline passes, or RunPod asks for a pause past the wait. */
  readonly signal: AbortSignal;
  /** The call's fetch options: they carry what counts each upstream answer (the rate's charge, RunPod's pauses, a refused key). */
  readonly fetchOptions: FetchOptions;
  /**
   * The answer for a run the gateway stopped (504 past the deadline, 503 for RunPod's pause), or
   * undefined. `err`: what the run threw; an ambiguous create keeps its own answer (its marker).
   */
  stopped(err?: unknown): Refusal | undefined;
  /** The run is over: frees its slot, and counts a refused key against the caller's address. */
  end(): void;
}

/** Who runs a document: its credential (the rate and in-flight key), its upstream client, its address. */
export interface TurnCaller {
  readonly credential: string | undefined;
  /** The upstream client: RunPod's pauses are kept per client (each pass-through key has its own). */
  readonly upstream: object;
  readonly address: string;
  /** Called when RunPod refused the caller's key (401): the pool forgets its client. */
  readonly onRefusedKey?: (() => void) | undefined;
  /** The caller's own rate, where its token sets one. */
  readonly rate?: RateWindow | undefined;
  /** Called when RunPod accepted the caller's key (an answer below 400, and no 401). */
  readonly onAcceptedKey?: (() => void) | undefined;
}

/** One upstream client's state: until when RunPod asked it to pause, and the queries it runs. */
interface Upstream {
  pausedUntil: number;
  readonly queries: Set<AbortController>;
}

/** Each `r=` parameter of a `RateLimit` header (the requests left in one window), as its parser reads them. */
const REMAINING = /;\s*r\s*=([^;,]*)/g;
/** An `r=` whose value may read as 0: every spelling of zero begins with one of these. */
const MAYBE_ZERO = /;\s*r\s*=\s*[-+.0]/;

/**
 * True when `header` announces a window with no request left (`r=0`, in any spelling its parser
 * reads as 0): only then can its windows pause anything, and only then is it parsed.
 */
export function spentWindow(header: string | null): boolean {
  if (header === null || !MAYBE_ZERO.test(header)) return false;
  for (const match of header.matchAll(REMAINING)) {
    const value = match[1]!.trim();
    if (value !== '' && Number(value) === 0) return true;
  }
  return false;
}

/** One document's deadline: when it passes, and what it stops. */
interface DeadlineEntry {
  readonly at: number;
  readonly controller: AbortController;
}

/**
 * The deadlines of the documents running, one timer for them all. Every document of a gateway has
 * the same deadline length, so they pass in the order the documents started: the timer waits for
 * the oldest, and a document that ends is taken out of the set, with no timer of its own to set
 * and clear (two of the few timer operations a request made).
 */
class Deadlines {
  private readonly running = new Set<DeadlineEntry>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly ms: number) {}

  add(controller: AbortController): DeadlineEntry {
    const entry = { at: monotonicNow() + this.ms, controller };
    this.running.add(entry);
    if (this.timer === undefined) this.arm(this.ms);
    else if (this.running.size === 1) ref(this.timer);
    return entry;
  }

  delete(entry: DeadlineEntry): void {
    this.running.delete(entry);
    // Nothing left to stop: the timer no longer keeps the process up (or, where timers cannot be
    // let go of, is cleared).
    if (this.running.size === 0 && this.timer !== undefined && !unref(this.timer)) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private arm(ms: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), ms);
  }

  private fire(): void {
    this.timer = undefined;
    // Timers may fire up to a millisecond before the clock says (they count whole ms).
    const now = monotonicNow() + 1;
    for (const entry of this.running) {
      if (entry.at > now) return this.arm(entry.at - now + 1);
      this.running.delete(entry);
      entry.controller.abort(DEADLINE);
    }
  }
}

/** Node's timers can be let go of (and held again); a runtime's numeric timer cannot: false. */
const unref = (timer: ReturnType<typeof setTimeout>): boolean => typeof (timer as { unref?: unknown }).unref === 'function' && ((timer as { unref(): void }).unref(), true);
const ref = (timer: ReturnType<typeof setTimeout>): void => (timer as { ref?: () => void }).ref?.();

const DEADLINE = 'deadline';
const PAUSED = 'paused';
const OVERDRAWN = 'overdrawn';

export function createFairness(limits: ResolvedLimits, rateStore: PacingStore | undefined, refusedKeys: { take(address: string): number; waitFor(address: string): number } | undefined) {
  /** One rate per window (a token may have its own): each keeps its callers' buckets. */
  const rates = new Map<string, CallerRate>();
  const rateOf = (window: RateWindow = limits.rate): CallerRate => {
    const key = window === false ? 'off' : `${window.requests}/${window.intervalMs}`;
    let found = rates.get(key);
    if (!found) rates.set(key, (found = createCallerRate(window, rateStore)));
    return found;
  };
  const inFlight = new Map<string, number>();
  /** Each caller's documents waiting for one of its slots, first come first served. */
  const queues = new Map<string, Array<(granted: boolean) => void>>();
  let running = 0;
  const deadlines = new Deadlines(limits.deadlineMs);
  const upstreams = new WeakMap<object, Upstream>();
  const upstreamOf = (client: object): Upstream => {
    let state = upstreams.get(client);
    if (!state) upstreams.set(client, (state = { pausedUntil: 0, queries: new Set() }));
    return state;
  };

  const paused = (seconds: number) =>
    new Refusal(503, `RunPod asked the gateway to slow down: retry in ${seconds} s`, 'UPSTREAM_RATE_LIMITED', { 'retry-after': String(seconds) });
  const remainingSeconds = (state: Upstream) => Math.max(1, Math.ceil((state.pausedUntil - monotonicNow()) / 1000));

  /**
   * RunPod asked for a pause of `ms`: past the wait, every query waiting on it is answered now,
   * but `spared` (the query whose answer said so, and was not refused).
   */
  function pause(state: Upstream, ms: number, spared?: AbortController): void {
    state.pausedUntil = Math.max(state.pausedUntil, monotonicNow() + ms);
    // Only queries are stopped: a mutation may be on the wire, and stopping it would make its
    // outcome unknown. Mutations wait (bounded by the deadline).
    if (ms > limits.pacingWaitMs) for (const controller of state.queries) if (controller !== spared) controller.abort(PAUSED);
  }

  return {
    /** Takes a turn of the caller's rate (429 past it), before the body is read. */
    takeRate: (credential: string | undefined, own?: CallerLimitSettings) => rateOf(own?.rate).take(credential),

    /** Documents running upstream now, across callers (the in-flight gauge, and what a drain waits for). */
    get running(): number {
      return running;
    },

    /** Refuses (429) an address that has had too many keys refused by RunPod, before any client is built. */
    checkAddress(address: string): void {
      const wait = refusedKeys?.waitFor(address) ?? 0;
      if (wait > 0) {
        const seconds = Math.ceil(wait / 1000);
        throw new Refusal(429, `too many API keys from this address were refused by RunPod: retry in ${seconds} s`, 'RATE_LIMITED', { 'retry-after': String(seconds) });
      }
    },

    /**
     * Admits one more document of `credential`'s. Past its in-flight limit it waits in line, up to
     * `queueWaitMs` (and `maxQueued` waiting), for a slot its caller frees; then 429. The answer
     * frees the slot, once, handing it to the next in line.
     */
    admit(credential: string | undefined, own?: CallerLimitSettings, hangUp?: HangUp): (() => void) | Promise<() => void> {
      const name = credential ?? '';
      const max = own?.maxInFlight ?? limits.maxInFlight;
      const wait = own?.queueWaitMs ?? limits.queueWaitMs;
      const refuse = () => new Refusal(429, `this caller already has ${max} documents running, the gateway's limit`, 'TOO_MANY_IN_FLIGHT', { 'retry-after': '1' });
      const slot = (): (() => void) => {
        running++;
        let freed = false;
        return () => {
          if (freed) return;
          freed = true;
          running--;
          // The slot goes to the next document in line, if any; else it is given back.
          const next = queues.get(name)?.shift();
          if (queues.get(name)?.length === 0) queues.delete(name);
          if (next) return next(true);
          const left = (inFlight.get(name) ?? 1) - 1;
          if (left > 0) inFlight.set(name, left);
          else inFlight.delete(name);
        };
      };
      const held = inFlight.get(name) ?? 0;
      if (held < max) {
        inFlight.set(name, held + 1);
        return slot();
      }
      const line = queues.get(name) ?? [];
      if (wait <= 0 || line.length >= limits.maxQueued || hangUp?.aborted) throw refuse();
      queues.set(name, line);
      return new Promise((resolve, reject) => {
        const done = (granted: boolean) => {
          clearTimeout(timer);
          unlisten?.();
          if (granted) return resolve(slot());
          const at = line.indexOf(done);
          if (at >= 0) line.splice(at, 1);
          if (line.length === 0 && queues.get(name) === line) queues.delete(name);
          reject(refuse());
        };
        const timer = setTimeout(() => done(false), wait);
        const unlisten = hangUp?.listen(() => done(false));
        line.push(done);
      });
    },

    /**
     * Starts a document's run upstream: 503 when RunPod has asked for a pause longer than the
     * gateway's wait. The caller's rate is charged for each answer past the first; `onAnswer` is
     * told each answer's status.
     */
    start(caller: TurnCaller, operation: 'query' | 'mutation', hangUp: HangUp | undefined, onAnswer?: (status: number) => void): Turn {
      const state = upstreamOf(caller.upstream);
      if (state.pausedUntil - monotonicNow() > limits.pacingWaitMs) throw paused(remainingSeconds(state));
      const rate = rateOf(caller.rate);
      const controller = new AbortController();
      const hungUp = () => controller.abort(hangUp?.reason);
      let unlisten: (() => void) | undefined;
      if (hangUp?.aborted) hungUp();
      else unlisten = hangUp?.listen(hungUp);
      const deadline = deadlines.add(controller);
      if (operation === 'query') state.queries.add(controller);
      let answers = 0;
      let refusedKey = false;
      let acceptedKey = false;
      let ended = false;
      // Past one bucket of debt the document stops (a query: a mutation may be on the wire, and
      // its calls are bounded by maxUpstreamCalls before they are sent).
      const overdrawn = operation === 'query' ? () => controller.abort(OVERDRAWN) : undefined;
      const observe: Observer = (status, headers) => {
        if (++answers > 1) rate.charge(caller.credential, 1, overdrawn);
        onAnswer?.(status);
        if (status === 401) refusedKey = true;
        else if (status < 400) acceptedKey = true;
        else if (status === 429) pause(state, parseRetryAfterMs(headers) ?? 1000);
        // REST v2 announces a spent window on an answer that still counts: the client then waits
        // for its reset, so the others are answered, this one is read.
        // Most answers have calls left: their header is not parsed (it was 3 % of a request's CPU).
        if (spentWindow(headers.get('ratelimit'))) for (const w of parseRateLimitHeaders(headers)) if (w.remaining === 0 && w.resetSeconds !== undefined) pause(state, w.resetSeconds * 1000, status === 429 ? undefined : controller);
      };
      return {
        signal: controller.signal,
        fetchOptions: { [OBSERVER]: observe } as FetchOptions,
        stopped(err) {
          if (err instanceof RateLimitError && err.retryAfterMs !== undefined) pause(state, err.retryAfterMs);
          if (err instanceof PossiblyCreatedError) return undefined;
          const reason: unknown = controller.signal.reason;
          if (reason === DEADLINE) return new Refusal(504, `the document ran past the gateway's deadline of ${limits.deadlineMs} ms`, 'DEADLINE_EXCEEDED');
          if (reason === OVERDRAWN && limits.rate !== false) {
            const seconds = Math.max(1, Math.ceil(limits.rate.intervalMs / 1000));
            return new Refusal(429, `the document was stopped: this caller's upstream calls ran more than one rate's worth (${limits.rate.requests} per ${limits.rate.intervalMs} ms, --rate-per-minute) past its rate; what it read is answered; retry in ${seconds} s`, 'RATE_LIMITED', { 'retry-after': String(seconds) });
          }
          if (reason === PAUSED || (err instanceof RateLimitError && state.pausedUntil - monotonicNow() > limits.pacingWaitMs)) return paused(remainingSeconds(state));
          return undefined;
        },
        end() {
          if (ended) return;
          ended = true;
          deadlines.delete(deadline);
          unlisten?.();
          state.queries.delete(controller);
          if (refusedKey) {
            refusedKeys?.take(caller.address);
            caller.onRefusedKey?.();
          } else if (acceptedKey) caller.onAcceptedKey?.();
        },
      };
    },
  };
}

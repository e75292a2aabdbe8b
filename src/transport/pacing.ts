import { AbortError } from '../errors.js';
import { follow, MAX_TIMER_MS, unfollow, type AbortFollower } from './abort.js';

/** Pacing for one bucket: at most `requests` per `intervalMs`, and at most `concurrency` in flight. */
export interface RateLimitSetting {
  readonly requests?: number | undefined;
  readonly intervalMs?: number | undefined;
  readonly concurrency?: number | undefined;
}

/** Ends one request's hold on its bucket: frees its concurrency slot. Safe to call twice. */
export type PaceRelease = () => void;

// Internal: every caller of the pacer replaces it with an error that names its request.
const aborted = (signal: AbortSignal | undefined) => new AbortError('aborted while waiting', { cause: signal?.reason });

/**
 * A call held in a bucket until its turn. A fan-out may queue thousands at once, so a subclass
 * keeps only what its call needs and builds the call's async work in `start`; the pacer keeps its
 * own bookkeeping on the same object, and it follows the signal itself (`abortedBy`, through the
 * one listener the package keeps per signal: see abort.ts's `follow`), so a queued call costs one
 * small object and no closures, and a thousand calls queued on one signal add one listener to it.
 */
export abstract class QueuedCall implements AbortFollower {
  /** Set by the pacer while the call waits: its bucket's pump, run when the call leaves by abort. */
  waitingFor: (() => void) | undefined = undefined;

  /**
   * `also`: a second signal that ends the wait too (a retirement gate's). The pacer listens to
   * both only while the call is queued, so a call served at once pays for no listener and no
   * linked controller.
   */
  constructor(
    readonly signal: AbortSignal | undefined,
    readonly also?: AbortSignal | undefined,
  ) {}

  /** Its turn has come: send now, and free the slot with `release` once the attempt is over. Never throws. */
  abstract start(release: PaceRelease): void;
  /** Its signal fired while it waited: it has left the queue and will not start. */
  abstract abandon(error: AbortError): void;

  abortedBy(signal: AbortSignal): void {
    const pump = this.waitingFor;
    if (!pump) return;
    this.waitingFor = undefined;
    unlisten(this);
    this.abandon(aborted(signal));
    pump();
  }
}

function unlisten(call: QueuedCall): void {
  if (call.signal) unfollow(call.signal, call);
  if (call.also) unfollow(call.also, call);
}

/** `acquire`'s queued call: the turn resolves a promise. */
class PromisedTurn extends QueuedCall {
  constructor(
    signal: AbortSignal | undefined,
    also: AbortSignal | undefined,
    readonly start: (release: PaceRelease) => void,
    readonly abandon: (error: AbortError) => void,
  ) {
    super(signal, also);
  }
}

export interface Pacer {
  /**
   * Waits until the bucket for `key` allows one more request (rate and concurrency), then takes
   * it. Undefined key, or a bucket without limits: resolves at once. Rejects with AbortError when
   * `signal` (or `also`) fires while waiting.
   */
  acquire(key: string | undefined, signal?: AbortSignal, also?: AbortSignal): Promise<PaceRelease>;
  /**
   * `acquire` for a caller that holds its call as a record: `call.start` runs once the bucket for
   * `key` allows it (synchronously when it allows it now), or `call.abandon` when its signal fires first.
   */
  enqueue(key: string | undefined, call: QueuedCall): void;
  /**
   * `acquire` without the promise, for the common case: a turn now when the bucket for `key`
   * grants one at once and nobody waits before it (always undefined with a shared store, whose
   * answers may come later). Undefined: ask `acquire`.
   */
  tryTake(key: string | undefined): PaceRelease | undefined;
  /** The server refused for rate (429): nobody draws from `key` for `ms`. */
  pause(key: string | undefined, ms: number): void;
}

const SERVERLESS_WINDOW_MS = 10_000;

/**
 * Documented per-endpoint serverless limits (per 10 s, concurrent). `*` stands for one key
 * segment (the endpoint id). GraphQL's figures are unpublished and REST v2 announces its quota
 * in headers, so those two get a cautious cap that the server's own signals then tighten.
 */
export const DEFAULT_RATE_LIMITS: Readonly<Record<string, RateLimitSetting>> = {
  'serverless:*:run': { requests: 1000, intervalMs: SERVERLESS_WINDOW_MS, concurrency: 200 },
  'serverless:*:runsync': { requests: 2000, intervalMs: SERVERLESS_WINDOW_MS, concurrency: 400 },
  'serverless:*:status': { requests: 2000, intervalMs: SERVERLESS_WINDOW_MS, concurrency: 400 },
  'serverless:*:stream': { requests: 2000, intervalMs: SERVERLESS_WINDOW_MS, concurrency: 400 },
  'serverless:*:cancel': { requests: 100, intervalMs: SERVERLESS_WINDOW_MS, concurrency: 20 },
  'serverless:*:purge-queue': { requests: 2, intervalMs: SERVERLESS_WINDOW_MS, concurrency: 2 },
  'serverless:*:openai': { requests: 2000, intervalMs: SERVERLESS_WINDOW_MS },
  graphql: { requests: 100, intervalMs: 10_000, concurrency: 10 },
  rest: { concurrency: 16 },
};

/**
 * A shared store's windows are kept this much longer than announced: the server counts arrivals,
 * which trail the sends by a varying delay, so a window exactly as long could hold one request too
 * many there. The memory bucket needs none: it counts each send from when its attempt ended.
 */
const WINDOW_SLACK = 0.02;

/** How well `pattern` fits `key`: segments matched (exact ones count more), or -1. */
function matchScore(pattern: string, keySegments: readonly string[]): number {
  const parts = pattern.split(':');
  if (parts.length > keySegments.length) return -1;
  let score = 0;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '*') score += 1;
    else if (parts[i] === keySegments[i]) score += 2;
    else return -1;
  }
  return score;
}

function bestMatch(settings: Readonly<Record<string, RateLimitSetting>>, keySegments: readonly string[]): RateLimitSetting | undefined {
  let best: RateLimitSetting | undefined;
  let bestScore = -1;
  for (const [pattern, setting] of Object.entries(settings)) {
    const score = matchScore(pattern, keySegments);
    if (score > bestScore) {
      best = setting;
      bestScore = score;
    }
  }
  return best;
}

function positiveOr(value: number | undefined, fallback: number): number {
  // NaN is not > 0.
  return typeof value === 'number' && value > 0 ? value : fallback;
}

/** Defaults for `key`, overridden field by field by the client's best-matching setting. */
export function resolveRateLimit(key: string, overrides: Readonly<Record<string, RateLimitSetting>> | undefined): Required<RateLimitSetting> {
  const segments = key.split(':');
  const base = bestMatch(DEFAULT_RATE_LIMITS, segments) ?? {};
  const own = overrides ? (bestMatch(overrides, segments) ?? {}) : {};
  return {
    requests: positiveOr(own.requests ?? base.requests, Infinity),
    intervalMs: positiveOr(own.intervalMs ?? base.intervalMs, 1),
    concurrency: positiveOr(own.concurrency ?? base.concurrency, Infinity),
  };
}

/** A bucket's limits as a store enforces them. `Infinity` means no limit of that kind. */
export interface PacingLimit {
  /** At most this many sends in any window of `windowMs`. */
  readonly requests: number;
  /** The sliding window, in milliseconds (the announced interval plus a small margin for arrival jitter). */
  readonly windowMs: number;
  /** At most this many sends in flight (taken and not yet released). */
  readonly concurrency: number;
}

/** What a store answers to {@link PacingBucket.take}. */
export interface PacingGrant {
  /** Sends allowed now, from 0 to the count asked for; each holds one concurrency slot until released. */
  readonly granted: number;
  /** When `granted` is 0: milliseconds after which asking again may succeed. */
  readonly retryInMs: number;
  /** Handed back to {@link PacingBucket.release} once per granted send (a store may say where the slots live). */
  readonly lease?: unknown;
}

/**
 * One bucket's state in a {@link PacingStore}: its send times (a sliding window), its concurrency
 * slots and its pause. The pacer keeps the queue of waiting calls and asks the bucket for turns;
 * the bucket decides, atomically, how many may go. Methods may answer synchronously (the in-memory
 * store does, so the common path costs no promise) or with a promise. They must not throw; a store
 * that is unreachable should fall back rather than hold calls (a rejected `take`
 * lets the call through unpaced).
 */
export interface PacingBucket {
  /** Takes up to `count` sends now: each is recorded in the window and holds one slot. */
  take(count: number): PacingGrant | PromiseLike<PacingGrant>;
  /** Frees one slot taken by a grant with this `lease`. */
  release(lease: unknown): void;
  /** The server refused for rate: nobody draws from this bucket for `ms`. */
  pause(ms: number): void;
  /** Nothing waiting in it and nothing it remembers still limits a send: the pacer may forget it. */
  idle(): boolean;
}

/**
 * Where the pacer keeps its state. The default keeps it in memory, per client; another store (such
 * as `createRedisPacingStore` from `runpod-gql/pacing/redis`) lets several clients, processes or
 * hosts share their buckets. Pass it as the client's `pacingStore` option.
 */
export interface PacingStore {
  /**
   * The state of the bucket `key` (e.g. `serverless:{endpointId}:run`) for the account `scope`.
   * `scope` is a digest of the client's API key (never the key itself), so clients of one account
   * share buckets and clients of different accounts do not. Called once per bucket a client uses
   * (again after the pacer has forgotten an idle one).
   */
  bucket(scope: string, key: string, limit: PacingLimit): PacingBucket;
}

/** Milliseconds on a monotonic clock: a stepped wall clock neither holds calls nor lets a burst through. */
const monotonicNow = (): number => performance.now();

const GRANT_NONE_NOW: PacingGrant = { granted: 0, retryInMs: 0 };
const GRANT_ONE: PacingGrant = { granted: 1, retryInMs: 0 };

/**
 * One bucket in memory. The rate is kept as a sliding window over the last `requests` sends, so no
 * window of `windowMs` ever holds more than `requests` of them, whichever way the server counts (a
 * refilling token bucket may send twice its size within one window after an idle spell).
 *
 * Each send is dated when an attempt ends (its slot freed), not when it is granted: a request
 * reaches the server at the latest when its answer (or its failure) is back, so the next send a
 * window after that date cannot arrive within one window of it, however late the first arrived. A
 * burst's first requests wait for new connections and later ones reuse them, so dating by grant
 * needed a margin (2 %) that a loaded machine or a slow handshake outgrew (429s at the start of the
 * second window); dating by end costs one round trip per window instead. Attempts end in any
 * order: the oldest undated send takes each date, so the dates stay in the ring's order and the
 * oldest slot still holds a date that one of the last `requests` sends arrived before.
 */
function memoryBucket({ requests, windowMs, concurrency }: PacingLimit): PacingBucket {
  // +Infinity: granted, still in flight (undated).
  const sent = Number.isFinite(requests) ? new Float64Array(Math.max(1, Math.floor(requests))).fill(-Infinity) : undefined;
  let next = 0;
  /** The oldest send still undated. */
  let undated = 0;
  let inFlight = 0;
  let pausedUntil = 0;
  let lastSentAt = -Infinity;
  return {
    take(count) {
      const now = monotonicNow();
      let granted = 0;
      let retryInMs = 0;
      while (granted < count && inFlight < concurrency) {
        const oldest = sent ? sent[next]! : -Infinity;
        if (oldest === Infinity) {
          // The send a window back is still in flight: its end frees the slot (and asks again).
          retryInMs = pausedUntil > now ? pausedUntil - now : 0;
          break;
        }
        const freeAt = Math.max(pausedUntil, oldest + windowMs);
        if (freeAt > now) {
          retryInMs = freeAt - now;
          break;
        }
        inFlight++;
        if (sent) {
          sent[next] = Infinity;
          next = (next + 1) % sent.length;
        }
        granted++;
      }
      if (granted > 0) lastSentAt = now;
      // Shared answers for the common cases: no object per call.
      if (granted === 1) return GRANT_ONE;
      if (granted === 0 && retryInMs === 0) return GRANT_NONE_NOW;
      return { granted, retryInMs };
    },
    release() {
      inFlight--;
      if (sent) {
        const now = monotonicNow();
        sent[undated] = now;
        undated = (undated + 1) % sent.length;
        lastSentAt = now;
      }
    },
    pause(ms) {
      pausedUntil = Math.max(pausedUntil, monotonicNow() + ms);
    },
    idle: () => !inFlight && monotonicNow() > Math.max(pausedUntil, lastSentAt + windowMs),
  };
}

/** The default store: each client's buckets in its own memory, on a monotonic clock. */
export const memoryPacingStore: PacingStore = {
  bucket: (_scope, _key, limit) => memoryBucket(limit),
};

const isThenable = (value: unknown): value is PromiseLike<PacingGrant> => typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';

/** Most turns asked of a store at once: a batch costs an asynchronous store one round trip. */
const MAX_BATCH = 256;

interface Bucket {
  enqueue(call: QueuedCall): void;
  /** A turn now, in the caller's tick, when nobody waits and the store grants one at once; else undefined. */
  tryTake(): PaceRelease | undefined;
  pause(ms: number): void;
  /** Nothing waiting or in flight, and nothing it remembers still limits a send. */
  idle(): boolean;
}

/**
 * One bucket's queue: waiters are served first come, first served, as the store grants turns.
 * A store that answers synchronously is asked once per call, in the caller's tick; one that
 * answers with a promise is asked for the whole queue at once, one question at a time. A question
 * that fails lets the head call go unpaced: a broken store must not hold calls for ever.
 */
function createBucket(state: PacingBucket): Bucket {
  /** Waiting calls, first come first served; a served or abandoned slot is cleared. */
  let queue: Array<QueuedCall | undefined> = [];
  let head = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = 0;
  /** A question to an asynchronous store is under way. */
  let asking = false;

  const releaseFor = (lease: unknown): PaceRelease => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.release(lease);
      pump();
    };
  };

  function schedule(at: number): void {
    if (timer !== undefined && timerAt <= at) return;
    if (timer !== undefined) clearTimeout(timer);
    timerAt = at;
    // Capped: a longer delay would fire at once, and pump() reschedules what is not yet due.
    timer = setTimeout(() => {
      timer = undefined;
      pump();
    }, Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(at - monotonicNow()))));
  }

  /** Drops abandoned calls at the head; false when nobody is waiting. */
  function anyWaiting(): boolean {
    // Abandoned calls stay in place until the queue reaches them.
    while (head < queue.length && !queue[head]!.waitingFor) queue[head++] = undefined;
    if (head < queue.length) return true;
    // Not replaced when already empty: every release asks, and most find nobody waiting.
    if (head !== 0) {
      queue = [];
      head = 0;
    }
    return false;
  }

  /** Starts up to `grant.granted` waiting calls; true when the store may grant more now. */
  function serve(grant: PacingGrant): boolean {
    let granted = grant.granted;
    for (; granted > 0 && anyWaiting(); granted--) startHead(releaseFor(grant.lease));
    // Turns granted to calls that left meanwhile go back.
    for (; granted > 0; granted--) state.release(grant.lease);
    // Drop the served prefix now and then, so a long queue does not keep dead entries.
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
    if (grant.granted > 0) return true;
    if (grant.retryInMs > 0) schedule(monotonicNow() + grant.retryInMs);
    return false;
  }

  function startHead(release: PaceRelease): void {
    const call = queue[head]!;
    // Cleared at once, so a long queue does not keep served calls alive until it is compacted.
    queue[head++] = undefined;
    call.waitingFor = undefined;
    unlisten(call);
    call.start(release);
  }

  /** Waits for an asynchronous store's answer, then serves and asks again. */
  function await_(answer: PromiseLike<PacingGrant>): void {
    asking = true;
    answer.then(
      (grant) => {
        asking = false;
        // Nothing granted: `serve` has set the timer (or a release will pump).
        if (serve(grant)) pump();
      },
      () => {
        asking = false;
        if (anyWaiting()) startHead(noRelease);
        pump();
      },
    );
  }

  function pump(): void {
    while (!asking && anyWaiting()) {
      const answer = state.take(Math.min(queue.length - head, MAX_BATCH));
      if (isThenable(answer)) return await_(answer);
      if (!serve(answer)) return;
    }
  }

  /** A turn now, in the caller's tick, when nobody waits and the store grants one at once. */
  function takeNow(): PaceRelease | undefined {
    if (head !== queue.length || asking) return undefined;
    const answer = state.take(1);
    if (isThenable(answer)) await_(answer);
    else if (answer.granted > 0) return releaseFor(answer.lease);
    else if (answer.retryInMs > 0) schedule(monotonicNow() + answer.retryInMs);
    return undefined;
  }

  return {
    tryTake: takeNow,
    enqueue(call) {
      // The common case, in the caller's tick: an empty queue and a store that says yes at once.
      const release = takeNow();
      if (release) return call.start(release);
      const fired = call.signal?.aborted ? call.signal : call.also?.aborted && call.also;
      if (fired) {
        call.abandon(aborted(fired));
        // A turn already asked for is served to the next caller, or given back.
        return pump();
      }
      call.waitingFor = pump;
      if (call.signal) follow(call.signal, call);
      if (call.also) follow(call.also, call);
      queue.push(call);
      pump();
    },
    pause(ms) {
      state.pause(ms);
    },
    idle: () => head === queue.length && !asking && state.idle(),
  };
}

const noRelease: PaceRelease = () => undefined;
const SWEEP_FROM = 256;

/**
 * A store shared beyond this client, and the account its buckets belong to: a digest of the API
 * key (or a promise of one: the portable digest is asynchronous).
 */
export interface SharedPacing {
  readonly store: PacingStore;
  readonly scope: Promise<string>;
}

/**
 * The scope under which a shared store keeps this account's buckets: the first 16 bytes of
 * SHA-256 over the key (with a prefix of its own, so it is not the key's plain digest), in hex.
 * Never the key itself.
 */
export async function pacingScope(apiKey: string | undefined): Promise<string> {
  if (!apiKey) return 'no-key';
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(`runpod-gql:${apiKey}`));
  return [...new Uint8Array(digest, 0, 16)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Pacing for one client. `settings === false` turns it off entirely. Its state lives in memory
 * unless `shared` names another store.
 */
export function createPacer(settings: false | Readonly<Record<string, RateLimitSetting>> | undefined, shared?: SharedPacing): Pacer {
  const buckets = new Map<string, Bucket>();
  let sweepAt = SWEEP_FROM;
  /** A shared store's account, once its digest is known (calls made before then wait for it). */
  let scope: string | undefined;
  shared?.scope.then((s) => (scope = s), noRelease);
  // Only reached with settings on: both callers return first when `settings === false`.
  const bucketFor = (key: string): Bucket => {
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      // A bucket is kept even without limits while a 429 may pause it.
      const { requests, intervalMs, concurrency } = resolveRateLimit(key, settings || undefined);
      const limit = { requests, windowMs: shared ? intervalMs * (1 + WINDOW_SLACK) : intervalMs, concurrency };
      bucket = createBucket(shared ? shared.store.bucket(scope!, key, limit) : memoryBucket(limit));
      // One client may call many endpoints: buckets that no longer limit anything are dropped
      // whenever the map has doubled since the last sweep, so they do not pile up for the
      // client's life and a sweep costs O(1) per new bucket, amortised.
      if (buckets.size >= sweepAt) {
        for (const [other, old] of buckets) if (old.idle()) buckets.delete(other);
        sweepAt = Math.max(SWEEP_FROM, buckets.size * 2);
      }
      buckets.set(key, bucket);
    }
    return bucket;
  };
  const enqueue = (key: string | undefined, call: QueuedCall): void => {
    if (key === undefined || settings === false) call.start(noRelease);
    // Without its digest (no Web Crypto after all), a shared store cannot pace: the call goes unpaced.
    else if (shared && scope === undefined) shared.scope.then(() => enqueue(key, call), () => call.start(noRelease));
    else bucketFor(key).enqueue(call);
  };
  return {
    enqueue,
    tryTake: (key) => (key === undefined || settings === false ? noRelease : shared ? undefined : bucketFor(key).tryTake()),
    acquire: (key, signal, also) => new Promise((resolve, reject) => enqueue(key, new PromisedTurn(signal, also, resolve, reject))),
    pause(key, ms) {
      if (key === undefined || settings === false || !(ms > 0)) return;
      if (shared && scope === undefined) void shared.scope.then(() => this.pause(key, ms), noRelease);
      else bucketFor(key).pause(ms);
    },
  };
}

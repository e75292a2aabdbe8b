import { AbortError } from '../errors.js';
import type { RateLimitSetting } from './options.js';

/** Ends one request's hold on its bucket: frees its concurrency slot. Safe to call twice. */
export type PaceRelease = () => void;

// Internal: every caller of the pacer replaces it with an error that names its request.
const aborted = (signal: AbortSignal | undefined) => new AbortError('aborted while waiting', { cause: signal?.reason });

/**
 * A call held in a bucket until its turn. A fan-out may queue thousands at once, so a subclass
 * keeps only what its call needs and builds the call's async work in `start`; the pacer keeps its
 * own bookkeeping on the same object, and it listens to the signal itself (`handleEvent`), so a
 * queued call costs one small object and no closures.
 */
export abstract class QueuedCall implements EventListenerObject {
  /** Set by the pacer while the call waits: its bucket's pump, run when the call leaves by abort. */
  waitingFor: (() => void) | undefined = undefined;

  constructor(readonly signal: AbortSignal | undefined) {}

  /** Its turn has come: send now, and free the slot with `release` once the attempt is over. Never throws. */
  abstract start(release: PaceRelease): void;
  /** Its signal fired while it waited: it has left the queue and will not start. */
  abstract abandon(error: AbortError): void;

  handleEvent(): void {
    const pump = this.waitingFor;
    if (!pump) return;
    this.waitingFor = undefined;
    this.abandon(aborted(this.signal));
    pump();
  }
}

/** `acquire`'s queued call: the turn resolves a promise. */
class PromisedTurn extends QueuedCall {
  constructor(
    signal: AbortSignal | undefined,
    readonly start: (release: PaceRelease) => void,
    readonly abandon: (error: AbortError) => void,
  ) {
    super(signal);
  }
}

export interface Pacer {
  /**
   * Waits until the bucket for `key` allows one more request (rate and concurrency), then takes
   * it. Undefined key, or a bucket without limits: resolves at once. Rejects with AbortError when
   * `signal` fires while waiting.
   */
  acquire(key: string | undefined, signal?: AbortSignal): Promise<PaceRelease>;
  /**
   * `acquire` for a caller that holds its call as a record: `call.start` runs once the bucket for
   * `key` allows it (synchronously when it allows it now), or `call.abandon` when its signal fires first.
   */
  enqueue(key: string | undefined, call: QueuedCall): void;
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
 * Windows are kept this much longer than announced: the server counts arrivals, which trail the
 * sends by a varying delay, so a window exactly as long could hold one request too many there.
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

interface Bucket {
  enqueue(call: QueuedCall): void;
  pause(ms: number): void;
  /** Nothing waiting or in flight, and nothing it remembers still limits a send. */
  idle(): boolean;
}

/**
 * One bucket. The rate is kept as a sliding window over the last `requests` send times, so no
 * window of `intervalMs` ever holds more than `requests` sends, whichever way the server counts
 * (a refilling token bucket may send twice its size within one window after an idle spell).
 * Waiters are served first come, first served.
 */
function createBucket({ requests, intervalMs, concurrency }: Required<RateLimitSetting>): Bucket {
  const windowMs = intervalMs * (1 + WINDOW_SLACK);
  const sent = Number.isFinite(requests) ? new Float64Array(Math.max(1, Math.floor(requests))).fill(-Infinity) : undefined;
  let next = 0;
  let inFlight = 0;
  let pausedUntil = 0;
  let lastSentAt = -Infinity;
  /** Waiting calls, first come first served; a served or abandoned slot is cleared. */
  let queue: Array<QueuedCall | undefined> = [];
  let head = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = 0;

  /** Milliseconds until a send is allowed by rate and pause; 0 when allowed now. */
  const waitMs = (now: number) => Math.max(0, Math.max(pausedUntil, sent ? sent[next]! + windowMs : 0) - now);

  const take = (now: number): PaceRelease => {
    inFlight++;
    lastSentAt = now;
    if (sent) {
      sent[next] = now;
      next = (next + 1) % sent.length;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inFlight--;
      pump();
    };
  };

  function schedule(at: number): void {
    if (timer !== undefined && timerAt <= at) return;
    if (timer !== undefined) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      pump();
    }, Math.max(1, at - Date.now()));
  }

  function pump(): void {
    for (;;) {
      // Abandoned calls stay in place until the queue reaches them.
      while (head < queue.length && !queue[head]!.waitingFor) queue[head++] = undefined;
      if (head >= queue.length) {
        queue = [];
        head = 0;
        return;
      }
      if (inFlight >= concurrency) return;
      const now = Date.now();
      const wait = waitMs(now);
      if (wait > 0) return schedule(now + wait);
      const call = queue[head]!;
      // Cleared at once, so a long queue does not keep served calls alive until it is compacted.
      queue[head++] = undefined;
      call.waitingFor = undefined;
      call.signal?.removeEventListener('abort', call);
      call.start(take(now));
      // Drop the served prefix now and then, so a long queue does not keep dead entries.
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head);
        head = 0;
      }
    }
  }

  return {
    enqueue(call) {
      const now = Date.now();
      if (head === queue.length && inFlight < concurrency && waitMs(now) === 0) return call.start(take(now));
      if (call.signal?.aborted) return call.abandon(aborted(call.signal));
      call.waitingFor = pump;
      call.signal?.addEventListener('abort', call, { once: true });
      queue.push(call);
      pump();
    },
    pause(ms) {
      pausedUntil = Math.max(pausedUntil, Date.now() + ms);
    },
    idle: () => !inFlight && head === queue.length && Date.now() > Math.max(pausedUntil, lastSentAt + windowMs),
  };
}

const noRelease: PaceRelease = () => undefined;
const SWEEP_FROM = 256;

/** Pacing for one client. `settings === false` turns it off entirely. */
export function createPacer(settings: false | Readonly<Record<string, RateLimitSetting>> | undefined): Pacer {
  const buckets = new Map<string, Bucket>();
  let sweepAt = SWEEP_FROM;
  // Only reached with settings on: both callers return first when `settings === false`.
  const bucketFor = (key: string): Bucket => {
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      // A bucket is kept even without limits while a 429 may pause it.
      bucket = createBucket(resolveRateLimit(key, settings || undefined));
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
    else bucketFor(key).enqueue(call);
  };
  return {
    enqueue,
    acquire: (key, signal) => new Promise((resolve, reject) => enqueue(key, new PromisedTurn(signal, resolve, reject))),
    pause(key, ms) {
      if (key === undefined || settings === false || !(ms > 0)) return;
      bucketFor(key).pause(ms);
    },
  };
}

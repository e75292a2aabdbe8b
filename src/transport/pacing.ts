import { AbortError } from '../errors.js';
import type { RateLimitSetting } from './options.js';

/** Ends one request's hold on its bucket: frees its concurrency slot. Safe to call twice. */
export type PaceRelease = () => void;

export interface Pacer {
  /**
   * Waits until the bucket for `key` allows one more request (rate and concurrency), then takes
   * it. Undefined key, or a bucket without limits: resolves at once. Rejects with AbortError when
   * `signal` fires while waiting.
   */
  acquire(key: string | undefined, signal?: AbortSignal): Promise<PaceRelease>;
  /** The server refused for rate (429): nobody draws from `key` for `ms`. */
  pause(key: string | undefined, ms: number): void;
  /** The limits in force for `key` (defaults merged with the client's settings). */
  settingFor(key: string): Required<RateLimitSetting>;
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
  'serverless:*:status-sync': { requests: 2000, intervalMs: SERVERLESS_WINDOW_MS, concurrency: 400 },
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

const UNLIMITED: Required<RateLimitSetting> = { requests: Infinity, intervalMs: 1, concurrency: Infinity };

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
  return typeof value === 'number' && value > 0 && !Number.isNaN(value) ? value : fallback;
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

interface Waiter {
  readonly resolve: (release: PaceRelease) => void;
  readonly reject: (err: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
  done: boolean;
}

/**
 * One bucket. The rate is kept as a sliding window over the last `requests` send times, so no
 * window of `intervalMs` ever holds more than `requests` sends, whichever way the server counts
 * (a refilling token bucket may send twice its size within one window after an idle spell).
 */
class Bucket {
  private readonly sent: Float64Array | undefined;
  private next = 0;
  private inFlight = 0;
  private pausedUntil = 0;
  private readonly queue: Waiter[] = [];
  private head = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = 0;
  private readonly windowMs: number;

  constructor(private readonly setting: Required<RateLimitSetting>) {
    this.windowMs = setting.intervalMs * (1 + WINDOW_SLACK);
    this.sent = Number.isFinite(setting.requests) ? new Float64Array(Math.max(1, Math.floor(setting.requests))).fill(-Infinity) : undefined;
  }

  /** Milliseconds until a send is allowed by rate and pause; 0 when allowed now. */
  private waitMs(now: number): number {
    let until = this.pausedUntil;
    if (this.sent) until = Math.max(until, this.sent[this.next]! + this.windowMs);
    return Math.max(0, until - now);
  }

  private take(now: number): PaceRelease {
    this.inFlight++;
    if (this.sent) {
      this.sent[this.next] = now;
      this.next = (this.next + 1) % this.sent.length;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.pump();
    };
  }

  acquire(signal: AbortSignal | undefined): Promise<PaceRelease> | PaceRelease {
    const now = Date.now();
    if (this.head === this.queue.length && this.inFlight < this.setting.concurrency && this.waitMs(now) === 0) return this.take(now);
    if (signal?.aborted) return Promise.reject(new AbortError('request aborted by the caller while waiting for its turn', { cause: signal.reason }));
    return new Promise<PaceRelease>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        done: false,
        onAbort: () => {
          if (waiter.done) return;
          waiter.done = true;
          reject(new AbortError('request aborted by the caller while waiting for its turn', { cause: signal?.reason }));
          this.pump();
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.queue.push(waiter);
      this.pump();
    });
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }

  private pump(): void {
    for (;;) {
      while (this.head < this.queue.length && this.queue[this.head]!.done) this.head++;
      if (this.head >= this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
        return;
      }
      if (this.inFlight >= this.setting.concurrency) return;
      const now = Date.now();
      const wait = this.waitMs(now);
      if (wait > 0) {
        this.schedule(now + wait);
        return;
      }
      const waiter = this.queue[this.head++]!;
      waiter.done = true;
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(this.take(now));
      // Drop the consumed prefix now and then, so a long queue does not keep dead entries.
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
    }
  }

  private schedule(at: number): void {
    if (this.timer !== undefined && this.timerAt <= at) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, Math.max(1, at - Date.now()));
  }
}

const noRelease: PaceRelease = () => undefined;

/** Pacing for one client. `settings === false` turns it off entirely. */
export function createPacer(settings: false | Readonly<Record<string, RateLimitSetting>> | undefined): Pacer {
  const buckets = new Map<string, Bucket | null>();
  const bucketFor = (key: string): Bucket | null => {
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      const setting = settings === false ? UNLIMITED : resolveRateLimit(key, settings);
      const limited = Number.isFinite(setting.requests) || Number.isFinite(setting.concurrency);
      // A bucket is kept even without limits while a 429 may pause it.
      bucket = settings === false ? null : new Bucket(limited ? setting : UNLIMITED);
      buckets.set(key, bucket);
    }
    return bucket;
  };
  return {
    async acquire(key, signal) {
      if (key === undefined || settings === false) return noRelease;
      const bucket = bucketFor(key);
      return bucket ? bucket.acquire(signal) : noRelease;
    },
    pause(key, ms) {
      if (key === undefined || settings === false || !(ms > 0)) return;
      bucketFor(key)?.pause(ms);
    },
    settingFor: (key) => (settings === false ? UNLIMITED : resolveRateLimit(key, settings)),
  };
}

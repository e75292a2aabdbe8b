import { pacingScope, type PacingBucket, type PacingStore } from '../transport/pacing.js';
import { Refusal } from './protocol.js';

/** Buckets kept per gateway before the full ones are dropped. */
const MAX_BUCKETS = 1024;

const monotonicNow = (): number => performance.now();

/**
 * Token buckets by name, in memory: two numbers per name, whatever the rate (a window of send
 * times would cost 8 bytes per request allowed: `--rate-per-minute 1e9` reached 7.7 GB). A bucket
 * holds up to `requests` turns and refills `requests` per `intervalMs`; a charge may take it below
 * zero (down to minus one full bucket), so an expensive document delays its caller's next ones.
 * Unlike a sliding window, a full bucket after an idle spell lets a burst of `requests` through at
 * once; over any longer stretch the rate holds.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  /** `floor`: the lowest a charge takes a bucket (one full bucket of debt unless told). */
  constructor(
    private readonly requests: number,
    intervalMs: number,
    private readonly floor = -requests,
  ) {
    this.perMs = requests / intervalMs;
  }

  private refilled(name: string, now: number): { tokens: number; at: number } {
    let bucket = this.buckets.get(name);
    if (!bucket) {
      if (this.buckets.size >= MAX_BUCKETS) this.sweep(now);
      bucket = { tokens: this.requests, at: now };
      this.buckets.set(name, bucket);
    } else {
      bucket.tokens = Math.min(this.requests, bucket.tokens + (now - bucket.at) * this.perMs);
      bucket.at = now;
    }
    return bucket;
  }

  /** Drops buckets that have refilled (they remember nothing), and the oldest if none has. */
  private sweep(now: number): void {
    for (const [name, b] of this.buckets) if (b.tokens + (now - b.at) * this.perMs >= this.requests) this.buckets.delete(name);
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
  }

  /** Takes one turn for `name`: 0 when taken, else the milliseconds until one is free. */
  take(name: string): number {
    const bucket = this.refilled(name, monotonicNow());
    if (bucket.tokens < 1) return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs));
    bucket.tokens -= 1;
    return 0;
  }

  /** Milliseconds until `name` has a turn, without taking it (0: it has one). */
  waitFor(name: string): number {
    const bucket = this.buckets.get(name);
    if (!bucket) return 0;
    const tokens = Math.min(this.requests, bucket.tokens + (monotonicNow() - bucket.at) * this.perMs);
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.perMs));
  }

  /**
   * Takes `count` more from `name`, down to the floor (minus one full bucket). True when the charge
   * went past the floor: the caller's debt is more than one bucket.
   */
  charge(name: string, count: number): boolean {
    const bucket = this.refilled(name, monotonicNow());
    const left = bucket.tokens - count;
    bucket.tokens = Math.max(this.floor, left);
    return left < this.floor;
  }

  get size(): number {
    return this.buckets.size;
  }
}

const refuse = (limit: { requests: number; intervalMs: number }, retryMs: number): Refusal => {
  const seconds = Math.max(1, Math.ceil(retryMs / 1000));
  return new Refusal(429, `rate limit: at most ${limit.requests} upstream calls per ${limit.intervalMs} ms for this caller; retry in ${seconds} s`, 'RATE_LIMITED', { 'retry-after': String(seconds) });
};

/** A caller's rate: `take` one turn as a document arrives (429 past it), `charge` its further upstream calls. */
export interface CallerRate {
  /** Takes one turn for `credential` (undefined: the anonymous caller): at once in memory, a promise with a shared store. Throws or rejects with a 429 Refusal. */
  take(credential: string | undefined): void | Promise<void>;
  /**
   * Charges `credential` `calls` more upstream calls, after the fact. `overdrawn` is called (at once
   * in memory, once the store has answered with a shared one) when the caller's debt has passed one
   * bucket: the document that made the calls is stopped.
   */
  charge(credential: string | undefined, calls: number, overdrawn?: () => void): void;
}

const unlimited: CallerRate = { take: () => {}, charge: () => {} };

/**
 * The per-caller rate, charged in upstream calls: a document takes one turn when it arrives, and
 * its caller is charged one more for each upstream answer past its first (one document may make 31
 * upstream calls). In memory by default: a counter per caller, nothing allocated per request. In a
 * shared `store` (Redis): one bucket per caller, named by a digest of its credential, never the
 * credential, so gateways that share it share each rate.
 */
export function createCallerRate(rate: false | { requests: number; intervalMs: number }, store?: PacingStore): CallerRate {
  if (rate === false) return unlimited;
  if (!store) {
    const buckets = new TokenBuckets(rate.requests, rate.intervalMs);
    return {
      take(credential) {
        const wait = buckets.take(credential ?? '');
        if (wait > 0) throw refuse(rate, wait);
      },
      charge(credential, calls, overdrawn) {
        if (buckets.charge(credential ?? '', calls)) overdrawn?.();
      },
    };
  }
  const shared = store;
  // The store's window holds no debt (it refuses past its size): what it could not grant is kept
  // here, as a bucket of debt that refills at the same rate, and past one full bucket the document stops.
  const debts = new TokenBuckets(rate.requests, rate.intervalMs, 0);
  /** Each caller's bucket, by credential ('' for the anonymous caller). */
  const buckets = new Map<string, PacingBucket>();
  const limit = { requests: rate.requests, windowMs: rate.intervalMs, concurrency: Infinity };
  const settle = (bucket: PacingBucket, grant: { granted: number; lease?: unknown }) => {
    // Concurrency is not limited here: a turn's slot is given back as soon as it is granted.
    for (let i = 0; i < grant.granted; i++) bucket.release(grant.lease);
  };
  return {
    async take(credential) {
      // The digest is taken once per caller, when its bucket is made, not on every request (Web
      // Crypto's digest is asynchronous and costs more than the rest of this turn). Only the store
      // sees the digest; this map, keyed by the credential, stays inside this closure.
      const key = credential ?? '';
      let bucket = buckets.get(key);
      if (!bucket) {
        const scope = await pacingScope(credential);
        // Another request of the same caller may have made it while the digest was taken.
        bucket = buckets.get(key);
        if (!bucket) {
          if (buckets.size >= MAX_BUCKETS) for (const [held, old] of buckets) if (old.idle()) buckets.delete(held);
          bucket = shared.bucket(scope, 'gateway:caller', limit);
          buckets.set(key, bucket);
        }
      }
      let grant;
      try {
        grant = await bucket.take(1);
      } catch {
        // A store that fails lets the call through, as the client's pacer does.
        return;
      }
      if (grant.granted < 1) throw refuse(rate, grant.retryInMs);
      settle(bucket, grant);
    },
    charge(credential, calls, overdrawn) {
      const key = credential ?? '';
      const bucket = buckets.get(key);
      // What the store cannot grant now is refused to the caller's next document.
      if (bucket)
        void Promise.resolve(bucket.take(calls)).then(
          (grant) => {
            settle(bucket, grant);
            if (grant.granted < calls && debts.charge(key, calls - grant.granted)) overdrawn?.();
          },
          () => {},
        );
    },
  };
}

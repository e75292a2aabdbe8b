import { memoryPacingStore, pacingScope, type PacingBucket, type PacingStore } from '../transport/pacing.js';
import { Refusal } from './protocol.js';

const noRelease = (): void => {};

/** Buckets kept per gateway before the idle ones are dropped. */
const MAX_BUCKETS = 1024;

/**
 * The per-caller rate: one bucket per credential (named by a digest, never the credential) in a
 * pacing store, so gateways that share a store (Redis) share each caller's rate.
 */
export function createCallerRate(rate: false | { requests: number; intervalMs: number }, store: PacingStore = memoryPacingStore) {
  /** Each caller's bucket, by credential ('' for the anonymous caller). */
  const buckets = new Map<string, PacingBucket>();
  const limit = rate === false ? undefined : { requests: rate.requests, windowMs: rate.intervalMs, concurrency: Infinity };
  /**
   * Takes one turn for `credential`: its release (at once when there is no limit, so an unlimited
   * gateway pays no promise per request), or a promise of it that rejects with a 429 Refusal.
   */
  return function take(credential: string | undefined): (() => void) | Promise<() => void> {
    return limit ? takeLimited(limit, credential) : noRelease;
  };

  async function takeLimited(limit: { requests: number; windowMs: number; concurrency: number }, credential: string | undefined): Promise<() => void> {
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
        bucket = store.bucket(scope, 'gateway:caller', limit);
        buckets.set(key, bucket);
      }
    }
    let grant;
    try {
      grant = await bucket.take(1);
    } catch {
      // A store that fails lets the call through, as the client's pacer does.
      return noRelease;
    }
    if (grant.granted < 1) {
      const seconds = Math.max(1, Math.ceil(grant.retryInMs / 1000));
      throw new Refusal(429, `rate limit: at most ${limit.requests} requests per ${limit.windowMs} ms for this caller; retry in ${seconds} s`, 'RATE_LIMITED', { 'retry-after': String(seconds) });
    }
    const held = bucket;
    return () => held.release(grant.lease);
  }
}

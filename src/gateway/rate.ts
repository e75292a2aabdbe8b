import { memoryPacingStore, pacingScope, type PacingBucket, type PacingStore } from '../transport/pacing.js';
import { Refusal } from './protocol.js';

/** Buckets kept per gateway before the idle ones are dropped. */
const MAX_BUCKETS = 1024;

/**
 * The per-caller rate: one bucket per credential (named by a digest, never the credential) in a
 * pacing store, so gateways that share a store (Redis) share each caller's rate.
 */
export function createCallerRate(rate: false | { requests: number; intervalMs: number }, store: PacingStore = memoryPacingStore) {
  const buckets = new Map<string, PacingBucket>();
  const limit = rate === false ? undefined : { requests: rate.requests, windowMs: rate.intervalMs, concurrency: Infinity };
  /** Takes one turn for `credential`; resolves with its release, or throws a 429 Refusal. */
  return async function take(credential: string | undefined): Promise<() => void> {
    if (!limit) return () => {};
    const scope = await pacingScope(credential);
    let bucket = buckets.get(scope);
    if (!bucket) {
      if (buckets.size >= MAX_BUCKETS) for (const [key, old] of buckets) if (old.idle()) buckets.delete(key);
      bucket = store.bucket(scope, 'gateway:caller', limit);
      buckets.set(scope, bucket);
    }
    let grant;
    try {
      grant = await bucket.take(1);
    } catch {
      // A store that fails lets the call through, as the client's pacer does.
      return () => {};
    }
    if (grant.granted < 1) {
      const seconds = Math.max(1, Math.ceil(grant.retryInMs / 1000));
      throw new Refusal(429, `rate limit: at most ${limit.requests} requests per ${limit.windowMs} ms for this caller; retry in ${seconds} s`, 'RATE_LIMITED', { 'retry-after': String(seconds) });
    }
    const held = bucket;
    return () => held.release(grant.lease);
  };
}

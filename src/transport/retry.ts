/**
 * Longest server-requested wait that is honoured automatically: a longer `Retry-After` (or one past
 * the call's `deadlineMs`) ends the call at once in a RateLimitError carrying `retryAfterMs`.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** 0.5 s × 2^attempt capped at 8 s, minus up to 25 % jitter so clients that failed together spread out. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(INITIAL_BACKOFF_MS * 2 ** attempt, MAX_BACKOFF_MS);
  return Math.round(base * (1 - 0.25 * random()));
}

/** Statuses worth another attempt for a call that is safe to repeat. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

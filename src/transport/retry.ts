/** Longest server-requested wait that is honoured automatically; longer hints surface as errors. */
export const MAX_RETRY_AFTER_MS = 60_000;

const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** 0.5 s × 2^attempt capped at 8 s, minus up to 25 % jitter so clients that failed together spread out. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(INITIAL_BACKOFF_MS * 2 ** attempt, MAX_BACKOFF_MS);
  return Math.round(base * (1 - 0.25 * random()));
}

/**
 * The server's wait hint in milliseconds, from `retry-after-ms`, or `retry-after` as seconds or an
 * HTTP date. Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const header = headers.get('retry-after');
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Statuses worth another attempt for a call that is safe to repeat. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

// Read only once an answer asks the client to wait: loaded with the core's after-answer module.

const DELTA_SECONDS = /^\d+$/;

/**
 * The server's wait hint in milliseconds, from `retry-after-ms`, or `retry-after` as delta-seconds
 * (a plain non-negative integer: not `0x10`, `1e1` nor `-1`) or an HTTP-date. A date is measured
 * against the answer's own `Date` header, so a client whose clock is off waits what the server
 * meant; without a `Date`, against `now`. Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  // Any number of digits: a huge hint is read as huge (and refused at once), never as no hint.
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(?:\.\d+)?$/.test(ms)) return bounded(Number(ms));
  const header = headers.get('retry-after')?.trim();
  if (!header) return undefined;
  if (DELTA_SECONDS.test(header)) return bounded(Number(header) * 1000);
  if (!/^[A-Za-z]{3}, /.test(header)) return undefined;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  const sent = Date.parse(headers.get('date') ?? '');
  return Math.max(0, date - (Number.isNaN(sent) ? now : sent));
}

/** A finite, safe number of milliseconds: a hint of 400 digits is still a number JSON can carry. */
const bounded = (ms: number): number => Math.min(ms, Number.MAX_SAFE_INTEGER);

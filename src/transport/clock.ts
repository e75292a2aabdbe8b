/**
 * Milliseconds on a monotonic clock, for every duration the client measures (deadlines, backoff,
 * windows, waits). Unlike `Date.now()`, it never jumps when the system clock is stepped, so a
 * clock set back an hour cannot hold a call for an hour, nor one set forward end a wait at once.
 * Only differences between two readings mean anything.
 */
export const monotonicNow = (): number => performance.now();

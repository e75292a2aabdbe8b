/** The key of an `Authorization: Bearer KEY` header, or undefined. */
export function bearerKey(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** At most `requests` per `intervalMs` per key, on wall-clock time (a rate limit is about real load). */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly limit: { requests: number; intervalMs: number }) {}

  /** Counts one request; returns the seconds to wait when it is over the limit, else undefined. */
  take(key: string, now = Date.now()): number | undefined {
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.limit.intervalMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= this.limit.requests) return Math.max(1, Math.ceil((window.start + this.limit.intervalMs - now) / 1000));
    window.count += 1;
    return undefined;
  }
}

import type { EmulatorClock } from '../clock.js';

interface Window {
  name: 'minute' | 'hour' | 'day';
  seconds: number;
  quota: number;
}

interface Usage {
  start: number;
  used: number;
}

/** Per-account quotas over fixed windows on the emulator clock, announced as IETF draft headers. */
export class RestRateLimiter {
  private readonly windows: Window[];
  private readonly usage = new Map<string, Usage[]>();

  constructor(
    private readonly clock: EmulatorClock,
    perMinute: number,
  ) {
    this.windows = [
      { name: 'minute', seconds: 60, quota: perMinute },
      { name: 'hour', seconds: 3_600, quota: perMinute * 30 },
      { name: 'day', seconds: 86_400, quota: perMinute * 300 },
    ];
  }

  private current(accountId: string): Usage[] {
    const now = this.clock.now();
    const usage = this.usage.get(accountId) ?? this.windows.map(() => ({ start: now, used: 0 }));
    this.windows.forEach((w, i) => {
      const u = usage[i]!;
      if (now >= u.start + w.seconds * 1000) {
        u.start = now - ((now - u.start) % (w.seconds * 1000));
        u.used = 0;
      }
    });
    this.usage.set(accountId, usage);
    return usage;
  }

  /** Counts one request; answers the window that is exhausted, if any, and the headers to send either way. */
  take(accountId: string): { exceeded?: { window: string; retryAfterSeconds: number }; headers: Record<string, string> } {
    const usage = this.current(accountId);
    const now = this.clock.now();
    const resetOf = (i: number) => Math.max(1, Math.ceil((usage[i]!.start + this.windows[i]!.seconds * 1000 - now) / 1000));
    const full = this.windows.findIndex((w, i) => usage[i]!.used >= w.quota);
    if (full < 0) for (const u of usage) u.used++;
    const headers = {
      RateLimit: this.windows.map((w, i) => `"${w.name}";r=${Math.max(0, w.quota - usage[i]!.used)};t=${resetOf(i)}`).join(', '),
      'RateLimit-Policy': this.windows.map((w) => `"${w.name}";q=${w.quota};w=${w.seconds}`).join(', '),
    };
    if (full < 0) return { headers };
    return { exceeded: { window: this.windows[full]!.name, retryAfterSeconds: resetOf(full) }, headers };
  }
}

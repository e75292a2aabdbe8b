/**
 * The emulator's clock. `real` follows wall time (what a running server wants); `manual` stands
 * still until a test calls `advance`, so hours of billing or a 20 s job take no real time.
 */
export interface EmulatorClock {
  readonly mode: 'real' | 'manual';
  now(): number;
  /** Resolves once the clock has moved `ms` forward (rejects when `signal` fires). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Manual mode only: moves time forward, waking every sleeper whose time has come, in order. */
  advance(ms: number): Promise<void>;
}

interface Sleeper {
  at: number;
  wake: () => void;
}

/**
 * @param timeScale real mode only: emulator milliseconds per wall-clock millisecond (10 runs a
 * 20 s job in 2 s). Benchmarks use it; 1 is the platform's own pace.
 */
export function createClock(mode: 'real' | 'manual', start = Date.parse('2026-11-21T00:00:00Z'), timeScale = 1): EmulatorClock {
  if (mode === 'real') {
    const origin = Date.now();
    return {
      mode,
      now: () => (timeScale === 1 ? Date.now() : origin + (Date.now() - origin) * timeScale),
      sleep: (ms, signal) =>
        new Promise((resolve, reject) => {
          if (signal?.aborted) return reject(signal.reason);
          // The abort listener goes when the sleep ends either way: a long-lived signal shared by many
          // sleeps would otherwise collect one listener per sleep (MaxListenersExceededWarning).
          const onAbort = () => (clearTimeout(timer), reject(signal!.reason));
          const timer = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), Math.max(0, ms / timeScale));
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
      advance: async () => {
        throw new Error('advance() needs an emulator created with { clock: "manual" }');
      },
    };
  }
  let now = start;
  let sleepers: Sleeper[] = [];
  const flushMicrotasks = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve();
  };
  return {
    mode,
    now: () => now,
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = () => {
          sleepers = sleepers.filter((s) => s !== sleeper);
          reject(signal!.reason);
        };
        const sleeper: Sleeper = { at: now + Math.max(0, ms), wake: () => (signal?.removeEventListener('abort', onAbort), resolve()) };
        sleepers.push(sleeper);
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    async advance(ms) {
      const target = now + ms;
      for (;;) {
        const due = sleepers.filter((s) => s.at <= target).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        now = Math.max(now, due.at);
        sleepers = sleepers.filter((s) => s !== due);
        due.wake();
        await flushMicrotasks();
      }
      now = target;
      await flushMicrotasks();
    },
  };
}

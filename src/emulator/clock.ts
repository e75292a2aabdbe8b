import { MAX_TIMER_MS } from '../transport/abort.js';
import { Lifetime } from './lifetime.js';

/** How a sleeper counts for a clock that moves itself (`run()`, the `auto` mode). */
export interface SleepOptions {
  /**
   * Housekeeping nobody waits on (freeing expired results, say): `run()` and the `auto` mode never
   * jump to it, yet `advance` wakes it in order with the others when time passes it. On the real
   * clock it does not keep the process alive.
   */
  passive?: boolean | undefined;
}

/** The clock underneath: `real` follows wall time; `manual` stands still until `advance`. */
export interface BaseClock {
  readonly mode: 'real' | 'manual';
  now(): number;
  /** Resolves once the clock has moved `ms` forward (rejects when `signal` fires). */
  sleep(ms: number, signal?: AbortSignal, options?: SleepOptions): Promise<void>;
  /** Manual mode only: moves time forward, waking every sleeper whose time has come, in order. */
  advance(ms: number): Promise<void>;
  /** Manual mode only: when the earliest sleeper is due; passive ones count only with `{ passive: true }`. */
  nextDue?(options?: SleepOptions): number | undefined;
}

/**
 * The emulator's clock. `real` follows wall time (what a running server wants); `manual` stands
 * still until a test calls `advance` or `run`, so hours of billing or a 20 s job take no real time;
 * `auto` is a manual clock that moves itself to the next thing due whenever the code under test waits.
 */
export interface EmulatorClock {
  readonly mode: 'real' | 'manual' | 'auto';
  /** Emulator time, in milliseconds since the epoch. */
  now(): number;
  /**
   * Resolves once the clock has moved `ms` forward (rejects when `signal` fires). A `passive` sleep
   * is housekeeping: `run()` and the `auto` mode do not jump to it (`advance` still wakes it).
   */
  sleep(ms: number, signal?: AbortSignal, options?: SleepOptions): Promise<void>;
  /** Manual and auto modes: moves time forward, waking every sleeper whose time has come (passive ones too), in order. */
  advance(ms: number): Promise<void>;
  /**
   * Settles like `work`; meanwhile, whenever the code under test waits, the clock jumps to the next
   * thing due (a job step, a pod start-up, a held `/stream`), so `waitUntilReady`, `job.wait()`,
   * `runSync` and `stream` finish without hand-written `advance` loops. It never jumps to
   * housekeeping alone (passive sleeps: the sweep of expired results), so an idle client finds a
   * finished job's result still there. Real mode: just awaits `work`.
   */
  run<T>(work: PromiseLike<T> | (() => PromiseLike<T>)): Promise<T>;
}

// A real-clock sleep longer than setTimeout allows waits in steps of MAX_TIMER_MS (see `wake`).
const timerDelay = (ms: number) => Math.min(ms, MAX_TIMER_MS);

interface Sleeper {
  at: number;
  passive: boolean;
  wake: () => void;
}

/**
 * @param timeScale real mode only: emulator milliseconds per wall-clock millisecond (10 runs a
 * 20 s job in 2 s). Benchmarks use it; 1 is the platform's own pace.
 */
/**
 * The reason a timer the emulator no longer needs is ended with. One shared value: \`abort()\` with
 * no reason makes a DOMException (and its stack) per call, and Node keeps each in a WeakMap whose
 * table grows with how many were made between collections, and stays that size (about 260 KB
 * after a 100,000-call soak).
 */
export const TIMER_CANCELLED = new DOMException('the timer was cancelled', 'AbortError');

export function createClock(mode: 'real' | 'manual', start = Date.parse('2026-11-21T00:00:00Z'), timeScale = 1): BaseClock {
  if (mode === 'real') {
    const origin = Date.now();
    const now = () => (timeScale === 1 ? Date.now() : origin + (Date.now() - origin) * timeScale);
    return {
      mode,
      now,
      sleep: (ms, signal, options) =>
        new Promise((resolve, reject) => {
          if (signal?.aborted) return reject(signal.reason);
          // Housekeeping must not keep a process alive: a CLI that ran one job exits when done.
          const arm = (fn: () => void, delay: number) => {
            const t = setTimeout(fn, delay);
            if (options?.passive) (t as { unref?: () => void }).unref?.();
            return t;
          };
          // A timer runs on the event loop's own clock, whole milliseconds behind: it may fire a
          // millisecond before now() reads its deadline, and whoever slept then compares now()
          // with the deadline (a cold start answered "no workers available" at its end). So the
          // sleep lasts until now() agrees.
          const until = now() + Math.max(0, ms);
          const wake = () => {
            const left = until - now();
            if (left > 0) timer = arm(wake, timerDelay(Math.max(1, left / timeScale)));
            else {
              signal?.removeEventListener('abort', onAbort);
              resolve();
            }
          };
          // The abort listener goes when the sleep ends either way: a long-lived signal shared by many
          // sleeps would otherwise collect one listener per sleep (MaxListenersExceededWarning).
          const onAbort = () => (clearTimeout(timer), reject(signal!.reason));
          let timer = arm(wake, timerDelay(Math.max(0, ms / timeScale)));
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
    nextDue: (options) => {
      let next: number | undefined;
      for (const s of sleepers) if ((options?.passive || !s.passive) && (next === undefined || s.at < next)) next = s.at;
      return next;
    },
    sleep: (ms, signal, options) =>
      new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = () => {
          sleepers = sleepers.filter((s) => s !== sleeper);
          reject(signal!.reason);
        };
        const sleeper: Sleeper = { at: now + Math.max(0, ms), passive: options?.passive === true, wake: () => (signal?.removeEventListener('abort', onAbort), resolve()) };
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

/** What the emulator holds: its clock plus the controls only the emulator uses. */
export interface ControlledClock extends EmulatorClock {
  /** Adds a source of times at which state changes without anyone sleeping (a pod's start-up). */
  watch(nextEvent: () => number | undefined): void;
  /** Says that state may have changed (a request was served): an advancing clock looks again. */
  poke(): void;
  /** Ends every timer and sleeper; later sleeps reject. */
  dispose(): void;
  /** Sleeps not yet ended (for tests of the bound: a sleep that has ended leaves nothing). */
  readonly pendingSleeps: number;
}

/** Passive wake-ups one tick may run before it lets other macrotasks in (a jump of days past a 10 s sweep). */
const MAX_PASSIVE_STEPS_PER_TICK = 1_000;

/**
 * Builds the emulator's clock on a base clock: `run()` and the `auto` mode, and `dispose()`.
 * "The code under test is waiting" is read as "a macrotask got to run": in-process, the emulator
 * and the client only hand each other promises, so by then every step that was ready has run.
 */
export function createEmulatorClock(mode: 'real' | 'manual' | 'auto', timeScale = 1): ControlledClock {
  const base = createClock(mode === 'real' ? 'real' : 'manual', undefined, timeScale);
  // Each sleep is one entry here until it ends, rather than a signal made with AbortSignal.any on
  // a long-lived one: on Node 20 each of those stays registered on its sources after the sleep.
  const sleeps = new Lifetime();
  const sources: Array<() => number | undefined> = [];
  let runners = mode === 'auto' ? 1 : 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ticking = false;

  /** When the next thing someone waits on is due: an active sleeper or a watched source; never a passive sleeper. */
  const nextEvent = (): number | undefined => {
    const now = base.now();
    const events = sources.map((source) => source()).filter((t): t is number => t !== undefined && t > now);
    const times = [base.nextDue?.(), ...events].filter((t): t is number => t !== undefined);
    return times.length ? Math.max(now, Math.min(...times)) : undefined;
  };

  const schedule = (): void => {
    if (timer !== undefined || ticking || runners === 0 || base.mode !== 'manual' || sleeps.disposed) return;
    timer = setTimeout(() => void tick(), 0);
    // The auto mode alone must not keep a Node process alive; a run() in progress must, or a
    // script awaiting only the emulator clock would end with its promise unsettled.
    if (runners === (mode === 'auto' ? 1 : 0)) (timer as { unref?: () => void }).unref?.();
  };

  const tick = async (): Promise<void> => {
    timer = undefined;
    ticking = true;
    try {
      // Housekeeping due on the way runs in order, one instant at a time, and the next event is
      // looked for again after each: a sweep may settle a job, and a hold waiting on it ends there.
      for (let step = 0; step < MAX_PASSIVE_STEPS_PER_TICK; step++) {
        const next = nextEvent();
        // Nothing anyone waits on (housekeeping alone is not worth a jump): stop until a sleep,
        // a request or run() says otherwise.
        if (next === undefined) return;
        const earliest = base.nextDue?.({ passive: true });
        if (earliest !== undefined && earliest < next) {
          await base.advance(earliest - base.now());
          continue;
        }
        await base.advance(next - base.now());
        break;
      }
    } finally {
      ticking = false;
    }
    schedule();
  };

  const wake = (): void => schedule();

  return {
    mode,
    now: () => base.now(),
    sleep(ms, signal, options) {
      const hold = sleeps.hold(signal);
      const slept = base.sleep(ms, hold.signal, options);
      // Whichever way it ends, nothing of this sleep stays registered (the base removes its own listener).
      slept.then(hold.release, hold.release);
      wake();
      return slept;
    },
    get pendingSleeps() {
      return sleeps.heldCount;
    },
    advance: (ms) => base.advance(ms),
    async run<T>(work: PromiseLike<T> | (() => PromiseLike<T>)): Promise<T> {
      runners++;
      wake();
      try {
        return await (typeof work === 'function' ? work() : work);
      } finally {
        runners--;
      }
    },
    watch(source) {
      sources.push(source);
    },
    poke: wake,
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      runners = 0;
      sleeps.dispose();
    },
  };
}

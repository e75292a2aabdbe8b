import { AbortError } from '../errors.js';
import { monotonicNow } from './clock.js';

/** setTimeout's longest delay: a longer one fires at once (Node warns and uses 1 ms), so longer waits re-arm. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Runs `fn` after `ms`, for any `ms` (in steps of MAX_TIMER_MS beyond it); returns its canceller. */
export function startTimer(fn: () => void, ms: number): () => void {
  let left = ms;
  let id: ReturnType<typeof setTimeout>;
  const arm = () => {
    const step = Math.min(left, MAX_TIMER_MS);
    left -= step;
    id = setTimeout(left > 0 ? arm : fn, step);
  };
  arm();
  return () => clearTimeout(id);
}

/** The reason an AbortSignal carries when it was aborted because a timer ran out. */
export class TimerExpired extends Error {
  override readonly name = 'TimerExpired';
}

export interface LinkedAbort {
  readonly signal: AbortSignal;
  /** True once the timer (not the caller) aborted the signal. */
  readonly timedOut: () => boolean;
  readonly dispose: () => void;
  /** Clears the timer but keeps following the caller's signal (until `dispose`). */
  readonly stopTimer: () => void;
}

/** A timer's end: module-level, so arming one allocates no closure. */
function expire(link: Link): void {
  link.expired = true;
  link.cancelTimer = undefined;
  link.controller.abort(new TimerExpired(`timed out after ${link.timeoutMs} ms`));
}

/**
 * One attempt's (or call's) linked controller. A class with its methods on the prototype and the
 * caller's signals listened to through `handleEvent`: every request makes one, so it allocates no
 * closures (a per-attempt cost that showed in the per-call bench).
 */
class Link implements LinkedAbort, EventListenerObject {
  readonly controller = new AbortController();
  expired = false;
  cancelTimer: (() => void) | undefined = undefined;
  timer: ReturnType<typeof setTimeout> | undefined = undefined;

  constructor(
    readonly parent: AbortSignal | undefined,
    readonly other: AbortSignal | undefined,
    readonly timeoutMs: number | undefined,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  handleEvent(event: Event): void {
    this.controller.abort((event.target as AbortSignal).reason);
  }

  timedOut(): boolean {
    return this.expired;
  }

  stopTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  dispose(): void {
    this.stopTimer();
    this.parent?.removeEventListener('abort', this);
    this.other?.removeEventListener('abort', this);
  }
}

/**
 * An AbortController that fires when the caller's signal (or `other`) fires or after `timeoutMs`,
 * whichever comes first. `dispose` clears the timer and the listener, so nothing outlives the attempt.
 */
export function linkAbort(parent: AbortSignal | undefined, timeoutMs: number | undefined, other?: AbortSignal): LinkedAbort {
  const link = new Link(parent, other, timeoutMs);
  const { controller } = link;
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', link, { once: true });
  // A second signal (a gate's), followed the same way and let go of by `dispose` too.
  if (other?.aborted) controller.abort(other.reason);
  else other?.addEventListener('abort', link, { once: true });
  if (timeoutMs !== undefined && timeoutMs > 0 && timeoutMs !== Infinity && !controller.signal.aborted) {
    // The common case is one plain timer; only waits past setTimeout's longest re-arm.
    if (timeoutMs <= MAX_TIMER_MS) link.timer = setTimeout(expire, timeoutMs, link);
    else link.cancelTimer = startTimer(() => expire(link), timeoutMs);
  }
  return link;
}

/** A call's deadline as its signal carries it: when it passes (monotonic clock) and how long it was. */
export interface Deadline {
  readonly at: number;
  readonly ms: number;
}
const deadlines = new WeakMap<AbortSignal, Deadline>();

/** The whole-call deadline `signal` carries (see {@link startDeadline}), if any. */
export const deadlineOf = (signal: AbortSignal | undefined): Deadline | undefined => signal && deadlines.get(signal);

/**
 * A whole-call deadline: a signal that fires when `parent` does or `ms` after now, and carries
 * the deadline, so every step of the call that is handed the signal (pacing waits, retries,
 * backoff, reads before a create, the marker lookup) sees the same one. Undefined without `ms`,
 * or when `parent` already carries a deadline (the outer call's, which comes first).
 */
export function startDeadline(parent: AbortSignal | undefined, ms: number | undefined): LinkedAbort | undefined {
  if (ms === undefined || deadlineOf(parent)) return undefined;
  const link = linkAbort(parent, ms);
  deadlines.set(link.signal, { at: monotonicNow() + ms, ms });
  return link;
}

/** True when `signal` fired because its deadline (or an attempt's time limit) passed, not because a caller aborted. */
export const timerFired = (signal: AbortSignal | undefined): boolean => !!signal?.aborted && signal.reason instanceof TimerExpired;

/** Throws AbortError when `signal` has fired. */
export function throwIfAborted(signal: AbortSignal | undefined, what = 'request'): void {
  if (signal?.aborted) throw new AbortError(`${what} aborted by the caller`, { cause: signal.reason });
}

/** Resolves after `ms`, or rejects with AbortError as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortError('wait aborted by the caller', { cause: signal.reason }));
      return;
    }
    const onAbort = () => {
      cancel();
      reject(new AbortError('wait aborted by the caller', { cause: signal?.reason }));
    };
    const cancel = startTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Settles with `promise`, or rejects as soon as `signal` fires (`promise` goes on): with an
 * AbortError naming `what`, or with what `reason` makes of the signal.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined, what: string | ((signal: AbortSignal) => unknown) = 'deploy'): Promise<T> {
  if (!signal) return promise;
  const reason = typeof what === 'function' ? what : (s: AbortSignal) => new AbortError(`${what} aborted by the caller`, { cause: s.reason });
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(reason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

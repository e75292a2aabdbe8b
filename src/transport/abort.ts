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

/**
 * An AbortController that fires when the caller's signal (or `other`) fires or after `timeoutMs`,
 * whichever comes first. `dispose` clears the timer and the listener, so nothing outlives the attempt.
 */
export function linkAbort(parent: AbortSignal | undefined, timeoutMs: number | undefined, other?: AbortSignal): LinkedAbort {
  const controller = new AbortController();
  let timedOut = false;
  let cancelTimer: (() => void) | undefined;
  const onParentAbort = () => controller.abort(parent?.reason);
  const onOtherAbort = () => controller.abort(other?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  // A second signal (a gate's), followed the same way and let go of by `dispose` too.
  if (other?.aborted) controller.abort(other.reason);
  else other?.addEventListener('abort', onOtherAbort, { once: true });
  if (timeoutMs !== undefined && timeoutMs > 0 && timeoutMs !== Infinity && !controller.signal.aborted) {
    cancelTimer = startTimer(() => {
      timedOut = true;
      controller.abort(new TimerExpired(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  }
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      cancelTimer?.();
      parent?.removeEventListener('abort', onParentAbort);
      other?.removeEventListener('abort', onOtherAbort);
    },
    stopTimer: () => cancelTimer?.(),
  };
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

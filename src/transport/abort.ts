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

/** One of the waits that follow a signal through {@link follow}: told once, when the signal fires. */
export interface AbortFollower {
  abortedBy(signal: AbortSignal): void;
}

/**
 * The one listener the package keeps on a signal, for every wait that follows it. A document or a
 * fan-out may hold hundreds of calls on one signal (queued for their turn, in flight, backing
 * off); a listener each would pass Node's limit of 10 per signal, and its warning would speak of a
 * leak where there is none. Added when the first wait follows, removed when the last one leaves, so
 * a signal with no wait left carries nothing of ours (an `AbortSignal.any` or `timeout` signal with
 * a listener is kept alive until it fires).
 */
class Followers implements EventListenerObject {
  readonly waits = new Set<AbortFollower>();
  constructor(readonly signal: AbortSignal) {}

  handleEvent(): void {
    const { waits, signal } = this;
    // Each leaves before it is told, so what it does in turn (unfollow, follow again) finds it gone.
    for (const wait of waits) {
      waits.delete(wait);
      wait.abortedBy(signal);
    }
  }
}

// Weak: the entry (and the listener's object, which names the signal) goes with the signal.
const followers = new WeakMap<AbortSignal, Followers>();

/** `follower.abortedBy` runs when `signal` fires, until {@link unfollow}. The caller checks `signal.aborted` first. */
export function follow(signal: AbortSignal, follower: AbortFollower): void {
  let entry = followers.get(signal);
  if (entry === undefined) followers.set(signal, (entry = new Followers(signal)));
  if (entry.waits.size === 0) signal.addEventListener('abort', entry, { once: true });
  entry.waits.add(follower);
}

/** Stops following `signal`; its listener goes once nothing follows it. Safe to call twice. */
export function unfollow(signal: AbortSignal, follower: AbortFollower): void {
  const entry = followers.get(signal);
  if (entry !== undefined && entry.waits.delete(follower) && entry.waits.size === 0) signal.removeEventListener('abort', entry);
}

export interface LinkedAbort {
  readonly signal: AbortSignal;
  /** True once the timer (not the caller) aborted the signal. */
  timedOut(): boolean;
  dispose(): void;
  /** Clears the timer but keeps following the caller's signal (until `dispose`). */
  stopTimer(): void;
}

/**
 * A signal of its own that fires when `parent` (or `other`) fires or after `timeoutMs`. A class,
 * with no closure per signal followed: one is made per attempt.
 */
class Link implements LinkedAbort, AbortFollower {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  private expired = false;
  private cancel: (() => void) | undefined;

  constructor(
    private readonly parent: AbortSignal | undefined,
    private readonly other: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ) {
    // A second signal (a gate's) is followed the same way, and let go of by `dispose` too.
    for (const s of [parent, other]) {
      if (s && !this.signal.aborted) {
        if (s.aborted) this.abortedBy(s);
        else follow(s, this);
      }
    }
    if (timeoutMs !== undefined && timeoutMs > 0 && timeoutMs !== Infinity && !this.signal.aborted) {
      this.cancel = startTimer(() => {
        this.expired = true;
        this.controller.abort(new TimerExpired(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
    }
  }

  abortedBy(signal: AbortSignal): void {
    this.controller.abort(signal.reason);
  }

  timedOut(): boolean {
    return this.expired;
  }

  stopTimer(): void {
    this.cancel?.();
  }

  dispose(): void {
    this.stopTimer();
    if (this.parent) unfollow(this.parent, this);
    if (this.other) unfollow(this.other, this);
  }
}

/**
 * A signal that fires when the caller's signal (or `other`) fires or after `timeoutMs`, whichever
 * comes first. `dispose` clears the timer and stops following, so nothing outlives the attempt.
 */
export function linkAbort(parent: AbortSignal | undefined, timeoutMs: number | undefined, other?: AbortSignal): LinkedAbort {
  return new Link(parent, other, timeoutMs);
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
    const follower: AbortFollower = {
      abortedBy(s) {
        cancel();
        reject(new AbortError('wait aborted by the caller', { cause: s.reason }));
      },
    };
    const cancel = startTimer(() => {
      if (signal) unfollow(signal, follower);
      resolve();
    }, ms);
    if (signal) follow(signal, follower);
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
    const follower: AbortFollower = { abortedBy: (s) => reject(reason(s)) };
    follow(signal, follower);
    promise.then(
      (value) => {
        unfollow(signal, follower);
        resolve(value);
      },
      (err: unknown) => {
        unfollow(signal, follower);
        reject(err);
      },
    );
  });
}

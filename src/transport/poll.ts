import { sleep, throwIfAborted } from './abort.js';
import { monotonicNow } from './clock.js';
import { checkDuration } from './options.js';

export interface PollProgress {
  readonly attempt: number;
  readonly elapsedMs: number;
  /** Milliseconds until the next poll. */
  readonly nextPollMs: number;
}

export interface PollOptions<State, Result> {
  /** Reads the state once; gets the time left before the deadline. */
  poll(remainingMs: number): Promise<State>;
  /** The result when done; throws for a state that will not get better; undefined to keep going. */
  settle(state: State): Result | undefined;
  /** The error for a deadline passed while the last state was `state`. */
  deadline(state: State): Error;
  progress?: ((state: State, progress: PollProgress) => void) | undefined;
  timeoutMs: number;
  /** First delay between polls; it grows 1.5× per poll up to `maxIntervalMs`. */
  intervalMs: number;
  maxIntervalMs: number;
  signal?: AbortSignal | undefined;
  /** Named in the AbortError. */
  what: string;
  /** Wait this long before the first poll (its step counts as taken). */
  firstDelayMs?: number | undefined;
}

/** Polls with growing intervals until `settle` gives a result, up to a deadline; abortable at any wait. */
export async function pollWithBackoff<State, Result>(o: PollOptions<State, Result>): Promise<Result> {
  checkDuration('timeoutMs', o.timeoutMs);
  checkDuration('pollIntervalMs', o.intervalMs);
  let interval = o.intervalMs;
  const grow = () => (interval = Math.min(interval * 1.5, o.maxIntervalMs));
  const started = monotonicNow();
  if (o.firstDelayMs !== undefined && o.firstDelayMs > 0) {
    await sleep(Math.min(o.firstDelayMs, o.timeoutMs), o.signal);
    grow();
  }
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(o.signal, o.what);
    const state = await o.poll(Math.max(1, o.timeoutMs - (monotonicNow() - started)));
    const result = o.settle(state);
    if (result !== undefined) return result;
    const elapsedMs = monotonicNow() - started;
    if (elapsedMs >= o.timeoutMs) throw o.deadline(state);
    const nextPollMs = Math.min(interval, o.timeoutMs - elapsedMs);
    if (o.progress) {
      // The caller's hook observes; what it throws ends no wait.
      try {
        o.progress(state, { attempt, elapsedMs, nextPollMs });
      } catch {
        // Ignored: see above.
      }
    }
    await sleep(nextPollMs, o.signal);
    grow();
  }
}

// The one create-once rule of the client, for every create on every API (rp.pods over GraphQL or
// REST v2, rp.rest.*.create): one marker per call, sent once, never resent once it may have reached
// the server; after an ambiguous failure, a bounded lookup by that marker; else a PossiblyCreatedError
// that carries it. Surfaces say how to send and how to find; the rule lives only here.
//
// Loaded with the first create (it is not needed before one), so it takes the start-up helpers it
// uses as a kit rather than importing them: a lazy chunk that imports start-up modules splits them
// into chunks of their own, which costs more than it saves.
import type { RunpodError } from '../errors.js';
import type { LinkedAbort } from './abort.js';
import type { MarkerLookupOptions } from './create-marker.js';
import type { CreateOnceKit } from './create-once-kit.js';
import type { CallOptions } from './options.js';

/**
 * The lookups after an ambiguous failure: 3 of them, 2 s apart, the first at once (so 0, 2 and 4 s
 * after the failure). The client had two intervals, 1.5 s (rp.pods) and 2 s (rp.rest); 2 s is kept
 * because the lookups exist to see a create that was still being carried out when its answer was
 * lost, and the longer span gives it more time to show up for the same three list requests, which
 * draw on the same paced bucket as the caller's own calls. A shorter interval only spends them sooner.
 */
export const DEFAULT_MARKER_LOOKUP = { attempts: 3, intervalMs: 2_000 } as const;

/** The options of any create: the call's own, and how to look for what it made after an ambiguous failure. */
export interface CreateOnceOptions extends CallOptions {
  /**
   * After an ambiguous failure (5xx, cut connection, time-out) what carries this create's marker
   * is looked for: at most `attempts` lookups, `intervalMs` apart (the first at once).
   * @default { attempts: 3, intervalMs: 2000 }
   */
  markerLookup?: MarkerLookupOptions | undefined;
  /**
   * The marker this create carries (8 to 128 letters, digits, `_` or `-`). By default a fresh
   * random one. Give your own to record it before the request leaves, so that a process stopped
   * mid-create can still find what it made by its marker. Use a new one for every create.
   */
  createMarker?: string | undefined;
}

/** One create, as a surface describes it. */
export interface CreateOnceCall<T> {
  /** Names the create in the PossiblyCreatedError: `DeployPod`, `POST /pods`. */
  readonly operation: string;
  /** What is created (`pod`), for the PossiblyCreatedError. */
  readonly noun?: string | undefined;
  /**
   * Sends the create, carrying `marker` where `find` will look for it. Calls `sending()` just before
   * the create request itself goes out: a failure before it (a catalog read) created nothing.
   * An answer with nothing in it (`null`) is as ambiguous as a 5xx.
   */
  send(marker: string, sending: () => void, options: CallOptions): Promise<T | null | undefined>;
  /** What carries `marker` now, or null. Absent when the resource cannot carry a marker. */
  readonly find?: ((marker: string, options: CallOptions) => Promise<T | null | undefined>) | undefined;
  /** Where the caller can look for it later (a sentence), shown in the PossiblyCreatedError. */
  readonly later?: ((marker: string) => string) | undefined;
  /** Without `find`: what to look for instead (the name that was sent, and where such resources are listed). */
  readonly lookFor?: string | undefined;
  /** A failure of this API after which the create may have happened, beyond the core's `mayHaveActed`. */
  readonly ambiguous?: ((err: unknown) => boolean) | undefined;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));



/**
 * Sends `call` once with a fresh marker. After an ambiguous failure it looks for what carries the
 * marker (a bounded number of times) and returns it: one call, one resource. When that cannot
 * settle it, a PossiblyCreatedError carries the marker. Nothing is ever resent.
 */
export async function createOnce<T>(kit: CreateOnceKit, call: CreateOnceCall<T>, options: CreateOnceOptions = {}, clientDeadlineMs?: number): Promise<T> {
  // The caller's own marker was checked before this module loaded (create-once-kit.ts).
  const { markerLookup, createMarker, ...given } = options;
  const attempts = Math.max(1, markerLookup?.attempts ?? DEFAULT_MARKER_LOOKUP.attempts);
  const intervalMs = markerLookup?.intervalMs ?? DEFAULT_MARKER_LOOKUP.intervalMs;
  // One deadline for every step: the reads before the create, the create, the lookups.
  const deadline = kit.startDeadline(given.signal, given.deadlineMs ?? clientDeadlineMs);
  try {
    return await createWithin(kit, call, deadline ? { ...given, signal: deadline.signal } : given, attempts, intervalMs, deadline, createMarker);
  } finally {
    deadline?.dispose();
  }
}

async function createWithin<T>(kit: CreateOnceKit, call: CreateOnceCall<T>, callOptions: CallOptions, attempts: number, intervalMs: number, deadline: LinkedAbort | undefined, given: string | undefined): Promise<T> {
  const { AbortError, PossiblyCreatedError, ServerError, TimeoutError } = kit.errors;
  const { signal } = callOptions;
  const marker = call.find ? (given ?? kit.newCreateMarker()) : '';
  const passed = () => deadline?.timedOut() ?? false;
  let sent = false;
  let failure: unknown;
  try {
    const made = await call.send(marker, () => (sent = true), callOptions);
    if (made != null) return made;
    failure = new ServerError(`${call.operation}: the platform answered with nothing and no error`, { status: 200 });
  } catch (err) {
    // A create that never left made nothing; one that did may have, whatever ended the wait for
    // its answer: a failure that may have acted, the deadline, or the caller's abort.
    const ambiguous = kit.mayHaveActed(err) || call.ambiguous?.(err) || err instanceof AbortError;
    if (!sent || kit.neverSent(err) || !ambiguous) {
      if (passed() && err instanceof AbortError) {
        const ms = kit.deadlineOf(deadline!.signal)!.ms;
        throw new TimeoutError(`${call.operation}: the call's ${ms} ms deadline passed before it was sent`, { timeoutMs: ms, cause: err });
      }
      throw err;
    }
    failure = err;
  }
  let why = 'it cannot carry a marker to be found by';
  if (call.find) {
    let lookups = 0;
    let lookupFailure: unknown;
    for (let n = 0; n < attempts && !signal?.aborted; n++) {
      try {
        if (n > 0) await kit.sleep(intervalMs, signal);
        lookups++;
        const found = await call.find(marker, callOptions);
        if (found) return found;
      } catch (err) {
        lookupFailure = err;
        if (err instanceof AbortError) break;
      }
    }
    why = passed()
      ? `its deadline passed after ${lookups} lookup(s) by its marker`
      : signal?.aborted && !lookups
        ? 'it was not looked up: the caller aborted'
        : `${lookups} lookup(s) by its marker found none${lookupFailure ? `; looking it up failed (${messageOf(lookupFailure)})` : ''}`;
  }
  const what = call.noun ? `a ${call.noun}` : 'something';
  const later = call.find ? ` ${call.later?.(marker) ?? `Look for env ${kit.CREATE_MARKER_ENV}=${marker}`}.` : call.lookFor ? ` Look for ${call.lookFor}.` : '';
  throw new PossiblyCreatedError(`${call.operation} may have created ${what}: ${messageOf(failure)}. ${why}.${later}`, {
    createMarker: marker,
    lookFor: call.find ? undefined : call.lookFor,
    cause: failure,
    request: (failure as Partial<RunpodError>).request,
  });
}

// What the lazily loaded create-once rule (create-once.ts) takes from the start-up modules, and the
// one way to call it: loaded with the first create, handed this kit. One of the three kits kept on
// measure (with rest/lazy.ts's and serverless/queue.ts's): plain imports there cost the start-up
// 857 B gzipped (esbuild code splitting, 2026-11-28; see the transport README).
import { AbortError, PossiblyCreatedError, ServerError, TimeoutError, ValidationError } from '../errors.js';
import { shown } from '../validation.js';
import { deadlineOf, sleep, startDeadline } from './abort.js';
import { CREATE_MARKER_ENV, newCreateMarker } from './create-marker.js';
import type { CreateOnceCall, CreateOnceOptions } from './create-once.js';
import { mayHaveActed, neverSent } from './http-core.js';

const kit = {
  errors: { AbortError, PossiblyCreatedError, ServerError, TimeoutError },
  ...{ deadlineOf, sleep, startDeadline, CREATE_MARKER_ENV, newCreateMarker, mayHaveActed, neverSent },
};
export type CreateOnceKit = typeof kit;

/** The client's one create-once rule (see create-once.ts), loaded on the first create. */
export async function createOnce<T>(call: CreateOnceCall<T>, options?: CreateOnceOptions, clientDeadlineMs?: number): Promise<T> {
  // A caller's own marker is checked before anything loads or is sent.
  const given = options?.createMarker;
  if (given !== undefined && (typeof given !== 'string' || !/^[\w-]{8,128}$/.test(given))) {
    throw new ValidationError('createMarker', `must be 8 to 128 letters, digits, '_' or '-', got ${shown(given)}`);
  }
  return (await import('./create-once.js')).createOnce<T>(kit, call, options, clientDeadlineMs);
}

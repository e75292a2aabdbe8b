// The one way to call the client's create-once rule (create-once.ts), which loads with the first
// create: nothing before one needs it.
import { ValidationError } from '../errors.js';
import { shown } from '../validation.js';
import type { CreateOnceCall, CreateOnceOptions } from './create-once.js';

/** The client's one create-once rule (see create-once.ts), loaded on the first create. */
export async function createOnce<T>(call: CreateOnceCall<T>, options?: CreateOnceOptions, clientDeadlineMs?: number): Promise<T> {
  // A caller's own marker is checked before anything loads or is sent.
  const given = options?.createMarker;
  if (given !== undefined && (typeof given !== 'string' || !/^[\w-]{8,128}$/.test(given))) {
    throw new ValidationError('createMarker', `must be 8 to 128 letters, digits, '_' or '-', got ${shown(given)}`);
  }
  return (await import('./create-once.js')).createOnce<T>(call, options, clientDeadlineMs);
}

import { sleep, throwIfAborted } from '../transport/abort.js';
import { CREATE_MARKER_ENV, newCreateMarker } from '../transport/create-marker.js';
import { isRecord, isString } from '../transport/shape.js';
import type { RequestSchemaName } from './__generated__/request-rules.js';
import type { CreateOptions, MarkerList } from './create-once.js';
import type { RestCall, RestRequester } from './rest-request.js';

// The contract's request rules, the create-once lookup and the gpu.id check are only needed once a
// call that sends a body is made; every REST call is async, so the first one loads them (a separate
// chunk for apps that code-split) and nothing is sent before the check has run.
/**
 * Start-up helpers handed to the lazy modules rather than imported by them: a lazy chunk that
 * imports a start-up module splits it into a chunk of its own, which costs more than it saves.
 */
export const kit = { sleep, throwIfAborted, isRecord, isString, CREATE_MARKER_ENV, newCreateMarker };
export type LazyKit = typeof kit;

let checks: Promise<typeof import('./request-check.js')> | undefined;

/** Loads the request rules and checks `body` against `schema`: a rejected `ValidationError` when it breaks them. */
export async function checkBody(schema: RequestSchemaName, body: unknown, path?: string): Promise<void> {
  (await (checks ??= import('./request-check.js'))).checkRequestBody(schema, body, path);
}

/** The pod actions the contract names. */
export async function podActions(): Promise<readonly unknown[]> {
  return (await (checks ??= import('./request-check.js'))).podActions();
}

/** `createOnce`, loaded on the first create. */
export async function createOnceLazy<T>(rest: RestRequester, call: Omit<RestCall, 'idempotent'>, options?: CreateOptions, list?: MarkerList): Promise<T> {
  return (await import('./create-once.js')).createOnce<T>(rest, call, options, list, kit);
}

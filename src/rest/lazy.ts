import { AbortError, ConnectionError, RunpodError, ServerError, StreamError, TimeoutError, ValidationError } from '../errors.js';
import { sleep, startTimer, throwIfAborted, untilAborted } from '../transport/abort.js';
import { CREATE_MARKER_ENV, newCreateMarker } from '../transport/create-marker.js';
import { createOnce } from '../transport/create-once-kit.js';
import { redactUrl } from '../transport/redact.js';
import { isRecord, isString } from '../transport/shape.js';
import type { RequestSchemaName } from './__generated__/request-rules.js';
import type { CreateOptions, MarkerList } from './create-once.js';
import { PAGE_LIMIT, pagedList } from './pager.js';
import type { RestCall, RestRequester } from './rest-request.js';
import type { CreatePodInput } from './types.js';
import type { CallOptions } from '../transport/options.js';

// The contract's request rules, the create-once lookup and the gpu.id check are only needed once a
// call that sends a body is made; every REST call is async, so the first one loads them (a separate
// chunk for apps that code-split) and nothing is sent before the check has run.
/**
 * Start-up helpers handed to the lazy modules rather than imported by them: a lazy chunk that
 * imports a start-up module splits it into a chunk of its own, which costs more than it saves.
 */
export const kit = {
  errors: { AbortError, ConnectionError, RunpodError, ServerError, StreamError, TimeoutError, ValidationError },
  ...{ createOnce, sleep, startTimer, throwIfAborted, isRecord, isString, CREATE_MARKER_ENV, newCreateMarker, redactUrl, untilAborted, pagedList, PAGE_LIMIT },
};
export type LazyKit = typeof kit;

let checks: Promise<typeof import('./request-problems.js')> | undefined;

/** Loads the request rules and checks `body` against `schema`: a rejected `ValidationError` when it breaks them. */
export async function checkBody(schema: RequestSchemaName, body: unknown, path?: string): Promise<void> {
  const problem = (await (checks ??= import('./request-problems.js'))).problemOfBody(schema, body, path);
  if (problem) throw new ValidationError(problem[0], problem[1]);
}

/** A pod create's rules beyond the schema and its size (see request-problems.ts): the body to send, or a rejected `ValidationError`. */
export async function checkPodCreateRules(body: CreatePodInput, markerBytes: number, maxBytes: number): Promise<CreatePodInput> {
  const checked = (await (checks ??= import('./request-problems.js'))).podCreateProblem(body, markerBytes, maxBytes);
  if (Array.isArray(checked)) throw new ValidationError(checked[0], checked[1]);
  return checked;
}

/** The pod actions the contract names. */
export async function podActions(): Promise<readonly unknown[]> {
  return (await (checks ??= import('./request-problems.js'))).podActions();
}

/** A REST v2 create under the create-once rule; its REST part loads on the first create. */
export async function createOnceLazy<T>(rest: RestRequester, call: Omit<RestCall, 'idempotent'>, options?: CreateOptions, list?: MarkerList, before?: (options: CallOptions) => Promise<void>): Promise<T> {
  return (await import('./create-once.js')).createRestOnce<T>(rest, call, options, list, kit, before);
}

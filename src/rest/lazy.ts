import { ConnectionError, RunpodError, StreamError, TimeoutError, ValidationError } from '../errors.js';
import { sleep, startTimer } from '../transport/abort.js';
import { CREATE_MARKER_ENV } from '../transport/create-marker.js';
import { createOnce } from '../transport/create-once-kit.js';
import { redactUrl } from '../transport/redact.js';
import { backoffMs } from '../transport/retry.js';
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
 * What rest/create-once.ts and rest/log-stream.ts use of the start-up modules, handed to them
 * rather than imported: one of the three kits kept on measure (with transport/create-once-kit.ts's
 * and serverless/queue.ts's); every other lazily loaded module imports what it uses. Plain imports
 * in these two cost the start-up 1,326 B gzipped (esbuild code splitting, 2026-11-28): esbuild
 * would split the helpers they share with the start-up into chunks of their own (see the transport
 * README).
 */
export const kit = { ConnectionError, RunpodError, StreamError, TimeoutError, createOnce, sleep, startTimer, backoffMs, isRecord, isString, redactUrl, CREATE_MARKER_ENV, pagedList, PAGE_LIMIT };
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

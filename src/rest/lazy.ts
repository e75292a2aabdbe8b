import { ValidationError } from '../errors.js';
import type { RequestSchemaName } from './__generated__/request-rules.js';
import type { CreateOptions, MarkerList } from './create-once.js';
import { kit } from './lazy-kit.js';
import type { RestCall, RestRequester } from './rest-request.js';
import type { CreatePodInput } from './types.js';
import type { CallOptions } from '../transport/options.js';

// The contract's request rules, the create-once lookup and the gpu.id check are only needed once a
// call that sends a body is made; every REST call is async, so the first one loads them (a separate
// chunk for apps that code-split) and nothing is sent before the check has run.

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

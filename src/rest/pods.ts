import { ConflictError, ValidationError } from '../errors.js';
import { catalogEntries, createGpuTypeCatalog } from '../gpu-types/catalog.js';
import type { CreateOnceOptions } from '../transport/create-once.js';
import { followedLostAnswer } from '../transport/http-core.js';
import { CREATE_MARKER_ENV } from '../transport/create-marker.js';
import { validateCallOptions, type CallOptions } from '../transport/options.js';
import { isRecord, isString } from '../transport/shape.js';
import { logStream, type LogLine, type LogOptions } from './logs.js';
import { checkBody, checkPodCreateRules, createOnceLazy, podActions } from './lazy.js';
import { PAGE_LIMIT, pagedList, type PageOptions, type PagedList } from './pager.js';
import { idSegment, type RestRequester } from './rest-request.js';
import { checkEnvName, shown } from '../validation.js';
import type { CreatePodInput, ExecPodResponse, Pod, PodAction, PodExecInput, PodListQuery, UpdatePodInput } from './types.js';

/** Options of `rest.pods.create`: after an ambiguous failure the pods are listed to find the one carrying its marker. */
export type PodCreateOptions = CreateOnceOptions;

export interface RestPodsApi {
  /**
   * Creates a pod. Never resent automatically; after an ambiguous failure the pod is looked up by
   * a marker in its `env` (`RUNPOD_GQL_CREATE_MARKER`), else a `PossiblyCreatedError` is thrown.
   */
  create(body: CreatePodInput, options?: PodCreateOptions): Promise<Pod>;
  /**
   * Every pod across all pages when awaited, newest first; `for await` streams them page by page,
   * and `.page()` reads one page with its `pagination`. `{ limit, cursor }` set the page size and the start.
   * Without `includeClusterPods` a page can be short (cluster pods are taken out after it is cut).
   */
  list(query?: PodListQuery, options?: PageOptions): PagedList<Pod>;
  get(id: string, options?: CallOptions): Promise<Pod>;
  /** PATCH; not resent automatically (an edit can restart the pod). */
  update(id: string, body: UpdatePodInput, options?: CallOptions): Promise<Pod>;
  /** A 404 on a retry, after an attempt whose answer was lost, counts as done. */
  delete(id: string, options?: CallOptions): Promise<void>;
  start(id: string, options?: CallOptions): Promise<Pod>;
  stop(id: string, options?: CallOptions): Promise<Pod>;
  restart(id: string, options?: CallOptions): Promise<Pod>;
  /** A 404 on a retry, after an attempt whose answer was lost, counts as done. */
  terminate(id: string, options?: CallOptions): Promise<void>;
  /**
   * Any action by name. A 409 (not valid in the pod's status; also from `update` and `delete`) is
   * a `ConflictError` carrying the pod's `resourceStatus` and `validActions`.
   */
  action(id: string, action: PodAction, options?: CallOptions): Promise<Pod | undefined>;
  /** The pod's log lines as Server-Sent Events; leave the loop to end the request. */
  logs(id: string, options?: LogOptions): AsyncIterable<LogLine>;
  /**
   * Runs `command` (an argv, no shell) in the running pod's container and answers its exit code and
   * output. Never resent once it may have reached the server: a command may have run. From RunPod's
   * documentation (`POST /v2/pods/{id}/exec`); it is in no published contract yet.
   */
  exec(id: string, input: PodExecInput, options?: CallOptions): Promise<ExecPodResponse>;
}

/** Where a pod stands once an action took effect: a resend's 409 in one of these means the first send did it. */
const REACHED: Partial<Record<PodAction, readonly string[]>> = {
  start: ['PROVISIONING', 'STARTING', 'RUNNING'],
  stop: ['EXITED'],
  restart: ['PROVISIONING', 'STARTING', 'RUNNING'],
};

/**
 * The shared catalog read of the gpu.id check belongs to no caller, so it has its own short limits:
 * a catalog that cannot be read soon leaves creates unchecked rather than holding them up.
 */
const CATALOG_READ: CallOptions = { timeoutMs: 10_000, maxRetries: 0 };

/** Largest `POST /pods` body the platform reads: a larger one is refused with 413 before anything else. */
export const POD_CREATE_MAX_BYTES = 102_400;
/** What the create marker adds to a body's `env` (`,"RUNPOD_GQL_CREATE_MARKER":"<32 hex>"` and braces at most). */
const MARKER_BYTES = CREATE_MARKER_ENV.length + 32 + 8;

/**
 * The cross-field rules of a pod create that the contract's schema does not express; answers the
 * body to send, with `gpu.count` always set (the contract's default, 1), so no server default decides it.
 */
async function checkPodCreate(body: CreatePodInput, markerBytes: number): Promise<CreatePodInput> {
  // The env names rule of every path first, so the same env gives the same answer as rp.pods.deploy.
  if (isRecord(body) && isRecord(body.env)) for (const key of Object.keys(body.env)) checkEnvName('body.env', key);
  await checkBody('CreatePodRequest', body);
  return checkPodCreateRules(body, markerBytes, POD_CREATE_MAX_BYTES);
}

/**
 * One `POST /pods`, checked against the contract first, never resent once it may have reached the
 * server. The caller puts its create marker into `body.env` and settles an ambiguous failure.
 */
export async function sendPodCreate(rest: RestRequester, body: CreatePodInput, options?: CallOptions): Promise<Pod> {
  // The caller's marker is in the body already.
  const sent = await checkPodCreate(body, 0);
  return rest.object<Pod>({ method: 'POST', path: '/pods', route: 'POST /pods', body: sent, idempotent: false }, options);
}

export function createRestPodsApi(rest: RestRequester): RestPodsApi {
  const one = (id: unknown) => `/pods/${idSegment('id', id)}`;
  // gpu.id is checked against REST v2's catalog (`GET /catalog/gpus`), as GraphQL deploy checks
  // against its own: an unknown id is a ValidationError naming the closest one, before the create.
  // Outside the REST bucket's pacing: a 429 on this read must not pause the create behind it (the
  // create then meets the limit itself, with its own error).
  const gpuTypes = createGpuTypeCatalog(
    async () => {
      const body = await rest.core.requestJson<unknown>({ ...rest.http({ method: 'GET', path: '/catalog/gpus', route: 'GET /catalog/gpus', idempotent: true }, CATALOG_READ), rateLimitKey: undefined });
      return catalogEntries(isRecord(body) ? body.gpus : undefined, 'name');
    },
    'create',
    'rest.catalog.gpus()',
  );

  async function action(id: string, name: PodAction, options?: CallOptions): Promise<Pod | undefined> {
    const ACTIONS = await podActions();
    if (!ACTIONS.includes(name)) throw new ValidationError('action', `must be one of ${ACTIONS.join(', ')}; got ${shown(name)}`);
    const call = {
      method: 'POST' as const,
      path: `${one(id)}/action`,
      route: 'POST /pods/{id}/action',
      body: { action: name },
      // Each action ends in a state, so a resend after a lost answer is allowed; a 409 to it is
      // checked against that state (see REACHED) before it is reported.
      idempotent: true,
      notFoundOnRetryMeansDone: name === 'terminate',
    };
    try {
      const result = await rest.core.requestJson<unknown>(rest.http(call, options));
      if (result === undefined) return undefined;
      if (!isRecord(result)) throw rest.core.wrongShape(rest.http(call, options), 'a Pod', result);
      return result as Pod;
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      // The pod, if it is now where the action leads (one GET).
      const reached = followedLostAnswer(err) ? REACHED[name] : undefined;
      const pod = reached && (await podNow(id, options));
      if (pod && reached!.includes(pod.status as unknown as string)) return pod;
      throw await withPodState(id, err, options);
    }
  }

  const get = async (id: string, options?: CallOptions) => rest.object<Pod>({ method: 'GET', path: one(id), route: 'GET /pods/{id}', idempotent: true }, options);
  /** The pod as one GET (not retried) finds it now; undefined when it cannot be read. */
  const podNow = (id: string, options?: CallOptions) => get(id, { ...options, maxRetries: 0 }).catch(() => undefined);

  /** The 409 again, with the pod's status and valid actions, from one GET of the pod. */
  async function withPodState(id: string, err: ConflictError, options?: CallOptions): Promise<ConflictError> {
    const pod = await podNow(id, options);
    if (!pod) return err;
    const status: unknown = pod.status;
    const actions: unknown = pod.actions;
    const validActions = Array.isArray(actions) ? actions.filter(isString) : undefined;
    const resourceStatus = isString(status) ? status : undefined;
    const now = resourceStatus ? ` (the pod is ${resourceStatus}; valid now: ${validActions?.join(', ') || 'none'})` : '';
    return new ConflictError(`${err.message}${now}`, {
      status: err.status,
      body: err.body,
      headers: err.headers,
      request: err.request,
      resourceStatus,
      validActions,
      cause: err,
    });
  }
  /** A 409 to an edit, rethrown with the pod's state. */
  const withState = (id: string, options?: CallOptions) => async (err: unknown) => {
    throw err instanceof ConflictError ? await withPodState(id, err, options) : err;
  };

  return {
    async create(input, options = {}) {
      const body = await checkPodCreate(input, MARKER_BYTES);
      const { markerLookup: _lookup, createMarker: _marker, ...callOptions } = options;
      // Every other check first: the catalog read is the first request, and part of the create's call.
      validateCallOptions(callOptions);
      const gpuId = body.gpu?.id;
      const before = typeof gpuId === 'string' ? (o: CallOptions) => gpuTypes.check('body.gpu.id', [gpuId], o.signal) : undefined;
      return createOnceLazy<Pod>(rest, { method: 'POST', path: '/pods', route: 'POST /pods', body }, options, { path: '/pods', key: 'pods', noun: 'pod' }, before);
    },
    list: (query, options) => pagedList<Pod>(rest, { path: '/pods', route: 'GET /pods', key: 'pods', query, maxLimit: PAGE_LIMIT }, options),
    get,
    async update(id, body, options) {
      const path = one(id);
      await checkBody('UpdatePodRequest', body);
      return rest.object<Pod>({ method: 'PATCH', path, route: 'PATCH /pods/{id}', body, idempotent: false }, options).catch(withState(id, options));
    },
    async delete(id, options) {
      const path = one(id);
      await rest.send({ method: 'DELETE', path, route: 'DELETE /pods/{id}', idempotent: true, notFoundOnRetryMeansDone: true }, options).catch(withState(id, options));
    },
    start: async (id, options) => (await action(id, 'start', options)) as Pod,
    stop: async (id, options) => (await action(id, 'stop', options)) as Pod,
    restart: async (id, options) => (await action(id, 'restart', options)) as Pod,
    async terminate(id, options) {
      await action(id, 'terminate', options);
    },
    action,
    logs: (id, options) => logStream(rest, { method: 'GET', path: `${one(id)}/logs`, route: 'GET /pods/{id}/logs' }, options),
    async exec(id, input, options) {
      const path = `${one(id)}/exec`;
      await checkBody('ExecPodRequest', input);
      const call = { method: 'POST' as const, path, route: 'POST /pods/{id}/exec', body: input, idempotent: false };
      const result = await rest.object<Record<string, unknown>>(call, options, 'object');
      if (!Number.isSafeInteger(result.exitCode) || !isString(result.stdout) || !isString(result.stderr)) {
        throw rest.core.wrongShape(rest.http(call, options), 'an object with an integer exitCode and string stdout and stderr', result);
      }
      return result as unknown as ExecPodResponse;
    },
  };
}

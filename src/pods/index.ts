// rp.pods above both APIs: validation, the create marker and the lookup after an ambiguous
// failure, waitUntilReady and the transport choice live here once; graphql-path.ts and
// rest-path.ts only speak their protocol.
import { NotFoundError, PodTerminalStateError, TimeoutError, ValidationError } from '../errors.js';
import type { GpuTypeCatalog } from '../gpu-types/catalog.js';
import type { EnvironmentVariableInput } from '../graphql/__generated__/operations.js';
import type { GraphQLCallOptions, GraphQLRequester } from '../graphql/graphql-client.js';
import { parsePodEnv } from '../graphql/pod-env.js';
import { createRestCatalogApi } from '../rest/catalog.js';
import { createRestPodsApi, sendPodCreate } from '../rest/pods.js';
import { createRestRequester } from '../rest/rest-request.js';
import { linkAbort } from '../transport/abort.js';
import { monotonicNow } from '../transport/clock.js';
import { CREATE_MARKER_ENV } from '../transport/create-marker.js';
import { createOnce } from '../transport/create-once-kit.js';
import type { HttpCore } from '../transport/http-core.js';
import { validateCallOptions } from '../transport/options.js';
import { pollWithBackoff } from '../transport/poll.js';
import type { TransportChoice, TransportPath } from '../transport/transport-choice.js';
import { tagTransport, transportOf } from '../transport/transport-tag.js';
import { requireId, shown } from '../validation.js';
import { createGraphQLPodsPath } from './graphql-path.js';
import { envWithMarker, isAmbiguousFailure, validateDeploy, validateDeployCpu, validateResume } from './pod-rules.js';
import type { RestPodsPath } from './rest-path.js';
import { isPodReady, TERMINAL_POD_STATUSES, type DeployCpuPodInput, type DeployPodInput, type Pod, type PodCreateCallOptions, type PodsApi } from './types.js';

export * from './types.js';

export interface PodsApiDeps {
  readonly graphql: GraphQLRequester;
  /** The core REST v2 calls go through (`restUrl`, Bearer auth, pacing under the `rest` bucket). */
  readonly core: HttpCore;
  /** The client's one transport choice. */
  readonly choice: TransportChoice;
  /** Checks GPU type ids before a GraphQL deploy. */
  readonly catalog: GpuTypeCatalog;
}

function describeLastState(pod: Pod | null | undefined): string {
  if (!pod) return 'unknown: no answer yet';
  if (pod.desiredStatus !== 'RUNNING') return pod.desiredStatus;
  return pod.runtime ? 'RUNNING, no port mapped yet' : 'RUNNING, container not up yet';
}

function tagAll<T>(value: T, path: TransportPath): T {
  if (Array.isArray(value)) for (const item of value) tagTransport(item, path);
  else tagTransport(value, path);
  return value;
}
const tagGraphQL = <T>(value: T): T => tagAll(value, 'graphql');

/** One call's two ways of doing one step. */
interface Paths<T> {
  graphql: () => Promise<T>;
  rest: (path: RestPodsPath) => Promise<T>;
}

export function createPodsApi({ graphql, core, choice, catalog }: PodsApiDeps): PodsApi {
  const gql = createGraphQLPodsPath(graphql);

  // Loaded on the first call that goes over REST v2, as the GraphQL runtime is on the first GraphQL call.
  let loadingRest: Promise<RestPodsPath> | undefined;
  const restPath = () =>
    (loadingRest ??= import('./rest-path.js').then((m) => {
      const rest = createRestRequester(core);
      return m.createRestPodsPath({ rest, pods: createRestPodsApi(rest), catalog: createRestCatalogApi(rest), sendPodCreate: (body, o) => sendPodCreate(rest, body, o) });
    }));

  /**
   * The steps of one call: each goes where the choice says, and once one step went over REST the
   * call stays there until it returns (a create and its marker lookup, a wait and its polls).
   */
  function session() {
    let onRest = false;
    return <T>(operation: string, paths: Paths<T>): Promise<T> => {
      const rest = async () => {
        onRest = true;
        return tagAll(await paths.rest(await restPath()), 'rest');
      };
      if (onRest) return rest();
      return choice.run('pods', operation, { graphql: () => paths.graphql().then(tagGraphQL), rest });
    };
  }
  type Step = ReturnType<typeof session>;

  const getIn = (step: Step, podId: string, options?: GraphQLCallOptions) =>
    step('get', { graphql: () => gql.get(podId, options), rest: (r) => r.get(podId, options) });
  const listIn = (step: Step, options?: GraphQLCallOptions) => step('list', { graphql: () => gql.list(options), rest: (r) => r.list(options) });
  const findIn = async (step: Step, marker: string, options?: GraphQLCallOptions) =>
    (await listIn(step, options)).find((pod) => parsePodEnv(pod.env)[CREATE_MARKER_ENV] === marker) ?? null;

  /**
   * A deploy under the client's one create-once rule (src/transport/create-once.ts), with one
   * marker whichever API carries it; its marker lookups go where the create went (one session).
   */
  function deployOnce(
    operation: string,
    input: DeployPodInput | DeployCpuPodInput,
    send: (step: Step, env: EnvironmentVariableInput[], sending: () => void, options: PodCreateCallOptions) => Promise<Pod | null>,
    options: PodCreateCallOptions | undefined,
  ): Promise<Pod> {
    const step = session();
    return createOnce<Pod>(
      {
        operation,
        noun: 'pod',
        send: (marker, sending, callOptions) => send(step, envWithMarker(input.env, marker), sending, callOptions),
        find: (marker, callOptions) => findIn(step, marker, { signal: callOptions.signal }),
        later: (marker) => `Check later with pods.findByMarker('${marker}') and terminate what it finds`,
        ambiguous: isAmbiguousFailure,
      },
      options,
      core.options.deadlineMs,
    );
  }

  /**
   * Why a pod that REST v2 reports failed stopped: its last system log line (REST v2's
   * lastStatusChange only states the status), else that statement.
   */
  async function reasonOf(pod: Pod, signal: AbortSignal | undefined): Promise<string | null> {
    if (transportOf(pod) !== 'rest') return pod.lastStatusChange;
    try {
      return (await (await restPath()).failureReason(pod.id, signal)) ?? pod.lastStatusChange;
    } catch {
      return pod.lastStatusChange;
    }
  }

  return {
    async deploy(input, options) {
      validateDeploy(input);
      // Checked before the catalog is read, so that nothing at all is sent with bad options.
      if (options) validateCallOptions(options);
      const ids = input.gpuTypeId ? [input.gpuTypeId] : (input.gpuTypeIdList ?? []).filter((id): id is string => !!id);
      return deployOnce(
        'DeployPod',
        input,
        (step, env, sending, callOptions) =>
          step('deploy', {
            graphql: async () => {
              await catalog.check(input.gpuTypeId ? 'input.gpuTypeId' : 'input.gpuTypeIdList', ids, callOptions.signal);
              // The catalog read met the retirement (it swallows its errors): no DeployPod to a retired API.
              const retired = choice.retirement();
              if (retired) throw retired;
              sending();
              return gql.deploy(input, env, callOptions);
            },
            rest: (r) => r.deploy(input, env, callOptions, sending),
          }),
        options,
      );
    },

    async deployCpu(input, options) {
      validateDeployCpu(input);
      if (options) validateCallOptions(options);
      return deployOnce(
        'DeployCpuPod',
        input,
        (step, env, sending, callOptions) =>
          step('deployCpu', {
            graphql: () => {
              sending();
              return gql.deployCpu(input, env, callOptions);
            },
            rest: (r) => r.deployCpu(input, env, callOptions, sending),
          }),
        options,
      );
    },

    async resume(input, options) {
      validateResume(input);
      const step = session();
      try {
        return await step('resume', { graphql: () => gql.resume(input, options), rest: (r) => r.resume(input, options) });
      } catch (err) {
        // The platform's generic failure may come after the pod started: if it runs, that is the answer.
        if (!isAmbiguousFailure(err)) throw err;
        const pod = await getIn(step, input.podId, { signal: options?.signal }).catch(() => null);
        if (pod?.desiredStatus === 'RUNNING') return pod;
        throw err;
      }
    },

    async stop(podId, options) {
      requireId('podId', podId);
      return session()('stop', { graphql: () => gql.stop(podId, options), rest: (r) => r.stop(podId, options) });
    },

    async terminate(podId, options) {
      requireId('podId', podId);
      if (options) validateCallOptions(options);
      await session()('terminate', { graphql: () => gql.terminate(podId, options), rest: (r) => r.terminate(podId, options) });
    },

    async get(podId, options) {
      requireId('podId', podId);
      return await getIn(session(), podId, options);
    },

    list: async (options) => listIn(session(), options),

    async findByMarker(marker, options) {
      requireId('marker', marker);
      return findIn(session(), marker, options);
    },

    async waitUntilReady(podId, options = {}) {
      requireId('podId', podId);
      const timeoutMs = options.timeoutMs ?? 600_000;
      if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) throw new ValidationError('timeoutMs', `must be a positive number of milliseconds, got ${shown(timeoutMs)}`);
      const started = monotonicNow();
      // Fires at the deadline (or when the caller aborts): no poll, retry or wait outlives it.
      const deadline = linkAbort(options.signal, timeoutMs);
      const step = session();
      let last: Pod | null | undefined;
      const notReady = () =>
        new TimeoutError(`pod ${podId} not ready after ${timeoutMs} ms (last status ${describeLastState(last)})`, { timeoutMs });
      const deadlinePassed = () => !options.signal?.aborted && (deadline.timedOut() || monotonicNow() - started >= timeoutMs);
      try {
        const ready = await pollWithBackoff<Pod | null, Pod | 'terminal'>({
          poll: async () => {
            if (deadlinePassed()) throw notReady();
            return getIn(step, podId, { signal: deadline.signal });
          },
          settle: (pod) => {
            if (!pod) throw new NotFoundError(`waitUntilReady: no pod ${podId}`, { status: 200 });
            last = pod;
            if (isPodReady(pod, options.requirePorts ?? true)) return pod;
            if (TERMINAL_POD_STATUSES.has(pod.desiredStatus)) return 'terminal';
            return undefined;
          },
          deadline: notReady,
          progress: (pod, progress) => options.onProgress?.({ pod: pod!, ...progress }),
          timeoutMs,
          intervalMs: options.pollIntervalMs ?? 2_000,
          maxIntervalMs: options.maxPollIntervalMs ?? 15_000,
          signal: deadline.signal,
          what: 'waitUntilReady',
        });
        if (ready !== 'terminal') return ready;
        const pod = last!;
        throw new PodTerminalStateError(podId, pod.desiredStatus, await reasonOf(pod, deadline.signal));
      } catch (err) {
        if (!(err instanceof PodTerminalStateError || err instanceof NotFoundError) && deadlinePassed()) throw notReady();
        throw err;
      } finally {
        deadline.dispose();
      }
    },
  };
}

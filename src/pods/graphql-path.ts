// rp.pods over GraphQL: the generated documents, and the checks of what they answer.
import { ConnectionError, NotFoundError, RateLimitError } from '../errors.js';
import {
  DeployCpuPodDocument,
  DeployPodDocument,
  MyPodsDocument,
  PodDocument,
  ResumePodDocument,
  StopPodDocument,
  TerminatePodDocument,
  type EnvironmentVariableInput,
} from '../graphql/__generated__/operations.js';
import { withDataCheck, type DataCheck, type GraphQLCallOptions, type GraphQLRequester } from '../graphql/graphql-client.js';
import { sleep } from '../transport/abort.js';
import { validateCallOptions } from '../transport/options.js';
import { backoffMs } from '../transport/retry.js';
import { isArrayOf, isRecord, isString } from '../transport/shape.js';
import { isAmbiguousFailure } from './pod-rules.js';
import type { DeployCpuPodInput, DeployPodInput, Pod, ResumePodInput, StoppedPod } from './types.js';

const isNullOrRecord = (value: unknown): value is Record<string, unknown> | null => value === null || isRecord(value);

/** What this module and its callers read of a pod: an id, a status, and lists where lists go. */
function isPod(value: unknown): value is Pod {
  if (!isRecord(value) || !isString(value.id) || !isString(value.desiredStatus)) return false;
  if (value.env != null && !Array.isArray(value.env)) return false;
  const runtime = value.runtime;
  if (runtime == null) return true;
  return isRecord(runtime) && (runtime.ports == null || isArrayOf(runtime.ports, isNullOrRecord));
}

const isPodOrNull = (value: unknown): value is Pod | null => value === null || isPod(value);

/**
 * `data[field]` must be a pod, or null when the platform says there is none. Missing (a GraphQL
 * server always answers a selected field) or of another shape, it is a ServerError.
 */
const podCheck = (field: string, operation: string): DataCheck => ({
  check: (data) => isPodOrNull(data[field]),
  expected: `\`${field}\` as a pod with an id and a desiredStatus, or null (${operation})`,
});
const POD_CHECKS = {
  pod: podCheck('pod', 'Pod'),
  deploy: podCheck('podFindAndDeployOnDemand', 'DeployPod'),
  deployCpu: podCheck('deployCpuPod', 'DeployCpuPod'),
  resume: podCheck('podResume', 'ResumePod'),
  stop: podCheck('podStop', 'StopPod'),
} as const;
const MY_PODS_CHECK: DataCheck = {
  check: (data) => {
    const myself = data.myself;
    if (myself === null) return true;
    return isRecord(myself) && (myself.pods === null || isArrayOf(myself.pods, isPodOrNull));
  },
  expected: '`myself.pods` as a list of pods with an id and a desiredStatus (MyPods)',
};

export interface GraphQLPodsPath {
  get(podId: string, options?: GraphQLCallOptions): Promise<Pod | null>;
  list(options?: GraphQLCallOptions): Promise<Pod[]>;
  deploy(input: DeployPodInput, env: EnvironmentVariableInput[], options?: GraphQLCallOptions): Promise<Pod | null>;
  deployCpu(input: DeployCpuPodInput, env: EnvironmentVariableInput[], options?: GraphQLCallOptions): Promise<Pod | null>;
  resume(input: ResumePodInput, options?: GraphQLCallOptions): Promise<Pod>;
  stop(podId: string, options?: GraphQLCallOptions): Promise<StoppedPod>;
  terminate(podId: string, options?: GraphQLCallOptions): Promise<void>;
}

export function createGraphQLPodsPath(graphql: GraphQLRequester): GraphQLPodsPath {
  return {
    get: (podId, options) => graphql.request(PodDocument, { input: { podId } }, withDataCheck(options, POD_CHECKS.pod)).then((data) => data.pod as Pod | null),
    async list(options) {
      const { myself } = await graphql.request(MyPodsDocument, {}, withDataCheck(options, MY_PODS_CHECK));
      return ((myself?.pods ?? []) as Array<Pod | null>).filter((p): p is Pod => p !== null);
    },
    async deploy(input, env, options) {
      const { podFindAndDeployOnDemand } = await graphql.request(DeployPodDocument, { input: { ...input, env } }, withDataCheck(options, POD_CHECKS.deploy));
      return podFindAndDeployOnDemand as Pod | null;
    },
    async deployCpu(input, env, options) {
      return (await graphql.request(DeployCpuPodDocument, { input: { ...input, env } }, withDataCheck(options, POD_CHECKS.deployCpu))).deployCpuPod as Pod | null;
    },
    async resume(input, options) {
      const resumed = (await graphql.request(ResumePodDocument, { input }, withDataCheck(options, POD_CHECKS.resume))).podResume as Pod | null;
      if (!resumed) throw new NotFoundError(`ResumePod: no pod ${input.podId}`, { status: 200 });
      return resumed;
    },
    async stop(podId, options) {
      const { podStop } = await graphql.request(StopPodDocument, { input: { podId } }, withDataCheck({ idempotent: true, ...options }, POD_CHECKS.stop));
      if (podStop === null) throw new NotFoundError(`StopPod: no pod ${podId}`, { status: 200 });
      return podStop;
    },
    async terminate(podId, options) {
      // The first attempt overrides maxRetries, so the caller's options are checked here.
      if (options) validateCallOptions(options);
      const variables = { input: { podId } };
      // One attempt first, so that a "not found" on a later attempt can be told apart: after an
      // attempt that may have reached the server, the pod being gone is that attempt's success.
      let mayHaveTerminated = false;
      try {
        await graphql.request(TerminatePodDocument, variables, { ...options, idempotent: true, maxRetries: 0 });
        return;
      } catch (err) {
        mayHaveTerminated = isAmbiguousFailure(err);
        const refusedUnsent = err instanceof RateLimitError || (err instanceof ConnectionError && err.notSent);
        // `maxRetries: 0` asks for one attempt: the caller settles the outcome.
        if ((!mayHaveTerminated && !refusedUnsent) || options?.maxRetries === 0) throw err;
      }
      await sleep(backoffMs(0), options?.signal);
      try {
        await graphql.request(TerminatePodDocument, variables, { idempotent: true, ...options });
      } catch (err) {
        if (mayHaveTerminated && err instanceof NotFoundError) return;
        throw err;
      }
    },
  };
}

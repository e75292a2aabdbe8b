import { NotFoundError, PodTerminalStateError, ServerError, TimeoutError, ValidationError } from '../errors.js';
import { pollWithBackoff } from '../transport/poll.js';
import { checkInteger, checkOneOf, checkPortsString, requireId } from '../validation.js';
import {
  DeployPodDocument,
  MyPodsDocument,
  PodDocument,
  ResumePodDocument,
  StopPodDocument,
  TerminatePodDocument,
  type EnvironmentVariableInput,
  type PodFieldsFragment,
  type PodFindAndDeployOnDemandInput,
  type PodResumeInput,
  type PodStatus,
  type StopPodMutation,
} from './__generated__/operations.js';
import type { GraphQLCallOptions, RunpodGraphQL } from './graphql-client.js';
import { toEnvironmentInput } from './pod-env.js';

/** A pod as this client selects it (the `PodFields` fragment). */
export type Pod = PodFieldsFragment;

/** Deploy input: the GraphQL input, with `env` also accepted as a plain `{ KEY: 'value' }` map. */
export interface DeployPodInput extends Omit<PodFindAndDeployOnDemandInput, 'env'> {
  env?: Readonly<Record<string, string>> | ReadonlyArray<EnvironmentVariableInput | null | undefined> | null | undefined;
}

export interface WaitForPodProgress {
  readonly pod: Pod;
  readonly attempt: number;
  readonly elapsedMs: number;
  /** Milliseconds until the next poll. */
  readonly nextPollMs: number;
}

export interface WaitUntilReadyOptions {
  /** Give up after this long. @default 600000 (10 minutes: large images take a while to pull) */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Called after every poll that found the pod not ready yet. */
  onProgress?: ((progress: WaitForPodProgress) => void) | undefined;
  /** First delay between polls; it grows 1.5× per poll up to `maxPollIntervalMs`. @default 1000 */
  pollIntervalMs?: number | undefined;
  /** @default 10000 */
  maxPollIntervalMs?: number | undefined;
  /**
   * Wait for a mapped port. Set false for a pod that exposes no ports: then a running container
   * (`runtime` present) is enough. @default true
   */
  requirePorts?: boolean | undefined;
}

/** States a pod does not leave by itself: waiting for readiness fails fast on them. */
export const TERMINAL_POD_STATUSES: ReadonlySet<PodStatus> = new Set<PodStatus>(['TERMINATED', 'DEAD', 'EXITED']);

/** True when the pod is RUNNING and its container is up with at least one port mapped (or just up, with `requirePorts: false`). */
export function isPodReady(pod: Pod, requirePorts = true): boolean {
  if (pod.desiredStatus !== 'RUNNING' || !pod.runtime) return false;
  return !requirePorts || (pod.runtime.ports ?? []).some((p) => p?.publicPort != null);
}

export interface PodsApi {
  /** Finds a machine and deploys a pod on it (`podFindAndDeployOnDemand`). Never sent twice automatically. */
  deploy(input: DeployPodInput, options?: GraphQLCallOptions): Promise<Pod>;
  /** Starts a stopped pod (`podResume`). It may come back with fewer GPUs if capacity changed. */
  resume(input: PodResumeInput, options?: GraphQLCallOptions): Promise<Pod>;
  /** Stops a pod: the GPU is released, `/workspace` is kept and still billed. Safe to retry. */
  stop(podId: string, options?: GraphQLCallOptions): Promise<NonNullable<StopPodMutation['podStop']>>;
  /** Terminates a pod: everything not on a network volume is deleted. Safe to retry. */
  terminate(podId: string, options?: GraphQLCallOptions): Promise<void>;
  /** One pod, or `null` when the account has no pod with that id. */
  get(podId: string, options?: GraphQLCallOptions): Promise<Pod | null>;
  /** Every pod of the account. */
  list(options?: GraphQLCallOptions): Promise<Pod[]>;
  /** Polls with backoff until {@link isPodReady}; fails fast on TERMINATED, DEAD or EXITED. */
  waitUntilReady(podId: string, options?: WaitUntilReadyOptions): Promise<Pod>;
}

function validateDeploy(input: DeployPodInput): void {
  if (input === null || typeof input !== 'object') throw new ValidationError('input', 'must be an object');
  if (input.computeType !== 'CPU') {
    checkInteger('input.gpuCount', input.gpuCount, 1);
    if (!input.gpuTypeId && !(input.gpuTypeIdList && input.gpuTypeIdList.length > 0)) {
      throw new ValidationError('input.gpuTypeId', 'name a GPU type (gpuTypeId or gpuTypeIdList); see gpuTypes.offers()');
    }
  }
  if (!input.imageName && !input.templateId) throw new ValidationError('input.imageName', 'give an imageName or a templateId');
  checkOneOf('input.cloudType', input.cloudType ?? undefined, ['SECURE', 'COMMUNITY', 'ALL']);
  checkOneOf('input.computeType', input.computeType ?? undefined, ['GPU', 'CPU']);
  checkPortsString('input.ports', input.ports);
  checkInteger('input.containerDiskInGb', input.containerDiskInGb, 0);
  checkInteger('input.volumeInGb', input.volumeInGb, 0);
}

export function createPodsApi(graphql: RunpodGraphQL): PodsApi {
  const get = async (podId: string, options?: GraphQLCallOptions) => {
    requireId('podId', podId);
    const data = await graphql.request(PodDocument, { input: { podId } }, options);
    return data.pod;
  };

  return {
    async deploy(input, options) {
      validateDeploy(input);
      const variables = { input: { ...input, env: input.env == null ? input.env : toEnvironmentInput(input.env) } };
      const data = await graphql.request(DeployPodDocument, variables, options);
      if (!data.podFindAndDeployOnDemand) throw new ServerError('DeployPod: the platform returned no pod and no error', { status: 200 });
      return data.podFindAndDeployOnDemand;
    },

    async resume(input, options) {
      requireId('input.podId', input?.podId);
      checkInteger('input.gpuCount', input.gpuCount, input.computeType === 'CPU' ? 0 : 1);
      const data = await graphql.request(ResumePodDocument, { input }, options);
      if (!data.podResume) throw new NotFoundError(`ResumePod: no pod ${input.podId}`, { status: 200 });
      return data.podResume;
    },

    async stop(podId, options) {
      requireId('podId', podId);
      const data = await graphql.request(StopPodDocument, { input: { podId } }, { idempotent: true, ...options });
      if (!data.podStop) throw new NotFoundError(`StopPod: no pod ${podId}`, { status: 200 });
      return data.podStop;
    },

    async terminate(podId, options) {
      requireId('podId', podId);
      await graphql.request(TerminatePodDocument, { input: { podId } }, { idempotent: true, ...options });
    },

    get,

    async list(options) {
      const data = await graphql.request(MyPodsDocument, {}, options);
      return (data.myself?.pods ?? []).filter((p): p is Pod => p !== null);
    },

    async waitUntilReady(podId, options = {}) {
      requireId('podId', podId);
      const timeoutMs = options.timeoutMs ?? 600_000;
      return pollWithBackoff<Pod | null, Pod>({
        poll: (remainingMs) => get(podId, { signal: options.signal, timeoutMs: Math.min(remainingMs, 60_000) }),
        settle: (pod) => {
          if (!pod) throw new NotFoundError(`waitUntilReady: no pod ${podId}`, { status: 200 });
          if (isPodReady(pod, options.requirePorts ?? true)) return pod;
          if (TERMINAL_POD_STATUSES.has(pod.desiredStatus)) throw new PodTerminalStateError(podId, pod.desiredStatus);
          return undefined;
        },
        deadline: (pod) => new TimeoutError(`pod ${podId} was not ready after ${timeoutMs} ms (last status ${pod?.desiredStatus})`, { timeoutMs }),
        progress: (pod, progress) => options.onProgress?.({ pod: pod!, ...progress }),
        timeoutMs,
        intervalMs: options.pollIntervalMs ?? 1_000,
        maxIntervalMs: options.maxPollIntervalMs ?? 10_000,
        signal: options.signal,
        what: 'waitUntilReady',
      });
    },
  };
}

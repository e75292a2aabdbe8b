import {
  AbortError,
  ConnectionError,
  GraphQLResponseError,
  NotFoundError,
  PodTerminalStateError,
  PossiblyCreatedError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../errors.js';
import { linkAbort, sleep } from '../transport/abort.js';
import { validateCallOptions } from '../transport/options.js';
import { CREATE_MARKER_ENV, newCreateMarker, type MarkerLookupOptions } from '../transport/create-marker.js';
import { pollWithBackoff } from '../transport/poll.js';
import { backoffMs } from '../transport/retry.js';
import { isArrayOf, isRecord, isString } from '../transport/shape.js';
import { checkInteger, checkOneOf, checkPortsString, requireId, shown } from '../validation.js';
import {
  DeployCpuPodDocument,
  DeployPodDocument,
  MyPodsDocument,
  PodDocument,
  ResumePodDocument,
  StopPodDocument,
  TerminatePodDocument,
  type CloudTypeEnum,
  type EnvironmentVariableInput,
  type PodFieldsFragment,
  type PodFindAndDeployOnDemandInput,
  type PodResumeInput,
  type PodStatus,
  type StopPodMutation,
} from './__generated__/operations.js';
import type { GpuTypeCatalog } from '../gpu-types/catalog.js';
import { withDataCheck, type DataCheck, type GraphQLCallOptions, type RunpodGraphQL } from './graphql-client.js';
import { isGenericFailure } from './graphql-errors.js';
import { parsePodEnv, toEnvironmentInput } from './pod-env.js';

/** A pod as this client selects it (the `PodFields` fragment). */
export type Pod = PodFieldsFragment;

/** `env` as a plain `{ KEY: 'value' }` map or the GraphQL `[{key, value}]` form. */
export type PodEnvInput = Readonly<Record<string, string>> | ReadonlyArray<EnvironmentVariableInput | null | undefined>;

/** Deploy input: the GraphQL input, with `env` also accepted as a plain `{ KEY: 'value' }` map. */
export interface DeployPodInput extends Omit<PodFindAndDeployOnDemandInput, 'env' | 'computeType'> {
  env?: PodEnvInput | null | undefined;
  /** GPU only: CPU pods are deployed with `pods.deployCpu`. */
  computeType?: 'GPU' | null | undefined;
}

/**
 * Input of `pods.deployCpu` (`deployCpuPod`). The platform types this input as an opaque scalar;
 * these are the fields its own SDK sends.
 */
export interface DeployCpuPodInput {
  /** The CPU instance type, e.g. `cpu3c-2-4` (generation 3, compute-optimised, 2 vCPU, 4 GB). */
  instanceId: string;
  name?: string | undefined;
  imageName?: string | undefined;
  templateId?: string | undefined;
  cloudType?: CloudTypeEnum | undefined;
  containerDiskInGb?: number | undefined;
  volumeInGb?: number | undefined;
  volumeMountPath?: string | undefined;
  networkVolumeId?: string | undefined;
  dataCenterId?: string | undefined;
  /** `8888/http,22/tcp` */
  ports?: string | undefined;
  env?: PodEnvInput | undefined;
  dockerArgs?: string | undefined;
  startSsh?: boolean | undefined;
}

/**
 * Resume input. `gpuCount: 0` starts the pod without GPUs (to reach its disk when the host's GPUs
 * are taken); it never happens unless asked. There is no `allowedCudaVersions`: the platform
 * refuses it on resume; deploy a new pod with `allowedCudaVersions` on the same network volume.
 */
export type ResumePodInput = PodResumeInput;

export interface WaitForPodProgress {
  readonly pod: Pod;
  readonly attempt: number;
  readonly elapsedMs: number;
  /** Milliseconds until the next poll. */
  readonly nextPollMs: number;
}

export interface WaitUntilReadyOptions {
  /** Give up after this long; no poll runs past it. @default 600000 (10 minutes: large images take a while to pull) */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Called after every poll that found the pod not ready yet. */
  onProgress?: ((progress: WaitForPodProgress) => void) | undefined;
  /** First delay between polls; it grows 1.5× per poll up to `maxPollIntervalMs`. @default 2000 */
  pollIntervalMs?: number | undefined;
  /** @default 15000 (GraphQL is rate-limited; every poll counts) */
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

/** Options of `deploy` and `deployCpu`. */
export interface PodCreateCallOptions extends GraphQLCallOptions {
  /**
   * After an ambiguous failure the pods are listed to find the one carrying this create's marker.
   * @default { attempts: 3, intervalMs: 1500 }
   */
  markerLookup?: MarkerLookupOptions | undefined;
}

export interface PodsApi {
  /**
   * Finds a machine and deploys a GPU pod on it (`podFindAndDeployOnDemand`). Never sent twice.
   * After an ambiguous failure the pod is looked up by its create marker and returned; when that
   * cannot settle it, a PossiblyCreatedError carries the marker.
   */
  deploy(input: DeployPodInput, options?: PodCreateCallOptions): Promise<Pod>;
  /** Deploys a CPU pod (`deployCpuPod`), with the same create-marker guarantee as `deploy`. */
  deployCpu(input: DeployCpuPodInput, options?: PodCreateCallOptions): Promise<Pod>;
  /**
   * Starts a stopped pod on its host (`podResume`). A host whose GPUs were taken refuses with
   * CapacityUnavailableError; `gpuCount: 0` starts it without GPUs.
   */
  resume(input: ResumePodInput, options?: GraphQLCallOptions): Promise<Pod>;
  /** Stops a pod: the GPU is released, `/workspace` is kept and still billed. Safe to retry. */
  stop(podId: string, options?: GraphQLCallOptions): Promise<NonNullable<StopPodMutation['podStop']>>;
  /** Terminates a pod: everything not on a network volume is deleted. Safe to retry. */
  terminate(podId: string, options?: GraphQLCallOptions): Promise<void>;
  /** One pod, or `null` when the account has no pod with that id. */
  get(podId: string, options?: GraphQLCallOptions): Promise<Pod | null>;
  /** Every pod of the account. */
  list(options?: GraphQLCallOptions): Promise<Pod[]>;
  /** The pod a create carried `marker` into (see PossiblyCreatedError), or `null`. */
  findByMarker(marker: string, options?: GraphQLCallOptions): Promise<Pod | null>;
  /** Polls with backoff until {@link isPodReady}; fails fast on TERMINATED, DEAD or EXITED. */
  waitUntilReady(podId: string, options?: WaitUntilReadyOptions): Promise<Pod>;
}

/** When the pod is looked up after an ambiguous create failure: bounded, and spread out. */
const DEFAULT_MARKER_LOOKUP = { attempts: 3, intervalMs: 1_500 } as const;

function validateCommon(input: { imageName?: string | null | undefined; templateId?: string | null | undefined; cloudType?: unknown; ports?: unknown; containerDiskInGb?: unknown; volumeInGb?: unknown; env?: unknown }): void {
  if (!input.imageName && !input.templateId) throw new ValidationError('input.imageName', 'give an imageName or a templateId');
  // Checked before anything is sent (the GPU type catalog is read first).
  if (input.env != null) toEnvironmentInput(input.env as PodEnvInput);
  checkOneOf('input.cloudType', (input.cloudType as string | null | undefined) ?? undefined, ['SECURE', 'COMMUNITY', 'ALL']);
  checkPortsString('input.ports', input.ports);
  checkInteger('input.containerDiskInGb', input.containerDiskInGb, 0);
  checkInteger('input.volumeInGb', input.volumeInGb, 0);
}

function validateDeploy(input: DeployPodInput): void {
  if (input === null || typeof input !== 'object') throw new ValidationError('input', 'must be an object');
  if ((input.computeType as string | null | undefined) === 'CPU') {
    throw new ValidationError('input.computeType', 'CPU pods are deployed with pods.deployCpu({ instanceId, … }) (deployCpuPod); podFindAndDeployOnDemand needs GPUs');
  }
  checkOneOf('input.computeType', input.computeType ?? undefined, ['GPU']);
  checkInteger('input.gpuCount', input.gpuCount, 1);
  if (!input.gpuTypeId && !(input.gpuTypeIdList && input.gpuTypeIdList.length > 0)) {
    throw new ValidationError('input.gpuTypeId', 'name a GPU type (gpuTypeId or gpuTypeIdList); see gpuTypes.offers()');
  }
  validateCommon(input);
}

function validateDeployCpu(input: DeployCpuPodInput): void {
  if (input === null || typeof input !== 'object') throw new ValidationError('input', 'must be an object');
  requireId('input.instanceId', input.instanceId);
  validateCommon(input);
}

/** The env to send: the caller's, plus this create's marker. */
function envWithMarker(env: PodEnvInput | null | undefined, marker: string): EnvironmentVariableInput[] {
  const given = env == null ? [] : toEnvironmentInput(env).filter((e) => e.key !== CREATE_MARKER_ENV);
  return [...given, { key: CREATE_MARKER_ENV, value: marker }];
}

/** A failure after which the create may or may not have happened. */
function isAmbiguousFailure(err: unknown): boolean {
  if (err instanceof GraphQLResponseError) return isGenericFailure(err.errors);
  if (err instanceof ServerError || err instanceof TimeoutError) return true;
  return err instanceof ConnectionError && !err.notSent;
}

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

function describeLastState(pod: Pod | null | undefined): string {
  if (!pod) return 'unknown: no answer yet';
  if (pod.desiredStatus !== 'RUNNING') return pod.desiredStatus;
  return pod.runtime ? 'RUNNING, no port mapped yet' : 'RUNNING, container not up yet';
}

export function createPodsApi(graphql: RunpodGraphQL, catalog: GpuTypeCatalog): PodsApi {

  const get = async (podId: string, options?: GraphQLCallOptions) => {
    requireId('podId', podId);
    return (await graphql.request(PodDocument, { input: { podId } }, withDataCheck(options, POD_CHECKS.pod))).pod as Pod | null;
  };

  const list = async (options?: GraphQLCallOptions) => {
    const { myself } = await graphql.request(MyPodsDocument, {}, withDataCheck(options, MY_PODS_CHECK));
    return ((myself?.pods ?? []) as Array<Pod | null>).filter((p): p is Pod => p !== null);
  };

  const findByMarker = async (marker: string, options?: GraphQLCallOptions) => {
    requireId('marker', marker);
    return (await list(options)).find((pod) => parsePodEnv(pod.env)[CREATE_MARKER_ENV] === marker) ?? null;
  };

  /**
   * Sends a create once. After an ambiguous failure, looks the pod up by its marker (a bounded
   * number of times, through the core and so paced) and returns it: one call, one pod.
   */
  async function createOnce(operation: string, env: PodEnvInput | null | undefined, send: (env: EnvironmentVariableInput[]) => Promise<Pod | null>, options: PodCreateCallOptions | undefined): Promise<Pod> {
    const attempts = Math.max(1, options?.markerLookup?.attempts ?? DEFAULT_MARKER_LOOKUP.attempts);
    const intervalMs = options?.markerLookup?.intervalMs ?? DEFAULT_MARKER_LOOKUP.intervalMs;
    const marker = newCreateMarker();
    let failure: unknown;
    try {
      const pod = await send(envWithMarker(env, marker));
      if (pod) return pod;
      failure = new ServerError(`${operation}: the platform returned no pod and no error`, { status: 200 });
    } catch (err) {
      if (!isAmbiguousFailure(err)) throw err;
      failure = err;
    }
    let lookups = 0;
    let lookupFailure: unknown;
    for (let n = 0; n < attempts; n++) {
      try {
        if (n > 0) await sleep(intervalMs, options?.signal);
        lookups++;
        const pod = await findByMarker(marker, { signal: options?.signal });
        if (pod) return pod;
      } catch (err) {
        lookupFailure = err;
        if (err instanceof AbortError) break;
      }
    }
    const why = failure instanceof Error ? failure.message : String(failure);
    const lookedUp = lookupFailure ? `; looking it up failed too (${(lookupFailure as Error).message})` : '';
    throw new PossiblyCreatedError(
      `${operation} may have created a pod: ${why}. ${lookups} lookup(s) by create marker found none${lookedUp}. ` +
        `Check later with pods.findByMarker('${marker}') and terminate what it finds`,
      { createMarker: marker, cause: failure, request: (failure as { request?: PossiblyCreatedError['request'] }).request },
    );
  }

  async function terminate(podId: string, options?: GraphQLCallOptions): Promise<void> {
    requireId('podId', podId);
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
  }

  return {
    async deploy(input, options) {
      validateDeploy(input);
      // Checked before the catalog is read, so that nothing at all is sent with bad options.
      if (options) validateCallOptions(options);
      const ids = input.gpuTypeId ? [input.gpuTypeId] : (input.gpuTypeIdList ?? []).filter((id): id is string => !!id);
      await catalog.check(input.gpuTypeId ? 'input.gpuTypeId' : 'input.gpuTypeIdList', ids, options?.signal);
      return createOnce(
        'DeployPod',
        input.env,
        async (env) => (await graphql.request(DeployPodDocument, { input: { ...input, env } }, withDataCheck(options, POD_CHECKS.deploy))).podFindAndDeployOnDemand as Pod | null,
        options,
      );
    },

    async deployCpu(input, options) {
      validateDeployCpu(input);
      return createOnce(
        'DeployCpuPod',
        input.env,
        async (env) => (await graphql.request(DeployCpuPodDocument, { input: { ...input, env } }, withDataCheck(options, POD_CHECKS.deployCpu))).deployCpuPod as Pod | null,
        options,
      );
    },

    async resume(input, options) {
      requireId('input.podId', input?.podId);
      if ('allowedCudaVersions' in input) {
        throw new ValidationError(
          'input.allowedCudaVersions',
          'podResume does not take it (the platform answers HTTP 400); for a host with a compatible CUDA, deploy a new pod with allowedCudaVersions on the same network volume',
        );
      }
      checkInteger('input.gpuCount', input.gpuCount, 0);
      let resumed: Pod | null;
      try {
        resumed = (await graphql.request(ResumePodDocument, { input }, withDataCheck(options, POD_CHECKS.resume))).podResume as Pod | null;
      } catch (err) {
        // The platform's generic failure may come after the pod started: if it runs, that is the answer.
        if (!isAmbiguousFailure(err)) throw err;
        const pod = await get(input.podId, { signal: options?.signal }).catch(() => null);
        if (pod?.desiredStatus === 'RUNNING') return pod;
        throw err;
      }
      if (!resumed) throw new NotFoundError(`ResumePod: no pod ${input.podId}`, { status: 200 });
      return resumed;
    },

    async stop(podId, options) {
      requireId('podId', podId);
      const { podStop } = await graphql.request(StopPodDocument, { input: { podId } }, withDataCheck({ idempotent: true, ...options }, POD_CHECKS.stop));
      if (podStop === null) throw new NotFoundError(`StopPod: no pod ${podId}`, { status: 200 });
      return podStop;
    },

    terminate,
    get,
    list,
    findByMarker,

    async waitUntilReady(podId, options = {}) {
      requireId('podId', podId);
      const timeoutMs = options.timeoutMs ?? 600_000;
      if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) throw new ValidationError('timeoutMs', `must be a positive number of milliseconds, got ${shown(timeoutMs)}`);
      const started = Date.now();
      // Fires at the deadline (or when the caller aborts): no poll, retry or wait outlives it.
      const deadline = linkAbort(options.signal, timeoutMs);
      let last: Pod | null | undefined;
      const notReady = () =>
        new TimeoutError(`pod ${podId} not ready after ${timeoutMs} ms (last status ${describeLastState(last)})`, { timeoutMs });
      const deadlinePassed = () => !options.signal?.aborted && (deadline.timedOut() || Date.now() - started >= timeoutMs);
      try {
        return await pollWithBackoff<Pod | null, Pod>({
          poll: async () => {
            if (deadlinePassed()) throw notReady();
            return get(podId, { signal: deadline.signal });
          },
          settle: (pod) => {
            if (!pod) throw new NotFoundError(`waitUntilReady: no pod ${podId}`, { status: 200 });
            last = pod;
            if (isPodReady(pod, options.requirePorts ?? true)) return pod;
            if (TERMINAL_POD_STATUSES.has(pod.desiredStatus)) throw new PodTerminalStateError(podId, pod.desiredStatus, pod.lastStatusChange);
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
      } catch (err) {
        if (!(err instanceof PodTerminalStateError || err instanceof NotFoundError) && deadlinePassed()) throw notReady();
        throw err;
      } finally {
        deadline.dispose();
      }
    },
  };
}

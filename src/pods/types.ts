import type {
  DeployCpuPodInput as CpuPodInputFields,
  EnvironmentVariableInput,
  PodFieldsFragment,
  PodFindAndDeployOnDemandInput,
  PodResumeInput,
  PodStatus,
  StopPodMutation,
} from '../graphql/__generated__/operations.js';
import type { GraphQLCallOptions } from '../graphql/graphql-client.js';
import type { MarkerLookupOptions } from '../transport/create-marker.js';

/** A pod as this client selects it (the `PodFields` fragment), on either API. */
export type Pod = PodFieldsFragment;

/** `env` as a plain `{ KEY: 'value' }` map or the GraphQL `[{key, value}]` form. */
export type PodEnvInput = Readonly<Record<string, string>> | ReadonlyArray<EnvironmentVariableInput | null | undefined>;

type DeployPodFields = Omit<PodFindAndDeployOnDemandInput, 'env' | 'computeType' | 'gpuTypeId' | 'gpuTypeIdList' | 'imageName' | 'templateId'> & {
  env?: PodEnvInput | null | undefined;
  /** GPU only: CPU pods are deployed with `pods.deployCpu`. */
  computeType?: 'GPU' | null | undefined;
};

/** Which GPU: one type, or a list tried in turn. */
type DeployPodGpu =
  | { gpuTypeId: string; gpuTypeIdList?: Array<string | null | undefined> | null | undefined }
  | { gpuTypeId?: string | null | undefined; gpuTypeIdList: Array<string | null | undefined> };

/** What runs: an image, or a template (which brings its image). */
type DeployPodImage = { imageName: string; templateId?: string | null | undefined } | { imageName?: string | null | undefined; templateId: string };

/**
 * Deploy input: the GraphQL input, with `env` also accepted as a plain `{ KEY: 'value' }` map. It
 * needs a GPU type (`gpuTypeId` or `gpuTypeIdList`) and an `imageName` or a `templateId`.
 */
export type DeployPodInput = DeployPodFields & DeployPodGpu & DeployPodImage;

/**
 * Input of `pods.deployCpu` (`deployCpuPod`): the schema's `deployCpuPodInput`, with `env` also as
 * a plain record. `instanceId` is the CPU instance type, e.g. `cpu3c-2-4` (generation 3,
 * compute-optimised, 2 vCPU, 4 GB). CPU pods take no volume of their own (`volumeInGb`): mount a
 * network volume.
 */
export type DeployCpuPodInput = Omit<CpuPodInputFields, 'env'> & {
  env?: PodEnvInput | null | undefined;
};

/**
 * Resume input. `gpuCount: 0` starts the pod without GPUs (to reach its disk when the host's GPUs
 * are taken); it never happens unless asked. There is no `allowedCudaVersions`: the platform
 * refuses it on resume; deploy a new pod with `allowedCudaVersions` on the same network volume.
 */
export type ResumePodInput = PodResumeInput;

export interface WaitForPodProgress {
  readonly pod: Pod;
  readonly attempt: number;
  /** Whole milliseconds since the wait began. */
  readonly elapsedMs: number;
  /** Whole milliseconds until the next poll. */
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
   * @default { attempts: 3, intervalMs: 2000 }
   */
  markerLookup?: MarkerLookupOptions | undefined;
  /**
   * The marker this create carries (8 to 128 letters, digits, `_` or `-`). By default a fresh
   * random one. Give your own to record it before the request leaves, so that a process stopped
   * mid-create can still find the pod later with `pods.findByMarker` (the CLI prints it on a
   * signal during `pods deploy`). Use a new one for every create.
   */
  createMarker?: string | undefined;
}

/** What `pods.stop` returns. */
export type StoppedPod = NonNullable<StopPodMutation['podStop']>;

export interface PodsApi {
  /**
   * Finds a machine and deploys a GPU pod on it (`podFindAndDeployOnDemand`, or `POST /v2/pods`).
   * Never sent twice. After an ambiguous failure the pod is looked up by its create marker and
   * returned; when that cannot settle it, a PossiblyCreatedError carries the marker.
   */
  deploy(input: DeployPodInput, options?: PodCreateCallOptions): Promise<Pod>;
  /** Deploys a CPU pod (`deployCpuPod`), with the same create-marker guarantee as `deploy`. */
  deployCpu(input: DeployCpuPodInput, options?: PodCreateCallOptions): Promise<Pod>;
  /**
   * Starts a stopped pod on its host (`podResume`). A host whose GPUs were taken refuses with
   * CapacityUnavailableError; `gpuCount: 0` starts it without GPUs (GraphQL only).
   */
  resume(input: ResumePodInput, options?: GraphQLCallOptions): Promise<Pod>;
  /** Stops a pod: the GPU is released, `/workspace` is kept and still billed. Safe to retry. */
  stop(podId: string, options?: GraphQLCallOptions): Promise<StoppedPod>;
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

import {
  compareCuda,
  DEFAULT_GPU_TYPES,
  memoryPerGpuInGb,
  vcpuPerGpu,
  DEFAULT_HOSTS,
  MS_PER_HOUR,
  MS_PER_MONTH,
  NETWORK_VOLUME_PRICE,
  requiredCudaVersion,
  VOLUME_PRICE_RUNNING,
  VOLUME_PRICE_STOPPED,
  type GpuTypeSpec,
  type HostSpec,
} from './catalog.js';
import type { EmulatorClock } from './clock.js';
import { Lifetime } from './lifetime.js';
import { badRequest, EmulatorHttpError, HostBusyError, NoCapacityError, notFound } from './errors.js';
import { newId } from './ids.js';
import { templateFor, type EmulatedTemplate } from './public-templates.js';

export type { EmulatedTemplate };

export type EmulatedPodStatus = 'RUNNING' | 'EXITED' | 'TERMINATED';

/** One charge interval. Open while `to` is undefined. */
export interface BillingSegment {
  kind: 'gpu' | 'volume' | 'network-volume';
  podId?: string;
  networkVolumeId?: string;
  gpuTypeId?: string;
  /** USD per hour. */
  ratePerHour: number;
  /** GB billed, for storage segments. */
  gb?: number;
  from: number;
  to?: number;
  /**
   * The sum of older closed segments in one hour, of one kind and GPU type (see
   * {@link MAX_CLOSED_SEGMENTS}): no pod or volume of its own, `from` the hour's start, 1 ms long.
   */
  folded?: true;
}

/**
 * Closed billing segments an account keeps one by one (one per pod start, stop or resize). Past it,
 * the oldest half are folded into one segment per hour, kind and GPU type: the totals (`/billing`,
 * by GPU type) stay exact, and rows by pod, volume or cluster no longer show the folded ones. An
 * emulator that starts and ends pods for weeks then keeps a bill that grows by the hour, not by the pod.
 */
export const MAX_CLOSED_SEGMENTS = 10_000;

/** Lines kept per pod, newest last: the most `GET /v2/pods/{id}/logs?tail=` can ask for. */
export const MAX_POD_LOG_LINES = 5_000;

export interface EndpointCharge {
  endpointId: string;
  /** Usage of a public endpoint, billed under `/v2/billing/endpoints`. */
  public?: boolean | undefined;
  gpuTypeId: string;
  podId: string;
  amount: number;
  timeBilledMs: number;
  at: number;
}

export interface EmulatedPod {
  id: string;
  name: string;
  imageName: string;
  env: Record<string, string>;
  ports: string[];
  gpuTypeId: string;
  /** GPUs asked for. */
  requestedGpuCount: number;
  /** GPUs held now: 0 while stopped, and possibly 0 after a start when capacity changed. */
  gpuCount: number;
  computeType: 'GPU' | 'CPU';
  hostId: string;
  containerDiskInGb: number;
  volumeInGb: number;
  volumeMountPath: string;
  networkVolumeId?: string | undefined;
  templateId?: string | undefined;
  dockerArgs?: string | undefined;
  dockerEntrypoint?: string[] | undefined;
  dockerStartCmd?: string[] | undefined;
  containerRegistryAuthId?: string | undefined;
  allowedCudaVersions?: string[] | undefined;
  desiredStatus: EmulatedPodStatus;
  createdAt: number;
  lastStartedAt: number;
  lastStatusChange: string;
  /** Set when the container cannot be created on its host (CUDA too old); it exits at start-up. */
  startFailure?: string | undefined;
  /** Files on the container disk: cleared on stop, reset and update. */
  containerDisk: Map<string, string>;
  /** Files under the volume mount when no network volume is attached. */
  volumeDisk: Map<string, string>;
  /** What the emulator itself logs for the pod (REST v2 logs); lines may be dated ahead, to when start-up ends. */
  logs?: PodLogLine[] | undefined;
}

export interface PodLogLine {
  ts: number;
  /** Orders lines with the same `ts`. */
  seq: number;
  source: 'container' | 'system';
  line: string;
}

export interface EmulatedNetworkVolume {
  id: string;
  name: string;
  size: number;
  dataCenterId: string;
  files: Map<string, string>;
}

export interface EmulatedRegistryAuth {
  id: string;
  name: string;
  username: string;
  password: string;
}

export interface EmulatedEndpoint {
  id: string;
  name: string;
  templateId: string;
  gpuTypeIds: string[];
  gpuCount: number;
  workersMin: number;
  workersMax: number;
  idleTimeout: number;
  executionTimeoutMs?: number | undefined;
  scalerType: string;
  scalerValue: number;
  computeType: string;
  createdAt: number;
  /** The registered handler this endpoint runs. */
  handler: string;
  /** The emulator's own setting: this endpoint's cold start, whatever the emulator's default and `flashboot` say. */
  coldStartMs?: number | undefined;
  /** A public endpoint (a handler reachable by its name from any account): owned by no account, billed as public. */
  public?: boolean | undefined;
  [field: string]: unknown;
}

/** What an endpoint gets for every setting its creator leaves out. */
export const ENDPOINT_DEFAULTS = {
  gpuTypeIds: ['NVIDIA RTX A4000'],
  gpuCount: 1,
  workersMin: 0,
  workersMax: 3,
  idleTimeout: 5,
  scalerType: 'QUEUE_DELAY',
  scalerValue: 4,
  computeType: 'GPU',
} as const satisfies Partial<EmulatedEndpoint>;

export interface Account {
  id: string;
  apiKey: string;
  pods: Map<string, EmulatedPod>;
  templates: Map<string, EmulatedTemplate>;
  networkVolumes: Map<string, EmulatedNetworkVolume>;
  registryAuths: Map<string, EmulatedRegistryAuth>;
  endpoints: Map<string, EmulatedEndpoint>;
  segments: BillingSegment[];
  endpointCharges: EndpointCharge[];
}

/** Everything a deploy needs, whichever interface it came through. */
export interface DeployRequest {
  name?: string | undefined;
  imageName?: string | undefined;
  templateId?: string | undefined;
  gpuTypeIds: string[];
  gpuCount?: number | undefined;
  computeType?: string | undefined;
  /** SECURE, COMMUNITY, or ALL/undefined for either. */
  cloudType?: string | undefined;
  dataCenterIds?: string[] | undefined;
  allowedCudaVersions?: string[] | undefined;
  /** Placement filters on the share each GPU brings (REST v2's per-GPU minimums; GraphQL's totals over the count). */
  minVcpuPerGpu?: number | undefined;
  minMemoryPerGpuInGb?: number | undefined;
  containerDiskInGb?: number | null | undefined;
  volumeInGb?: number | null | undefined;
  volumeMountPath?: string | undefined;
  networkVolumeId?: string | undefined;
  env?: Record<string, string> | undefined;
  ports?: string[] | undefined;
  dockerArgs?: string | undefined;
  dockerEntrypoint?: string[] | undefined;
  dockerStartCmd?: string[] | undefined;
  containerRegistryAuthId?: string | undefined;
}

export interface PodEdit {
  name?: string | undefined;
  imageName?: string | undefined;
  containerDiskInGb?: number | null | undefined;
  volumeInGb?: number | null | undefined;
  volumeMountPath?: string | undefined;
  env?: Record<string, string> | undefined;
  ports?: string[] | undefined;
  dockerEntrypoint?: string[] | undefined;
  dockerStartCmd?: string[] | undefined;
  containerRegistryAuthId?: string | undefined;
}

export interface StockInfo {
  price: number | null;
  stockStatus: 'High' | 'Medium' | 'Low' | null;
  availableGpuCounts: number[];
  maxFreeOnOneHost: number;
}

export interface PlatformOptions {
  clock: EmulatorClock;
  gpuTypes?: GpuTypeSpec[] | undefined;
  hosts?: HostSpec[] | undefined;
  /** How long a container takes to start, on the emulator clock. @default 2000 */
  podStartupMs?: number | undefined;
  /** What `dispose()` ends: the requests and streams still held. @default a fresh one */
  lifetime?: Lifetime | undefined;
}

const CPU_HOST: HostSpec = { id: 'host-cpu', gpuTypeId: 'CPU', gpuTotal: 0, cudaVersion: '0.0', dataCenterId: 'EU-RO-1', secureCloud: true };
const CPU_PRICE_PER_HOUR = 0.06;

/** The platform's rules over one shared state: every interface (GraphQL, REST) goes through here. */
export class Platform {
  readonly clock: EmulatorClock;
  readonly gpuTypes: GpuTypeSpec[];
  readonly hosts: HostSpec[];
  readonly podStartupMs: number;
  readonly accounts = new Map<string, Account>();
  /** The held requests and streams (log streams, load-balanced holds), ended by `dispose()`. */
  readonly lifetime: Lifetime;

  constructor(options: PlatformOptions) {
    this.clock = options.clock;
    this.lifetime = options.lifetime ?? new Lifetime();
    this.gpuTypes = options.gpuTypes ?? DEFAULT_GPU_TYPES;
    this.hosts = options.hosts ?? DEFAULT_HOSTS;
    this.podStartupMs = options.podStartupMs ?? 2_000;
  }

  addAccount(apiKey: string): Account {
    const existing = this.accountByKey(apiKey);
    if (existing) return existing;
    const account: Account = {
      id: `user_${newId(10)}`,
      apiKey,
      pods: new Map(),
      templates: new Map(),
      networkVolumes: new Map(),
      registryAuths: new Map(),
      endpoints: new Map(),
      segments: [],
      endpointCharges: [],
    };
    this.accounts.set(account.id, account);
    return account;
  }

  accountByKey(apiKey: string | null | undefined): Account | undefined {
    if (!apiKey) return undefined;
    for (const account of this.accounts.values()) if (account.apiKey === apiKey) return account;
    return undefined;
  }

  // ---- capacity -------------------------------------------------------------------------------

  private gpuType(id: string): GpuTypeSpec | undefined {
    return this.gpuTypes.find((t) => t.id === id);
  }

  host(id: string): HostSpec {
    if (id === CPU_HOST.id) return CPU_HOST;
    const host = this.hosts.find((h) => h.id === id);
    if (!host) throw new EmulatorHttpError(500, `unknown host ${id}`);
    return host;
  }

  freeGpus(hostId: string): number {
    let used = 0;
    for (const account of this.accounts.values()) {
      for (const pod of account.pods.values()) if (pod.hostId === hostId && pod.desiredStatus === 'RUNNING') used += pod.gpuCount;
    }
    return this.host(hostId).gpuTotal - used;
  }

  pricePerGpu(host: HostSpec): number {
    const type = this.gpuType(host.gpuTypeId);
    if (!type) return 0;
    return host.secureCloud ? type.securePrice : type.communityPrice;
  }

  /** Price and stock of one GPU type for `gpuCount` GPUs, as `lowestPrice` reports it. */
  stock(gpuTypeId: string, filter: { gpuCount: number; secureCloud?: boolean | null; dataCenterId?: string | null; allowedCudaVersions?: readonly (string | null)[] | null; cudaVersion?: string | null }): StockInfo {
    const hosts = this.hosts.filter(
      (h) =>
        h.gpuTypeId === gpuTypeId &&
        (filter.secureCloud == null || h.secureCloud === filter.secureCloud) &&
        (!filter.dataCenterId || h.dataCenterId === filter.dataCenterId) &&
        (!filter.allowedCudaVersions?.length || filter.allowedCudaVersions.includes(h.cudaVersion)) &&
        (!filter.cudaVersion || compareCuda(h.cudaVersion, filter.cudaVersion) >= 0),
    );
    const type = this.gpuType(gpuTypeId);
    if (!type || hosts.length === 0) return { price: null, stockStatus: null, availableGpuCounts: [], maxFreeOnOneHost: 0 };
    const frees = hosts.map((h) => this.freeGpus(h.id));
    const maxFree = Math.max(0, ...frees);
    const totalFree = frees.reduce((a, b) => a + b, 0);
    const fitting = hosts.filter((h) => this.freeGpus(h.id) >= filter.gpuCount);
    const priced = fitting.length > 0 ? fitting : hosts;
    const price = Math.min(...priced.map((h) => this.pricePerGpu(h)));
    const stockStatus = fitting.length === 0 ? null : totalFree > 5 ? 'High' : totalFree > 2 ? 'Medium' : 'Low';
    return { price, stockStatus, availableGpuCounts: Array.from({ length: maxFree }, (_, i) => i + 1), maxFreeOnOneHost: maxFree };
  }

  private place(request: DeployRequest, gpuCount: number): HostSpec {
    if (request.computeType === 'CPU') return CPU_HOST;
    const wantSecure = request.cloudType === 'SECURE' ? true : request.cloudType === 'COMMUNITY' ? false : undefined;
    for (const gpuTypeId of request.gpuTypeIds) {
      const candidates = this.hosts
        .filter((h) => h.gpuTypeId === gpuTypeId)
        .filter((h) => wantSecure === undefined || h.secureCloud === wantSecure)
        .filter((h) => !request.dataCenterIds?.length || request.dataCenterIds.includes(h.dataCenterId))
        .filter((h) => !request.allowedCudaVersions?.length || request.allowedCudaVersions.includes(h.cudaVersion))
        .filter((h) => vcpuPerGpu(h) >= (request.minVcpuPerGpu ?? 0) && memoryPerGpuInGb(h) >= (request.minMemoryPerGpuInGb ?? 0))
        .filter((h) => this.freeGpus(h.id) >= gpuCount)
        .sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
      if (candidates[0]) return candidates[0];
    }
    throw new NoCapacityError();
  }

  // ---- pods -----------------------------------------------------------------------------------

  private findPod(account: Account, podId: string): EmulatedPod {
    const pod = account.pods.get(podId);
    if (!pod) throw notFound('pod', podId);
    this.refresh(account, pod);
    return pod;
  }

  getPod(account: Account, podId: string): EmulatedPod | undefined {
    const pod = account.pods.get(podId);
    if (pod) this.refresh(account, pod);
    return pod;
  }

  listPods(account: Account): EmulatedPod[] {
    for (const pod of account.pods.values()) this.refresh(account, pod);
    return [...account.pods.values()];
  }

  /** Applies what time has done: a container that cannot start exits once start-up is over. */
  private refresh(account: Account, pod: EmulatedPod): void {
    if (pod.desiredStatus === 'RUNNING' && pod.startFailure && this.clock.now() >= pod.lastStartedAt + this.podStartupMs) {
      this.stopPodInternal(account, pod, `Exited: ${pod.startFailure}`);
    }
  }

  /** True when the container is up: RUNNING, started, and past start-up. */
  isUp(pod: EmulatedPod): boolean {
    return pod.desiredStatus === 'RUNNING' && !pod.startFailure && this.clock.now() >= pod.lastStartedAt + this.podStartupMs;
  }

  deploy(account: Account, request: DeployRequest): EmulatedPod {
    // The account's own templates, else the platform's public ones (any account deploys those).
    const template = request.templateId ? templateFor(account, request.templateId) : undefined;
    if (request.templateId && !template) throw notFound('template', request.templateId);
    const imageName = request.imageName ?? template?.imageName;
    if (!imageName) throw badRequest('create pod: imageName or templateId is required');
    const computeType = request.computeType === 'CPU' ? 'CPU' : 'GPU';
    const gpuCount = computeType === 'CPU' ? 0 : (request.gpuCount ?? 1);
    if (computeType === 'GPU' && (!Number.isInteger(gpuCount) || gpuCount < 1)) throw badRequest('create pod: gpuCount must be at least 1');
    if (computeType === 'GPU' && request.gpuTypeIds.length === 0) throw badRequest('create pod: gpuTypeIds is required');
    if (request.networkVolumeId && !account.networkVolumes.has(request.networkVolumeId)) throw notFound('network volume', request.networkVolumeId);
    const host = this.place(request, gpuCount);
    const now = this.clock.now();
    const pod: EmulatedPod = {
      id: newId(),
      name: request.name ?? template?.name ?? 'my pod',
      imageName,
      env: { ...template?.env, ...request.env },
      ports: request.ports ?? template?.ports ?? [],
      gpuTypeId: host.gpuTypeId,
      requestedGpuCount: gpuCount,
      gpuCount,
      computeType,
      hostId: host.id,
      containerDiskInGb: request.containerDiskInGb ?? template?.containerDiskInGb ?? 50,
      volumeInGb: request.networkVolumeId ? 0 : (request.volumeInGb ?? template?.volumeInGb ?? 20),
      volumeMountPath: request.volumeMountPath ?? template?.volumeMountPath ?? '/workspace',
      networkVolumeId: request.networkVolumeId,
      templateId: request.templateId,
      dockerArgs: request.dockerArgs,
      dockerEntrypoint: request.dockerEntrypoint ?? template?.dockerEntrypoint,
      dockerStartCmd: request.dockerStartCmd ?? template?.dockerStartCmd,
      containerRegistryAuthId: request.containerRegistryAuthId ?? template?.containerRegistryAuthId,
      allowedCudaVersions: request.allowedCudaVersions,
      desiredStatus: 'RUNNING',
      createdAt: now,
      lastStartedAt: now,
      lastStatusChange: `Rented by User: ${new Date(now).toUTCString()}`,
      containerDisk: new Map(),
      volumeDisk: new Map(),
    };
    pod.startFailure = this.startFailure(pod, host);
    this.logStart(pod);
    account.pods.set(pod.id, pod);
    this.openRunningSegments(account, pod);
    return pod;
  }

  private readonly logListeners = new Set<() => void>();

  private log(pod: EmulatedPod, ts: number, source: PodLogLine['source'], line: string): void {
    const logs = (pod.logs ??= []);
    const last = logs[logs.length - 1];
    logs.push({ ts, seq: last && last.ts === ts ? last.seq + 1 : 0, source, line });
    // A pod restarted for days keeps its last lines only (V8 trims an array's front in place).
    if (logs.length > MAX_POD_LOG_LINES) logs.shift();
    for (const listener of this.logListeners) listener();
  }

  /** What the accounts hold now, for `emulator.inspect.retained()`. */
  retained(): { accounts: number; pods: number; podLogLines: number; logListeners: number; billingSegments: number; endpointCharges: number } {
    const out = { accounts: this.accounts.size, pods: 0, podLogLines: 0, logListeners: this.logListeners.size, billingSegments: 0, endpointCharges: 0 };
    for (const account of this.accounts.values()) {
      out.pods += account.pods.size;
      for (const pod of account.pods.values()) out.podLogLines += pod.logs?.length ?? 0;
      out.billingSegments += account.segments.length;
      out.endpointCharges += account.endpointCharges.length;
    }
    return out;
  }

  /** Calls `listener` whenever any pod gets a log line; returns the way to stop. */
  onPodLog(listener: () => void): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  /** When the next line already written for a later time becomes visible, if any. */
  nextPodLogAt(pod: EmulatedPod): number | undefined {
    const now = this.clock.now();
    const future = (pod.logs ?? []).filter((l) => l.ts > now).map((l) => l.ts);
    return future.length > 0 ? Math.min(...future) : undefined;
  }

  /** Start-up lines: pulling now; at the end of start-up, the container's first line or the CUDA failure. */
  private logStart(pod: EmulatedPod): void {
    const now = this.clock.now();
    this.dropFutureLogs(pod);
    this.log(pod, now, 'system', `start container for ${pod.imageName}: begin`);
    const ready = now + this.podStartupMs;
    if (pod.startFailure) this.log(pod, ready, 'system', `error creating container: ${pod.startFailure}`);
    else this.log(pod, ready, 'container', `container started (${pod.gpuCount} GPU${pod.gpuCount === 1 ? '' : 's'})`);
  }

  private logStop(pod: EmulatedPod, reason: string): void {
    this.dropFutureLogs(pod);
    this.log(pod, this.clock.now(), 'system', `stop container: ${reason}`);
  }

  /** A start-up that is cut short never writes its last line. */
  private dropFutureLogs(pod: EmulatedPod): void {
    const now = this.clock.now();
    if (pod.logs) pod.logs = pod.logs.filter((l) => l.ts <= now);
  }

  /** The lines written so far, oldest first. */
  podLogs(pod: EmulatedPod): PodLogLine[] {
    const now = this.clock.now();
    return (pod.logs ?? []).filter((l) => l.ts <= now);
  }

  private startFailure(pod: EmulatedPod, host: HostSpec): string | undefined {
    const needs = requiredCudaVersion(pod.imageName);
    if (pod.computeType === 'CPU' || !needs || compareCuda(host.cudaVersion, needs) >= 0) return undefined;
    return `OCI runtime create failed: runc create failed: unable to start container process: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=${needs}, please update your driver to a newer version (host CUDA ${host.cudaVersion})`;
  }

  /** What the pod costs per hour while running. */
  podCostPerHr(pod: EmulatedPod): number {
    if (pod.computeType === 'CPU') return CPU_PRICE_PER_HOUR;
    return Math.round(this.pricePerGpu(this.host(pod.hostId)) * pod.gpuCount * 10_000) / 10_000;
  }

  private closeSegments(account: Account, predicate: (s: BillingSegment) => boolean): void {
    const now = this.clock.now();
    let closed = 0;
    for (const s of account.segments) {
      if (s.to === undefined && predicate(s)) s.to = now;
      if (s.to !== undefined && !s.folded) closed++;
    }
    if (closed > MAX_CLOSED_SEGMENTS) foldSegments(account, closed - MAX_CLOSED_SEGMENTS / 2);
  }

  private openRunningSegments(account: Account, pod: EmulatedPod): void {
    const now = this.clock.now();
    account.segments.push({ kind: 'gpu', podId: pod.id, gpuTypeId: pod.gpuTypeId, ratePerHour: this.podCostPerHr(pod), from: now });
    if (pod.volumeInGb > 0) {
      account.segments.push({ kind: 'volume', podId: pod.id, gpuTypeId: pod.gpuTypeId, gb: pod.volumeInGb, ratePerHour: (pod.volumeInGb * VOLUME_PRICE_RUNNING * MS_PER_HOUR) / MS_PER_MONTH, from: now });
    }
  }

  private stopPodInternal(account: Account, pod: EmulatedPod, reason: string): void {
    this.closeSegments(account, (s) => s.podId === pod.id);
    pod.desiredStatus = 'EXITED';
    pod.gpuCount = 0;
    pod.containerDisk.clear();
    pod.lastStatusChange = reason;
    this.logStop(pod, reason);
    // A stopped pod's volume disk stays billed, at the stopped rate.
    if (pod.volumeInGb > 0) {
      account.segments.push({ kind: 'volume', podId: pod.id, gpuTypeId: pod.gpuTypeId, gb: pod.volumeInGb, ratePerHour: (pod.volumeInGb * VOLUME_PRICE_STOPPED * MS_PER_HOUR) / MS_PER_MONTH, from: this.clock.now() });
    }
  }

  stopPod(account: Account, podId: string): EmulatedPod {
    const pod = this.findPod(account, podId);
    if (pod.desiredStatus === 'RUNNING') this.stopPodInternal(account, pod, `Stopped by user: ${new Date(this.clock.now()).toUTCString()}`);
    return pod;
  }

  /**
   * Starts a stopped pod on its own host. Too few free GPUs there: refused, as the platform does.
   * `gpuCount: 0` starts it without GPUs, only when asked (to reach the pod's disk).
   */
  startPod(account: Account, podId: string, gpuCount?: number | null): EmulatedPod {
    const pod = this.findPod(account, podId);
    if (pod.desiredStatus === 'RUNNING') return pod;
    const wanted = pod.computeType === 'CPU' ? 0 : (gpuCount ?? pod.requestedGpuCount);
    if (!Number.isInteger(wanted) || wanted < 0) throw badRequest('gpuCount must be a whole number, 0 or more');
    if (wanted > 0 && this.freeGpus(pod.hostId) < wanted) throw new HostBusyError();
    this.closeSegments(account, (s) => s.podId === pod.id);
    if (wanted > 0) pod.requestedGpuCount = wanted;
    pod.gpuCount = wanted;
    pod.desiredStatus = 'RUNNING';
    pod.lastStartedAt = this.clock.now();
    pod.lastStatusChange = `Started by user: ${new Date(this.clock.now()).toUTCString()}`;
    pod.startFailure = this.startFailure(pod, this.host(pod.hostId));
    this.logStart(pod);
    this.openRunningSegments(account, pod);
    return pod;
  }

  /** Reset: the container is recreated; everything outside the volume mount and network volumes is erased. */
  resetPod(account: Account, podId: string): EmulatedPod {
    const pod = this.findPod(account, podId);
    pod.containerDisk.clear();
    if (pod.desiredStatus === 'RUNNING') {
      pod.lastStartedAt = this.clock.now();
      pod.startFailure = this.startFailure(pod, this.host(pod.hostId));
      this.logStart(pod);
    }
    pod.lastStatusChange = `Reset by user: ${new Date(this.clock.now()).toUTCString()}`;
    return pod;
  }

  /** Restart: the same container starts again; its disk is kept. */
  restartPod(account: Account, podId: string): EmulatedPod {
    const pod = this.findPod(account, podId);
    if (pod.desiredStatus !== 'RUNNING') throw badRequest(`pod ${podId} is not running`);
    pod.lastStartedAt = this.clock.now();
    pod.lastStatusChange = `Restarted by user: ${new Date(this.clock.now()).toUTCString()}`;
    this.logStop(pod, pod.lastStatusChange);
    this.logStart(pod);
    return pod;
  }

  /** Editing a running pod resets it. */
  updatePod(account: Account, podId: string, edit: PodEdit): EmulatedPod {
    const pod = this.findPod(account, podId);
    if (edit.volumeInGb != null && edit.volumeInGb < pod.volumeInGb) throw badRequest('volumeInGb can only be increased');
    for (const [key, value] of Object.entries(edit)) {
      if (value !== undefined && value !== null) (pod as unknown as Record<string, unknown>)[key] = value;
    }
    if (pod.desiredStatus === 'RUNNING') {
      this.resetPod(account, podId);
      this.closeSegments(account, (s) => s.podId === pod.id);
      this.openRunningSegments(account, pod);
    }
    return pod;
  }

  /** Terminate: everything not on a network volume is deleted for good. */
  terminatePod(account: Account, podId: string): void {
    const pod = this.findPod(account, podId);
    this.closeSegments(account, (s) => s.podId === pod.id);
    const reason = `Terminated by user: ${new Date(this.clock.now()).toUTCString()}`;
    // The last lines a log stream sends: they also wake it, so it ends rather than waits.
    if (pod.desiredStatus === 'RUNNING') this.logStop(pod, reason);
    else this.dropFutureLogs(pod);
    pod.desiredStatus = 'TERMINATED';
    pod.lastStatusChange = reason;
    this.log(pod, this.clock.now(), 'system', 'remove container');
    pod.containerDisk.clear();
    pod.volumeDisk.clear();
    account.pods.delete(pod.id);
  }

  // ---- files (what tests observe) ---------------------------------------------------------------

  private isUnderMount(pod: EmulatedPod, path: string): boolean {
    return path === pod.volumeMountPath || path.startsWith(`${pod.volumeMountPath.replace(/\/+$/, '')}/`);
  }

  /** Writes a file inside a running pod: under the volume mount it lands on the volume (or network volume). */
  writeFile(account: Account, podId: string, path: string, content: string): void {
    const pod = this.findPod(account, podId);
    if (!this.isUp(pod)) throw badRequest(`pod ${podId} is not running`);
    if (!this.isUnderMount(pod, path)) pod.containerDisk.set(path, content);
    else if (pod.networkVolumeId) account.networkVolumes.get(pod.networkVolumeId)?.files.set(path.slice(pod.volumeMountPath.length), content);
    else pod.volumeDisk.set(path, content);
  }

  /** The files a pod sees, by disk. */
  files(account: Account, podId: string): { containerDisk: Record<string, string>; volume: Record<string, string> } {
    const pod = this.findPod(account, podId);
    const volume = pod.networkVolumeId
      ? Object.fromEntries([...(account.networkVolumes.get(pod.networkVolumeId)?.files ?? new Map<string, string>())].map(([p, c]) => [`${pod.volumeMountPath}${p}`, c]))
      : Object.fromEntries(pod.volumeDisk);
    return { containerDisk: Object.fromEntries(pod.containerDisk), volume };
  }

  // ---- other resources --------------------------------------------------------------------------

  createNetworkVolume(account: Account, input: { name: string; size: number; dataCenterId: string }): EmulatedNetworkVolume {
    const volume: EmulatedNetworkVolume = { id: newId(10), ...input, files: new Map() };
    account.networkVolumes.set(volume.id, volume);
    account.segments.push({ kind: 'network-volume', networkVolumeId: volume.id, gb: volume.size, ratePerHour: (volume.size * NETWORK_VOLUME_PRICE * MS_PER_HOUR) / MS_PER_MONTH, from: this.clock.now() });
    return volume;
  }

  updateNetworkVolume(account: Account, id: string, edit: { name?: string | undefined; size?: number | undefined }): EmulatedNetworkVolume {
    const volume = account.networkVolumes.get(id);
    if (!volume) throw notFound('network volume', id);
    if (edit.size !== undefined && edit.size < volume.size) throw badRequest('network volume size can only be increased');
    if (edit.name !== undefined) volume.name = edit.name;
    if (edit.size !== undefined && edit.size !== volume.size) {
      volume.size = edit.size;
      this.closeSegments(account, (s) => s.networkVolumeId === id);
      account.segments.push({ kind: 'network-volume', networkVolumeId: id, gb: volume.size, ratePerHour: (volume.size * NETWORK_VOLUME_PRICE * MS_PER_HOUR) / MS_PER_MONTH, from: this.clock.now() });
    }
    return volume;
  }

  deleteNetworkVolume(account: Account, id: string): void {
    if (!account.networkVolumes.has(id)) throw notFound('network volume', id);
    for (const pod of account.pods.values()) {
      if (pod.networkVolumeId === id) throw badRequest(`network volume ${id} is attached to pod ${pod.id}`);
    }
    this.closeSegments(account, (s) => s.networkVolumeId === id);
    account.networkVolumes.delete(id);
  }
}

/**
 * Folds the `count` oldest closed segments of `account` (by end) into one segment per hour, kind
 * and GPU type, added to the folded ones already there: each is 1 ms long at its hour's start, with
 * the rate that bills the hour's amount in that millisecond, so every bucket (an hour or longer)
 * sums to what the segments charged.
 */
function foldSegments(account: Account, count: number): void {
  const closed = account.segments.filter((s) => s.to !== undefined && !s.folded).sort((a, b) => a.to! - b.to!);
  const going = new Set(closed.slice(0, count));
  const folded = new Map<string, BillingSegment>();
  for (const s of account.segments) if (s.folded) folded.set(`${s.kind}\u0000${s.gpuTypeId ?? ''}\u0000${s.from}`, s);
  for (const s of going) {
    for (let t = s.from; t < s.to!; ) {
      const hour = Math.floor(t / MS_PER_HOUR) * MS_PER_HOUR;
      const next = Math.min(hour + MS_PER_HOUR, s.to!);
      const amount = (s.ratePerHour * (next - t)) / MS_PER_HOUR;
      const key = `${s.kind}\u0000${s.gpuTypeId ?? ''}\u0000${hour}`;
      let row = folded.get(key);
      if (!row) {
        row = { kind: s.kind, ...(s.gpuTypeId !== undefined && { gpuTypeId: s.gpuTypeId }), ratePerHour: 0, from: hour, to: hour + 1, folded: true };
        folded.set(key, row);
      }
      // USD per hour over 1 ms: the hour's amount.
      row.ratePerHour += amount * MS_PER_HOUR;
      if (s.gb !== undefined) row.gb = Math.max(row.gb ?? 0, s.gb);
      t = next;
    }
  }
  account.segments = [...folded.values(), ...account.segments.filter((s) => !s.folded && !going.has(s))];
}

// Pod and the types a pod answer holds (PodMachineInfo, PodRuntime, …), and the pod root fields.
// Each row says where a GraphQL field's value comes from in REST v2's `Pod` (src/contracts/
// rest-v2.openapi.json); derivations are below the table, each with why it holds.
import { call, derived, holding, informational, decisive, path, readPath, standIn, WrongRestShape, type Derivations, type FieldEntry, type FieldMap, type RestObject } from './types.js';

export const DISCONTINUED_SPOT = 'spot (interruptible) pods are discontinued: the platform refuses them, and REST v2 has no bid';
/** A host's maintenance notice: for the people who run pods there; the platform, not a caller, moves or stops the pods. */
const NO_MAINTENANCE = 'REST v2 has no maintenance notice of the host';

export const podQueryFields: Readonly<Record<string, FieldEntry>> = {
  pod: holding('Pod', call(['GET /v2/pods/{id}'])),
};

export const podMutationFields: Readonly<Record<string, FieldEntry>> = {
  podFindAndDeployOnDemand: holding('Pod', call(['GET /v2/catalog/gpus', 'POST /v2/pods'])),
  deployCpuPod: holding('Pod', call(['GET /v2/catalog/cpus/{id}', 'POST /v2/pods'])),
  podResume: holding('Pod', call(['POST /v2/pods/{id}/action'])),
  podStop: holding('Pod', call(['POST /v2/pods/{id}/action'])),
  podTerminate: call(['DELETE /v2/pods/{id}']),
  podBidResume: decisive(),
  podRentInterruptable: decisive(),
  // PATCH recreates the container, which is what podEditJob does (the pod resets); sent once.
  podEditJob: holding('Pod', call(['PATCH /v2/pods/{id}'])),
};

/** The fields of `Pod` (REST v2 `Pod`). */
const podFields: Readonly<Record<string, FieldEntry>> = {
  id: path('id'),
  name: path('name'),
  imageName: path('image'),
  dockerArgs: path('args'),
  containerDiskInGb: path('disk'),
  containerRegistryAuthId: path('registry'),
  costPerHr: path('cost'),
  createdAt: path('createdAt'),
  lastStartedAt: path('startedAt'),
  templateId: path('template'),
  locked: path('locked'),
  cpuFlavorId: path('cpu.id'),
  clusterId: path('cluster.id'),
  clusterIp: path('cluster.ip'),
  clusterIdx: path('cluster.rank'),
  clusterRole: derived('Pod.clusterRole', ['cluster.role']),
  desiredStatus: derived('Pod.desiredStatus', ['status']),
  env: derived('Pod.env', ['env'], 'write'),
  ports: derived('Pod.ports', ['ports']),
  gpuCount: derived('Pod.gpuCount', ['status', 'runtime.gpus', 'gpu.count']),
  memoryInGb: derived('Pod.memoryInGb', ['gpu.memory', 'cpu.memory']),
  vcpuCount: derived('Pod.vcpuCount', ['gpu.vcpuCount', 'cpu.vcpuCount']),
  uptimeSeconds: derived('Pod.uptimeSeconds', ['status', 'runtime.uptime']),
  volumeInGb: derived('Pod.volumeInGb', ['mounts.persistent.size']),
  volumeMountPath: derived('Pod.volumeMountPath', ['mounts.persistent.path', 'mounts.network']),
  networkVolumeId: derived('Pod.networkVolumeId', ['mounts.network']),
  podType: derived('Pod.podType', []),
  lastStatusChange: derived('Pod.lastStatusChange', ['status', 'startedAt']),
  runtime: holding('PodRuntime', derived('Pod.runtime', ['status', 'runtime'])),
  machine: holding('PodMachineInfo', derived('Pod.machine', [])),
  machineId: standIn(''),
  adjustedCostPerHr: decisive(),
  gpuPowerLimitPercent: decisive(),
  gpus: decisive(),
  volumeEncrypted: decisive(),
  lowestBidPriceToResume: informational(DISCONTINUED_SPOT),
  aiApiId: decisive(),
  apiKey: decisive('write'),
  clusterCidr: decisive(),
  vxlanId: decisive(),
  vxlanPort: decisive(),
  clusterMembers: decisive(),
  clusterNetwork: decisive(),
  consumerUserId: decisive(),
  costMultiplier: decisive(),
  dockerId: informational('REST v2 has no container id'),
  port: informational('REST v2 has no legacy single port: ports and runtime.ports carry the mapping'),
  registry: decisive('write'),
  version: decisive(),
  volumeKey: decisive('write'),
  machineType: decisive(),
  slsVersion: decisive(),
  testPod: decisive(),
  ideAiApiId: decisive(),
  hubReleaseId: decisive(),
  hubRelease: decisive(),
  modelVersions: decisive(),
  models: decisive(),
  cpuFlavor: decisive(),
  latestTelemetry: informational('REST v2 has no telemetry snapshot: runtime carries the GPUs\' and the container\'s use'),
  endpoint: decisive(),
  networkVolume: decisive(),
  savingsPlans: decisive(),
  ipAddress: decisive(),
};

/** `Pod.machine`: the pod's own REST object (`rest: 'Pod'`). */
const machineFields: Readonly<Record<string, FieldEntry>> = {
  podHostId: path('ssh.proxy.username'),
  gpuTypeId: path('gpu.id'),
  dataCenterId: path('dataCenterId'),
  location: derived('PodMachineInfo.location', ['dataCenterId']),
  secureCloud: derived('PodMachineInfo.secureCloud', ['cloud']),
  gpuDisplayName: call(['GET /v2/catalog/gpus']),
  id: decisive(),
  costPerHr: decisive(),
  currentPricePerGpu: decisive(),
  diskMBps: informational('REST v2 has no measured disk speed of the host'),
  gpuAvailable: decisive(),
  gpuType: decisive(),
  listed: decisive(),
  machineType: decisive(),
  maintenanceEnd: informational(NO_MAINTENANCE),
  maintenanceNote: informational(NO_MAINTENANCE),
  maintenanceStart: informational(NO_MAINTENANCE),
  maxDownloadSpeedMbps: informational('REST v2 has no measured network speed of the host'),
  maxUploadSpeedMbps: informational('REST v2 has no measured network speed of the host'),
  note: informational('REST v2 has no host note (free text for people)'),
  runpodIp: decisive(),
  supportPublicIp: decisive(),
  minPodGpuCount: decisive(),
  machineSystem: decisive(),
  cpuTypeId: decisive(),
  cpuType: decisive(),
  cpuCount: decisive(),
  vcpuTotal: decisive(),
  vcpuReserved: decisive(),
  memoryTotal: decisive(),
  memoryReserved: decisive(),
  globalNetwork: path('globalNetworking.enabled'),
};

export const podTypes: FieldMap = {
  Pod: { rest: 'Pod', scope: 'read', fields: podFields },
  PodMachineInfo: { rest: 'Pod', scope: 'read', fields: machineFields },
  PodRuntime: {
    rest: 'PodRuntime',
    scope: 'read',
    fields: {
      uptimeInSeconds: path('uptime'),
      gpus: holding('PodRuntimeGpus', path('gpus')),
      ports: holding('PodRuntimePorts', path('ports')),
      container: holding('PodRuntimeContainer', derived('PodRuntime.container', [])),
    },
  },
  PodRuntimeContainer: {
    rest: 'PodRuntime',
    scope: 'read',
    fields: { cpuPercent: path('cpu.util'), memoryPercent: path('memory.util') },
  },
  PodRuntimeGpus: {
    rest: 'PodGpuUtilization',
    scope: 'read',
    fields: { id: standIn(null), gpuUtilPercent: path('util'), memoryUtilPercent: path('memoryUtil') },
  },
  PodRuntimePorts: {
    rest: 'PodRuntimePort',
    scope: 'read',
    fields: {
      ip: path('ip'),
      privatePort: path('private'),
      publicPort: path('public'),
      type: path('type'),
      isIpPublic: derived('PodRuntimePorts.isIpPublic', ['ip', 'type']),
    },
  },
};

// ---- derivations ----------------------------------------------------------------------------

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value at `at`, which must be absent, null or pass `ok`; else the answer has the wrong shape. */
function optional<T>(parent: RestObject, at: string, ok: (v: unknown) => v is T, expected: string): T | undefined {
  const value = readPath(parent, at);
  if (value === undefined || value === null) return undefined;
  if (!ok(value)) throw new WrongRestShape(at, expected);
  return value;
}
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);

/** GraphQL's requested state from REST v2's observed one. */
export const DESIRED_STATUS: Readonly<Record<string, 'RUNNING' | 'EXITED' | 'TERMINATED'>> = {
  PROVISIONING: 'RUNNING',
  STARTING: 'RUNNING',
  RUNNING: 'RUNNING',
  EXITED: 'EXITED',
  ERROR: 'EXITED',
  TERMINATED: 'TERMINATED',
};

function status(pod: RestObject): string {
  const value = pod.status;
  if (typeof value !== 'string' || !Object.hasOwn(DESIRED_STATUS, value)) throw new WrongRestShape('status', 'a pod status');
  return value;
}

const running = (pod: RestObject) => status(pod) === 'RUNNING';

const PRIVATE_V4 = /^(?:10\.|127\.|169\.254\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.|100\.(?:6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.)/;
const PRIVATE_V6 = /^(?:::1$|f[cd]|fe[89ab])/i;

/** The GPU or CPU share's `field`, a number. */
function share(pod: RestObject, field: string): number | undefined {
  return optional(pod, `gpu.${field}`, isNumber, 'a number') ?? optional(pod, `cpu.${field}`, isNumber, 'a number');
}

function networkMount(pod: RestObject): Record<string, unknown> | undefined {
  const mounts = optional(pod, 'mounts.network', isArray, 'a list of mounts');
  const first = mounts?.[0];
  if (first === undefined) return undefined;
  if (!isRecord(first)) throw new WrongRestShape('mounts.network', 'a list of mounts');
  return first;
}

export const podDerivations: Derivations = {
  'Pod.desiredStatus': (pod) => DESIRED_STATUS[status(pod)],
  'Pod.env': (pod) => {
    const env = optional(pod, 'env', isRecord, 'a map of strings') ?? {};
    return Object.entries(env).map(([key, value]) => {
      if (typeof value !== 'string') throw new WrongRestShape('env', 'a map of strings');
      return `${key}=${value}`;
    });
  },
  'Pod.ports': (pod) => {
    const ports = optional(pod, 'ports', isArray, 'a list of strings');
    if (ports === undefined) return null;
    if (!ports.every(isString)) throw new WrongRestShape('ports', 'a list of strings');
    return ports.join(',');
  },
  'Pod.gpuCount': (pod) => {
    const held = running(pod) ? optional(pod, 'runtime.gpus', isArray, 'a list') : undefined;
    return held ? held.length : (optional(pod, 'gpu.count', isNumber, 'a number') ?? 0);
  },
  'Pod.memoryInGb': (pod) => share(pod, 'memory'),
  'Pod.vcpuCount': (pod) => share(pod, 'vcpuCount'),
  'Pod.uptimeSeconds': (pod) => (running(pod) ? (optional(pod, 'runtime.uptime', isNumber, 'a number') ?? 0) : 0),
  'Pod.volumeInGb': (pod) => optional(pod, 'mounts.persistent.size', isNumber, 'a number') ?? 0,
  'Pod.volumeMountPath': (pod) => optional(pod, 'mounts.persistent.path', isString, 'a string') ?? (networkMount(pod)?.path as string | undefined) ?? null,
  'Pod.networkVolumeId': (pod) => networkMount(pod)?.volumeId ?? null,
  'Pod.podType': () => 'RESERVED',
  'Pod.lastStatusChange': (pod) => {
    const now = status(pod);
    const since = running(pod) ? optional(pod, 'startedAt', isString, 'a date-time') : undefined;
    return since ? `${now} since ${since}` : now;
  },
  'Pod.clusterRole': (pod) => {
    const role = optional(pod, 'cluster.role', isString, 'a string');
    return role === 'SLURM_CONTROLLER' || role === 'SLURM_COMPUTE' ? role : null;
  },
  'Pod.runtime': (pod) => (running(pod) ? (optional(pod, 'runtime', isRecord, 'an object') ?? null) : null),
  'Pod.machine': (pod) => pod,
  'PodMachineInfo.location': (pod) => optional(pod, 'dataCenterId', isString, 'a string') ?? null,
  'PodMachineInfo.secureCloud': (pod) => {
    const cloud = optional(pod, 'cloud', isString, 'SECURE or COMMUNITY');
    return cloud === undefined ? null : cloud === 'SECURE';
  },
  'PodRuntime.container': (runtime) => runtime,
  'PodRuntimePorts.isIpPublic': (port) => {
    const ip = optional(port, 'ip', isString, 'a string');
    const type = optional(port, 'type', isString, 'a string');
    return type === 'tcp' && !!ip && !PRIVATE_V4.test(ip) && !PRIVATE_V6.test(ip);
  },
};

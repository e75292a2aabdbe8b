// Pod and the types a pod answer holds (PodMachineInfo, PodRuntime, …), and the pod root fields.
// Each row says where a GraphQL field's value comes from in REST v2's `Pod` (src/contracts/
// rest-v2.openapi.json); derivations are below the table, each with why it holds.
import { call, derived, holding, informational, decisive, path, readPath, standIn, WrongRestShape, type Derivations, type FieldEntry, type FieldMap, type RestObject } from './types.js';

const DISCONTINUED_SPOT = 'spot (interruptible) pods are discontinued: the platform refuses them, and REST v2 has no bid';
const NOT_IN_REST = 'REST v2 has no such field';
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
  podBidResume: decisive(DISCONTINUED_SPOT),
  podRentInterruptable: decisive(DISCONTINUED_SPOT),
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
  clusterRole: derived('Pod.clusterRole', ['cluster.role'], 'REST v2 names the same Slurm roles; its Ray roles have no GraphQL value, so they are null'),
  desiredStatus: derived(
    'Pod.desiredStatus',
    ['status'],
    'REST v2 gives the observed status: PROVISIONING, STARTING and RUNNING are a pod asked to run (RUNNING); EXITED and ERROR a pod that stopped (EXITED, so a wait fails fast and a start stays possible); TERMINATED is TERMINATED',
  ),
  env: derived('Pod.env', ['env'], 'REST v2 gives env as a map; GraphQL lists "KEY=value" strings (only the order is lost)', 'write'),
  ports: derived('Pod.ports', ['ports'], 'REST v2 lists the ports; GraphQL joins them with commas'),
  gpuCount: derived('Pod.gpuCount', ['status', 'runtime.gpus', 'gpu.count'], 'while the pod runs, the GPUs it holds (runtime.gpus); else the count it asked for (gpu.count), 0 for a CPU pod'),
  memoryInGb: derived('Pod.memoryInGb', ['gpu.memory', 'cpu.memory'], "the RAM of the pod's share of its machine: gpu.memory for a GPU pod, cpu.memory for a CPU pod"),
  vcpuCount: derived('Pod.vcpuCount', ['gpu.vcpuCount', 'cpu.vcpuCount'], "the vCPUs of the pod's share of its machine: gpu.vcpuCount or cpu.vcpuCount"),
  uptimeSeconds: derived('Pod.uptimeSeconds', ['status', 'runtime.uptime'], 'runtime.uptime while the pod runs; a pod that does not run has been up 0 s'),
  volumeInGb: derived('Pod.volumeInGb', ['mounts.persistent.size'], 'the size of the persistent volume; 0 when the pod has none (a network volume instead, or no volume)'),
  volumeMountPath: derived('Pod.volumeMountPath', ['mounts.persistent.path', 'mounts.network'], 'where the persistent volume, or else the network volume, is mounted'),
  networkVolumeId: derived('Pod.networkVolumeId', ['mounts.network'], 'REST v2 lists at most one network volume mount; its volume id'),
  podType: derived(
    'Pod.podType',
    [],
    'every pod is on-demand (RESERVED): spot (INTERRUPTABLE, BID) pods are discontinued and refused by the platform, and REST v2 creates on-demand pods only',
  ),
  lastStatusChange: derived(
    'Pod.lastStatusChange',
    ['status', 'startedAt'],
    'GraphQL gives free text for people; REST v2 gives the observed status and start time, so this states them ("RUNNING since …", "EXITED"). The reason a pod failed is in its system log (GET /v2/pods/{id}/logs?source=system)',
  ),
  runtime: holding('PodRuntime', derived('Pod.runtime', ['status', 'runtime'], 'REST v2 may answer runtime: {} before the container is up (the create example does): it counts only while RUNNING, else null')),
  machine: holding('PodMachineInfo', derived('Pod.machine', [], 'REST v2 puts the placement (data centre, GPU type, SSH proxy) on the pod itself: the machine fields read the pod')),
  machineId: standIn('', 'REST v2 has no machine identity; the field is non-null, so it is the empty string'),
  adjustedCostPerHr: decisive('REST v2 gives only the current cost (costPerHr), not one adjusted by discounts'),
  gpuPowerLimitPercent: decisive(NOT_IN_REST),
  gpus: decisive('REST v2 has no GPU ids'),
  volumeEncrypted: decisive(NOT_IN_REST),
  lowestBidPriceToResume: informational(DISCONTINUED_SPOT),
  aiApiId: decisive(NOT_IN_REST),
  apiKey: decisive(NOT_IN_REST, 'write'),
  clusterCidr: decisive(NOT_IN_REST),
  vxlanId: decisive(NOT_IN_REST),
  vxlanPort: decisive(NOT_IN_REST),
  clusterMembers: decisive('REST v2 lists a cluster\'s pods under GET /v2/clusters/{id}, not on a pod'),
  clusterNetwork: decisive(NOT_IN_REST),
  consumerUserId: decisive(NOT_IN_REST),
  costMultiplier: decisive(NOT_IN_REST),
  dockerId: informational('REST v2 has no container id'),
  port: informational('REST v2 has no legacy single port: ports and runtime.ports carry the mapping'),
  registry: decisive('REST v2 gives only the registry auth id (containerRegistryAuthId), never its credentials', 'write'),
  version: decisive(NOT_IN_REST),
  volumeKey: decisive(NOT_IN_REST, 'write'),
  machineType: decisive(NOT_IN_REST),
  slsVersion: decisive(NOT_IN_REST),
  testPod: decisive(NOT_IN_REST),
  ideAiApiId: decisive(NOT_IN_REST),
  hubReleaseId: decisive(NOT_IN_REST),
  hubRelease: decisive(NOT_IN_REST),
  modelVersions: decisive(NOT_IN_REST),
  models: decisive(NOT_IN_REST),
  cpuFlavor: decisive('REST v2 gives the flavour id (cpuFlavorId); the flavour is GET /v2/catalog/cpus/{id}'),
  latestTelemetry: informational('REST v2 has no telemetry snapshot: runtime carries the GPUs\' and the container\'s use'),
  endpoint: decisive('REST v2 does not link a pod to a serverless endpoint'),
  networkVolume: decisive('REST v2 gives the volume id (networkVolumeId); the volume is read with myself { networkVolumes }'),
  savingsPlans: decisive(NOT_IN_REST),
  ipAddress: decisive(NOT_IN_REST),
};

/** `Pod.machine`: the pod's own REST object (`rest: 'Pod'`). */
const machineFields: Readonly<Record<string, FieldEntry>> = {
  podHostId: path('ssh.proxy.username'),
  gpuTypeId: path('gpu.id'),
  dataCenterId: path('dataCenterId'),
  location: derived('PodMachineInfo.location', ['dataCenterId'], 'REST v2 places a pod by data centre only: its id (e.g. US-KS-2) names where the machine is'),
  secureCloud: derived('PodMachineInfo.secureCloud', ['cloud'], 'the cloud the pod was placed in: SECURE or COMMUNITY'),
  gpuDisplayName: call(['GET /v2/catalog/gpus']),
  id: decisive('REST v2 has no machine identity'),
  costPerHr: decisive(NOT_IN_REST),
  currentPricePerGpu: decisive(NOT_IN_REST),
  diskMBps: informational('REST v2 has no measured disk speed of the host'),
  gpuAvailable: decisive('REST v2 gives stock per data centre (GET /v2/catalog/gpus), not per machine'),
  gpuType: decisive('REST v2 gives the GPU type id (gpuTypeId); the type is GET /v2/catalog/gpus/{id}'),
  listed: decisive(NOT_IN_REST),
  machineType: decisive(NOT_IN_REST),
  maintenanceEnd: informational(NO_MAINTENANCE),
  maintenanceNote: informational(NO_MAINTENANCE),
  maintenanceStart: informational(NO_MAINTENANCE),
  maxDownloadSpeedMbps: informational('REST v2 has no measured network speed of the host'),
  maxUploadSpeedMbps: informational('REST v2 has no measured network speed of the host'),
  note: informational('REST v2 has no host note (free text for people)'),
  runpodIp: decisive(NOT_IN_REST),
  supportPublicIp: decisive(NOT_IN_REST),
  minPodGpuCount: decisive(NOT_IN_REST),
  machineSystem: decisive(NOT_IN_REST),
  cpuTypeId: decisive('REST v2 gives the CPU flavour (cpuFlavorId), not the CPU model'),
  cpuType: decisive('REST v2 gives the CPU flavour (cpuFlavorId), not the CPU model'),
  cpuCount: decisive(NOT_IN_REST),
  vcpuTotal: decisive(NOT_IN_REST),
  vcpuReserved: decisive(NOT_IN_REST),
  memoryTotal: decisive(NOT_IN_REST),
  memoryReserved: decisive(NOT_IN_REST),
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
      container: holding('PodRuntimeContainer', derived('PodRuntime.container', [], "REST v2 puts the container's figures (cpu, memory) on the runtime itself")),
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
    fields: { id: standIn(null, 'REST v2 has no GPU ids (null, as the package\'s PodFields has always answered it over REST v2)'), gpuUtilPercent: path('util'), memoryUtilPercent: path('memoryUtil') },
  },
  PodRuntimePorts: {
    rest: 'PodRuntimePort',
    scope: 'read',
    fields: {
      ip: path('ip'),
      privatePort: path('private'),
      publicPort: path('public'),
      type: path('type'),
      isIpPublic: derived('PodRuntimePorts.isIpPublic', ['ip', 'type'], 'a TCP port on an address outside the private, loopback, link-local and shared (100.64/10) ranges, as runpodctl decides it'),
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

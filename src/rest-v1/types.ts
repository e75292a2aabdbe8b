// Types of the REST v1 API, written from the platform's published OpenAPI contract.
// Enumerations are open unions: the listed values autocomplete, and values the platform adds later
// still type-check.

type Open<T extends string> = T | (string & {});

/** GPU type ids the contract lists; new ones are accepted. */
export type GpuTypeId = Open<
  | 'NVIDIA GeForce RTX 4090' | 'NVIDIA A40' | 'NVIDIA RTX A5000' | 'NVIDIA GeForce RTX 5090' | 'NVIDIA H100 80GB HBM3'
  | 'NVIDIA GeForce RTX 3090' | 'NVIDIA RTX A4500' | 'NVIDIA L40S' | 'NVIDIA H200' | 'NVIDIA L4' | 'NVIDIA RTX 6000 Ada Generation'
  | 'NVIDIA A100-SXM4-80GB' | 'NVIDIA RTX 4000 Ada Generation' | 'NVIDIA RTX A6000' | 'NVIDIA A100 80GB PCIe'
  | 'NVIDIA RTX 2000 Ada Generation' | 'NVIDIA RTX A4000' | 'NVIDIA RTX PRO 6000 Blackwell Server Edition' | 'NVIDIA H100 PCIe'
  | 'NVIDIA H100 NVL' | 'NVIDIA L40' | 'NVIDIA B200' | 'NVIDIA GeForce RTX 3080 Ti' | 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition'
  | 'NVIDIA GeForce RTX 3080' | 'NVIDIA GeForce RTX 3070' | 'AMD Instinct MI300X OAM' | 'NVIDIA GeForce RTX 4080 SUPER'
  | 'Tesla V100-PCIE-16GB' | 'Tesla V100-SXM2-32GB' | 'NVIDIA RTX 5000 Ada Generation' | 'NVIDIA GeForce RTX 4070 Ti'
  | 'NVIDIA RTX 4000 SFF Ada Generation' | 'NVIDIA GeForce RTX 3090 Ti' | 'NVIDIA RTX A2000' | 'NVIDIA GeForce RTX 4080' | 'NVIDIA A30'
  | 'NVIDIA GeForce RTX 5080' | 'Tesla V100-FHHL-16GB' | 'NVIDIA H200 NVL' | 'Tesla V100-SXM2-16GB'
  | 'NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition' | 'NVIDIA A5000 Ada' | 'Tesla V100-PCIE-32GB' | 'Tesla T4'
>;

export type DataCenterId = Open<
  | 'EU-RO-1' | 'CA-MTL-1' | 'EU-SE-1' | 'US-IL-1' | 'EUR-IS-1' | 'EU-CZ-1' | 'US-TX-3' | 'EUR-IS-2' | 'US-KS-2' | 'US-GA-2'
  | 'US-WA-1' | 'US-TX-1' | 'CA-MTL-3' | 'EU-NL-1' | 'US-TX-4' | 'US-CA-2' | 'US-NC-1' | 'OC-AU-1' | 'US-DE-1' | 'EUR-IS-3'
  | 'CA-MTL-2' | 'AP-JP-1' | 'EUR-NO-1' | 'EU-FR-1' | 'US-KS-3' | 'US-GA-1'
>;

export type CudaVersion = Open<'13.0' | '12.9' | '12.8' | '12.7' | '12.6' | '12.5' | '12.4' | '12.3' | '12.2' | '12.1' | '12.0' | '11.8'>;
export type CpuFlavorId = Open<'cpu3c' | 'cpu3g' | 'cpu3m' | 'cpu5c' | 'cpu5g' | 'cpu5m'>;
/** REST has no `ALL` (GraphQL does): omit `cloudType` to accept either. */
export type CloudType = Open<'SECURE' | 'COMMUNITY'>;
export type RestComputeType = Open<'GPU' | 'CPU'>;
export type RestPodStatus = Open<'RUNNING' | 'EXITED' | 'TERMINATED'>;
export type Priority = Open<'availability' | 'custom'>;
export type ScalerType = Open<'QUEUE_DELAY' | 'REQUEST_COUNT'>;
export type TemplateCategory = Open<'NVIDIA' | 'AMD' | 'CPU'>;
export type BillingBucketSize = Open<'hour' | 'day' | 'week' | 'month' | 'year'>;

/** Environment variables: REST takes and returns an object map (GraphQL uses `[{key, value}]`). */
export type EnvMap = Record<string, string>;

/** A port as `<port>/<http|tcp>`, e.g. `8888/http`. */
export type PortSpec = string;

export interface PodCreateInput {
  name?: string;
  /** Container image; not needed with `templateId`. */
  imageName?: string;
  /** Create from a template: it supplies everything but name, GPU types and count. */
  templateId?: string;
  gpuTypeIds?: GpuTypeId[];
  gpuTypePriority?: Priority;
  /** @default 1 */
  gpuCount?: number;
  cloudType?: CloudType;
  computeType?: RestComputeType;
  /** Cleared when the pod stops. @default 50 */
  containerDiskInGb?: number | null;
  /** Mounted at `volumeMountPath`; kept when the pod stops. @default 20 */
  volumeInGb?: number | null;
  /** @default '/workspace' */
  volumeMountPath?: string;
  containerRegistryAuthId?: string;
  countryCodes?: string[];
  cpuFlavorIds?: CpuFlavorId[];
  cpuFlavorPriority?: Priority;
  dataCenterIds?: DataCenterId[];
  dataCenterPriority?: Priority;
  dockerEntrypoint?: string[];
  dockerStartCmd?: string[];
  env?: EnvMap;
  globalNetworking?: boolean;
  interruptible?: boolean;
  locked?: boolean;
  minDiskBandwidthMBps?: number;
  minDownloadMbps?: number;
  minRAMPerGPU?: number;
  minUploadMbps?: number;
  minVCPUPerGPU?: number;
  networkVolumeId?: string;
  ports?: PortSpec[];
  supportPublicIp?: boolean;
  /** Restricts placement to hosts with these CUDA versions. */
  allowedCudaVersions?: CudaVersion[];
  vcpuCount?: number;
}

/** Editable pod fields. Editing a running pod resets it: everything outside /workspace and network volumes is erased. */
export interface PodUpdateInput {
  name?: string;
  imageName?: string;
  containerDiskInGb?: number | null;
  volumeInGb?: number | null;
  volumeMountPath?: string;
  containerRegistryAuthId?: string;
  dockerEntrypoint?: string[];
  dockerStartCmd?: string[];
  env?: EnvMap;
  globalNetworking?: boolean;
  locked?: boolean;
  ports?: PortSpec[];
}

export interface GpuInfo {
  id?: string;
  count?: number;
  displayName?: string;
  securePrice?: number;
  communityPrice?: number;
  oneMonthPrice?: number;
  threeMonthPrice?: number;
  sixMonthPrice?: number;
  oneWeekPrice?: number;
  communitySpotPrice?: number;
  secureSpotPrice?: number;
}

export interface Machine {
  minPodGpuCount?: number;
  gpuTypeId?: string;
  gpuType?: GpuInfo;
  cpuCount?: number;
  cpuTypeId?: string;
  cpuType?: { id?: string; displayName?: string; cores?: number; threadsPerCore?: number; groupId?: string };
  location?: string;
  dataCenterId?: DataCenterId;
  diskThroughputMBps?: number;
  maxDownloadSpeedMbps?: number;
  maxUploadSpeedMbps?: number;
  supportPublicIp?: boolean;
  secureCloud?: boolean;
  maintenanceStart?: string;
  maintenanceEnd?: string;
  maintenanceNote?: string;
  note?: string;
  /** Normalised to a number. */
  costPerHr?: number;
  /** Normalised to a number. */
  currentPricePerGpu?: number;
  gpuAvailable?: number;
  gpuDisplayName?: string;
}

export interface NetworkVolume {
  id: string;
  name: string;
  /** GB. */
  size: number;
  dataCenterId: DataCenterId;
}

export interface SavingsPlan {
  [field: string]: unknown;
}

/** A pod as REST returns it. Note `image` (GraphQL says `imageName`). */
export interface RestPod {
  id: string;
  name?: string;
  image?: string;
  desiredStatus?: RestPodStatus;
  /** Credits per hour. The server may send it as a string (`"0.74"`); this client always returns a number. */
  costPerHr?: number;
  /** Normalised to a number like `costPerHr`. */
  adjustedCostPerHr?: number;
  gpuCount?: number;
  gpu?: GpuInfo;
  machineId?: string;
  machine?: Machine;
  memoryInGb?: number;
  vcpuCount?: number;
  containerDiskInGb?: number;
  volumeInGb?: number;
  volumeMountPath?: string;
  volumeEncrypted?: boolean;
  env?: EnvMap;
  ports?: PortSpec[];
  /** Internal port → public port, e.g. `{ "22": 10341 }`; empty while the pod initialises. */
  portMappings?: Record<string, number> | null;
  publicIp?: string | null;
  templateId?: string;
  networkVolumeId?: string;
  networkVolume?: NetworkVolume;
  endpointId?: string;
  containerRegistryAuthId?: string;
  dockerEntrypoint?: string[];
  dockerStartCmd?: string[];
  interruptible?: boolean;
  locked?: boolean;
  lastStartedAt?: string;
  lastStatusChange?: string;
  consumerUserId?: string;
  aiApiId?: string;
  cpuFlavorId?: string;
  slsVersion?: number;
  savingsPlans?: SavingsPlan[];
}

export interface PodIncludes {
  includeMachine?: boolean;
  includeNetworkVolume?: boolean;
  includeSavingsPlans?: boolean;
  includeTemplate?: boolean;
  includeWorkers?: boolean;
}

export interface PodListQuery extends PodIncludes {
  computeType?: RestComputeType;
  cpuFlavorId?: CpuFlavorId[];
  dataCenterId?: DataCenterId[];
  desiredStatus?: RestPodStatus;
  endpointId?: string;
  gpuTypeId?: GpuTypeId[];
  id?: string;
  imageName?: string;
  name?: string;
  networkVolumeId?: string;
  templateId?: string;
}

export interface NetworkVolumeCreateInput {
  name: string;
  /** GB, 0–4000. */
  size: number;
  dataCenterId: DataCenterId;
}

export interface NetworkVolumeUpdateInput {
  name?: string;
  /** GB, 0–4000. */
  size?: number;
}

export interface TemplateCreateInput {
  name: string;
  imageName: string;
  category?: TemplateCategory;
  containerDiskInGb?: number;
  containerRegistryAuthId?: string;
  dockerEntrypoint?: string[];
  dockerStartCmd?: string[];
  env?: EnvMap;
  isPublic?: boolean;
  isServerless?: boolean;
  ports?: PortSpec[];
  readme?: string;
  volumeInGb?: number;
  volumeMountPath?: string;
}

export type TemplateUpdateInput = Partial<Omit<TemplateCreateInput, 'category' | 'isServerless'>>;

export interface Template {
  id: string;
  name: string;
  imageName: string;
  category?: string;
  containerDiskInGb?: number;
  containerRegistryAuthId?: string;
  dockerEntrypoint?: string[];
  dockerStartCmd?: string[];
  earned?: number;
  env?: EnvMap;
  isPublic?: boolean;
  isRunpod?: boolean;
  isServerless?: boolean;
  ports?: PortSpec[];
  readme?: string;
  runtimeInMin?: number;
  volumeInGb?: number;
  volumeMountPath?: string;
}

export interface TemplateListQuery {
  includeEndpointBoundTemplates?: boolean;
  includePublicTemplates?: boolean;
  includeRunpodTemplates?: boolean;
}

export interface EndpointCreateInput {
  templateId: string;
  name?: string;
  computeType?: RestComputeType;
  allowedCudaVersions?: CudaVersion[];
  minCudaVersion?: CudaVersion;
  cpuFlavorIds?: CpuFlavorId[];
  dataCenterIds?: DataCenterId[];
  /** Also the default deadline of `runSync` when you pass it there */
  executionTimeoutMs?: number;
  flashboot?: boolean;
  /** @default 1 */
  gpuCount?: number;
  gpuTypeIds?: GpuTypeId[];
  /** Seconds, 1–3600. @default 5 */
  idleTimeout?: number;
  networkVolumeId?: string;
  networkVolumeIds?: string[];
  scalerType?: ScalerType;
  /** @default 4 */
  scalerValue?: number;
  vcpuCount?: number;
  workersMax?: number;
  workersMin?: number;
}

export type EndpointUpdateInput = Partial<Omit<EndpointCreateInput, 'computeType'>>;

export interface Endpoint {
  id: string;
  name?: string;
  templateId?: string;
  template?: Template;
  userId?: string;
  version?: number;
  computeType?: RestComputeType;
  createdAt?: string;
  allowedCudaVersions?: CudaVersion[];
  minCudaVersion?: CudaVersion;
  dataCenterIds?: DataCenterId[];
  env?: EnvMap;
  executionTimeoutMs?: number;
  gpuCount?: number;
  gpuTypeIds?: GpuTypeId[];
  idleTimeout?: number;
  instanceIds?: string[];
  networkVolumeId?: string;
  networkVolumeIds?: string[];
  scalerType?: ScalerType;
  scalerValue?: number;
  workers?: RestPod[];
  workersMax?: number;
  workersMin?: number;
}

export interface EndpointListQuery {
  includeTemplate?: boolean;
  includeWorkers?: boolean;
}

export interface ContainerRegistryAuthCreateInput {
  name: string;
  username: string;
  password: string;
}

/** The platform never returns the credentials. */
export interface ContainerRegistryAuth {
  id: string;
  name: string;
}

interface BillingWindow {
  /** @default 'day' */
  bucketSize?: BillingBucketSize;
  /** ISO date-time or a Date. */
  startTime?: string | Date;
  endTime?: string | Date;
}

export interface PodBillingQuery extends BillingWindow {
  gpuTypeId?: GpuTypeId;
  /** @default 'gpuTypeId' */
  grouping?: Open<'podId' | 'gpuTypeId'>;
  podId?: string;
}

export interface EndpointBillingQuery extends BillingWindow {
  dataCenterId?: DataCenterId[];
  endpointId?: string;
  gpuTypeId?: GpuTypeId[];
  /** @default 'endpointId' */
  grouping?: Open<'endpointId' | 'podId' | 'gpuTypeId'>;
  imageName?: string;
  templateId?: string;
}

export type NetworkVolumeBillingQuery = BillingWindow;

export interface BillingRecord {
  /** USD; normalised to a number. */
  amount: number;
  time: string;
  diskSpaceBilledGb?: number;
  endpointId?: string;
  gpuTypeId?: string;
  podId?: string;
  timeBilledMs?: number;
}

export interface NetworkVolumeBillingRecord {
  /** USD; normalised to a number. */
  amount: number;
  time: string;
  diskSpaceBilledGb?: number;
  highPerformanceStorageAmount?: number;
  highPerformanceStorageDiskSpaceBilledGb?: number;
}

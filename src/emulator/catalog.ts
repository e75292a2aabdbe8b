/** The emulator's world: GPU types with prices, and hosts with free GPUs and a CUDA version. */

export interface GpuTypeSpec {
  id: string;
  displayName: string;
  manufacturer: string;
  memoryInGb: number;
  securePrice: number;
  communityPrice: number;
}

export interface HostSpec {
  id: string;
  gpuTypeId: string;
  /** GPUs on the host. */
  gpuTotal: number;
  cudaVersion: string;
  dataCenterId: string;
  secureCloud: boolean;
  /** Hosts are tried in this order; lower first. */
  priority?: number;
  /** The vCPUs each GPU brings a pod (default 8). */
  vcpuPerGpu?: number;
  /** The RAM in GB each GPU brings a pod (default 62). */
  memoryPerGpuInGb?: number;
}

/** The machine share one GPU of `host` brings a pod: what REST v2's per-GPU minimums filter on. */
export const vcpuPerGpu = (host: Pick<HostSpec, 'vcpuPerGpu'> | undefined): number => host?.vcpuPerGpu ?? 8;
export const memoryPerGpuInGb = (host: Pick<HostSpec, 'memoryPerGpuInGb'> | undefined): number => host?.memoryPerGpuInGb ?? 62;

export const DEFAULT_GPU_TYPES: GpuTypeSpec[] = [
  { id: 'NVIDIA RTX A4000', displayName: 'RTX A4000', manufacturer: 'Nvidia', memoryInGb: 16, securePrice: 0.25, communityPrice: 0.17 },
  { id: 'NVIDIA GeForce RTX 4090', displayName: 'RTX 4090', manufacturer: 'Nvidia', memoryInGb: 24, securePrice: 0.69, communityPrice: 0.34 },
  { id: 'NVIDIA L40S', displayName: 'L40S', manufacturer: 'Nvidia', memoryInGb: 48, securePrice: 0.86, communityPrice: 0.79 },
  { id: 'NVIDIA A100 80GB PCIe', displayName: 'A100 PCIe', manufacturer: 'Nvidia', memoryInGb: 80, securePrice: 1.64, communityPrice: 1.19 },
  { id: 'NVIDIA H100 80GB HBM3', displayName: 'H100 SXM', manufacturer: 'Nvidia', memoryInGb: 80, securePrice: 2.99, communityPrice: 2.69 },
  { id: 'NVIDIA B200', displayName: 'B200', manufacturer: 'Nvidia', memoryInGb: 180, securePrice: 5.99, communityPrice: 5.99 },
];

/**
 * Note the two RTX 4090 hosts: the first runs CUDA 12.4, so an image built for CUDA 12.8 fails
 * there unless `allowedCudaVersions` steers it to the second, as on the real platform.
 */
export const DEFAULT_HOSTS: HostSpec[] = [
  { id: 'host-a4000-community', gpuTypeId: 'NVIDIA RTX A4000', gpuTotal: 8, cudaVersion: '12.4', dataCenterId: 'EU-RO-1', secureCloud: false },
  { id: 'host-a4000-secure', gpuTypeId: 'NVIDIA RTX A4000', gpuTotal: 8, cudaVersion: '12.8', dataCenterId: 'US-TX-3', secureCloud: true },
  { id: 'host-4090-cuda124', gpuTypeId: 'NVIDIA GeForce RTX 4090', gpuTotal: 4, cudaVersion: '12.4', dataCenterId: 'EU-RO-1', secureCloud: true },
  { id: 'host-4090-cuda128', gpuTypeId: 'NVIDIA GeForce RTX 4090', gpuTotal: 4, cudaVersion: '12.8', dataCenterId: 'US-TX-3', secureCloud: true },
  { id: 'host-l40s', gpuTypeId: 'NVIDIA L40S', gpuTotal: 8, cudaVersion: '12.8', dataCenterId: 'EU-SE-1', secureCloud: true },
  { id: 'host-a100', gpuTypeId: 'NVIDIA A100 80GB PCIe', gpuTotal: 2, cudaVersion: '12.6', dataCenterId: 'US-KS-2', secureCloud: false },
  { id: 'host-h100', gpuTypeId: 'NVIDIA H100 80GB HBM3', gpuTotal: 1, cudaVersion: '12.8', dataCenterId: 'US-GA-2', secureCloud: true },
];

/** Storage prices, USD per GB per month (30 days). */
export const VOLUME_PRICE_RUNNING = 0.1;
export const VOLUME_PRICE_STOPPED = 0.2;
export const NETWORK_VOLUME_PRICE = 0.07;
/** Serverless price per GPU-second, USD. */
export const SERVERLESS_PRICE_PER_SECOND = 0.00031;

export const MS_PER_HOUR = 3_600_000;
export const MS_PER_MONTH = 30 * 24 * MS_PER_HOUR;

/** The CUDA version an image needs, read from tags like `cuda12.8.1` or `cu128`; undefined when it does not say. */
export function requiredCudaVersion(imageName: string | undefined | null): string | undefined {
  if (!imageName) return undefined;
  const long = /cuda[-_]?(\d+)\.(\d+)/i.exec(imageName);
  if (long) return `${long[1]}.${long[2]}`;
  const short = /\bcu(\d{2})(\d)\b/i.exec(imageName);
  return short ? `${short[1]}.${short[2]}` : undefined;
}

export function compareCuda(a: string, b: string): number {
  const [am = 0, an = 0] = a.split('.').map(Number);
  const [bm = 0, bn = 0] = b.split('.').map(Number);
  return am - bm || an - bn;
}

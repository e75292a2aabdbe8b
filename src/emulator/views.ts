import { memoryPerGpuInGb, vcpuPerGpu, type HostSpec } from './catalog.js';
import type { EmulatedPod, Platform } from './platform.js';

/** The vCPUs a GPU pod's machine share gives it (GraphQL `vcpuCount`, REST v2 `gpu.vcpuCount`). */
export const podVcpuCount = (pod: { gpuCount: number }, host?: HostSpec): number => Math.max(2, pod.gpuCount * vcpuPerGpu(host));
/** The RAM in GB a GPU pod's machine share gives it (GraphQL `memoryInGb`, REST v2 `gpu.memory`). */
export const podMemoryInGb = (pod: { gpuCount: number }, host?: HostSpec): number => Math.max(8, pod.gpuCount * memoryPerGpuInGb(host));

export function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

interface MappedPort {
  ip: string;
  isIpPublic: boolean;
  privatePort: number;
  publicPort: number;
  type: string;
}

export function mappedPorts(pod: EmulatedPod): MappedPort[] {
  const h = hash(pod.id);
  return pod.ports.map((spec, i) => {
    const [port = '0', type = 'http'] = spec.split('/');
    const isTcp = type === 'tcp';
    return {
      ip: isTcp ? `203.0.113.${h % 250}` : `100.65.${(h >>> 8) % 250}.${h % 250}`,
      isIpPublic: isTcp,
      privatePort: Number(port),
      publicPort: 40_000 + ((h + i * 7919) % 20_000),
      type,
    };
  });
}

/** A pod in the GraphQL `Pod` shape. */
export function graphqlPod(platform: Platform, pod: EmulatedPod): Record<string, unknown> {
  const host = platform.host(pod.hostId);
  const up = platform.isUp(pod);
  const uptimeInSeconds = up ? Math.floor((platform.clock.now() - pod.lastStartedAt - platform.podStartupMs) / 1000) : 0;
  return {
    id: pod.id,
    name: pod.name,
    imageName: pod.imageName,
    env: Object.entries(pod.env).map(([k, v]) => `${k}=${v}`),
    machineId: host.id,
    desiredStatus: pod.desiredStatus,
    costPerHr: platform.podCostPerHr(pod),
    adjustedCostPerHr: platform.podCostPerHr(pod),
    gpuCount: pod.gpuCount,
    vcpuCount: podVcpuCount(pod, host),
    memoryInGb: podMemoryInGb(pod, host),
    containerDiskInGb: pod.containerDiskInGb,
    volumeInGb: pod.volumeInGb,
    volumeMountPath: pod.volumeMountPath,
    dockerArgs: pod.dockerArgs ?? '',
    ports: pod.ports.join(','),
    templateId: pod.templateId ?? null,
    networkVolumeId: pod.networkVolumeId ?? null,
    lastStatusChange: pod.lastStatusChange,
    uptimeSeconds: uptimeInSeconds,
    createdAt: new Date(pod.createdAt).toISOString(),
    machine: {
      podHostId: `${pod.id}-${hash(host.id).toString(16).slice(0, 8)}`,
      gpuTypeId: host.gpuTypeId,
      gpuDisplayName: platform.gpuTypes.find((t) => t.id === host.gpuTypeId)?.displayName ?? host.gpuTypeId,
      dataCenterId: host.dataCenterId,
      location: host.dataCenterId,
      secureCloud: host.secureCloud,
    },
    runtime: up
      ? {
          uptimeInSeconds,
          gpus: Array.from({ length: pod.gpuCount }, (_, i) => ({ id: `GPU-${pod.id}-${i}`, gpuUtilPercent: 0, memoryUtilPercent: 0 })),
          container: { cpuPercent: 1, memoryPercent: 3 },
          ports: mappedPorts(pod),
        }
      : null,
  };
}

/** A pod in the REST `Pod` shape. `costPerHr` goes out as a string, as the real server sometimes sends it. */
export function restPod(platform: Platform, pod: EmulatedPod): Record<string, unknown> {
  const host = platform.host(pod.hostId);
  const up = platform.isUp(pod);
  const type = platform.gpuTypes.find((t) => t.id === host.gpuTypeId);
  const cost = platform.podCostPerHr(pod);
  return {
    id: pod.id,
    name: pod.name,
    image: pod.imageName,
    desiredStatus: pod.desiredStatus,
    costPerHr: String(cost),
    adjustedCostPerHr: cost,
    gpuCount: pod.gpuCount,
    gpu: type ? { id: type.id, count: pod.gpuCount, displayName: type.displayName, securePrice: type.securePrice, communityPrice: type.communityPrice } : undefined,
    machineId: host.id,
    machine: { gpuTypeId: host.gpuTypeId, dataCenterId: host.dataCenterId, location: host.dataCenterId, secureCloud: host.secureCloud, gpuDisplayName: type?.displayName, costPerHr: String(platform.pricePerGpu(host)) },
    memoryInGb: podMemoryInGb(pod, host),
    vcpuCount: podVcpuCount(pod, host),
    containerDiskInGb: pod.containerDiskInGb,
    volumeInGb: pod.volumeInGb,
    volumeMountPath: pod.volumeMountPath,
    volumeEncrypted: false,
    env: pod.env,
    ports: pod.ports,
    portMappings: up ? Object.fromEntries(mappedPorts(pod).map((p) => [String(p.privatePort), p.publicPort])) : {},
    publicIp: up && pod.ports.some((p) => p.endsWith('/tcp')) ? `203.0.113.${hash(pod.id) % 250}` : null,
    templateId: pod.templateId,
    networkVolumeId: pod.networkVolumeId,
    dockerEntrypoint: pod.dockerEntrypoint ?? [],
    dockerStartCmd: pod.dockerStartCmd ?? [],
    containerRegistryAuthId: pod.containerRegistryAuthId,
    interruptible: false,
    locked: false,
    lastStartedAt: new Date(pod.lastStartedAt).toISOString(),
    lastStatusChange: pod.lastStatusChange,
  };
}

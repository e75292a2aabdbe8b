// What a pod's machine share and ports are, derived from its id and host: read by the REST v2
// views (rest-v2/pods.ts), the GraphQL views (views.ts) and the exec table's pod facts, so each says the same.
import { memoryPerGpuInGb, vcpuPerGpu, type HostSpec } from './catalog.js';
import type { EmulatedPod } from './platform.js';

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

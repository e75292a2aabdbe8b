import { Hono } from 'hono';
import type { EmulatorEnv } from './context.js';
import { readContractBody } from './contract.js';
import type { Account, EmulatedPod } from '../platform.js';
import { podMemoryInGb, podVcpuCount } from '../pod-facts.js';
import { accountOf, extrasOf, type RestV2Deps } from './context.js';
import { findPod, podStatus } from './pods.js';
import { problem } from './problem.js';
import { containerEnv } from './secrets.js';
import type { ExecPodFacts } from './exec-program.js';

export { ExecTable } from './exec-table.js';
export type { ExecCommand, ExecContext, ExecPodFacts, ExecResult, ExecRunContext } from './exec-program.js';

export function execRoutes(deps: RestV2Deps): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();
  app.post('/pods/:id/exec', async (c) => {
    const pod = findPod(deps, c);
    const body = await readContractBody<{ command: string[]; timeoutSeconds?: number; cwd?: string }>(c.req, 'ExecPodRequest');
    const status = podStatus(deps.platform, pod);
    if (status !== 'RUNNING') throw problem(409, `Pod ${pod.id} is ${status}; commands run only in a RUNNING pod.`);
    const account = accountOf(c);
    const env = containerEnv(account, pod.env);
    return c.json(await deps.exec.run(body.command, { podId: pod.id, env, cwd: body.cwd ?? '/', pod: podFacts(deps, account, pod) }));
  });
  return app;
}

/** The pod as its programs see it, from the same state the API answers from. */
function podFacts(deps: RestV2Deps, account: Account, pod: EmulatedPod): ExecPodFacts {
  const { platform } = deps;
  const host = platform.host(pod.hostId);
  const gpu = pod.computeType === 'GPU';
  const files = platform.files(account, pod.id);
  const cpu = extrasOf(pod).cpu;
  return {
    id: pod.id,
    name: pod.name,
    imageName: pod.imageName,
    gpuTypeId: gpu ? pod.gpuTypeId : undefined,
    gpuCount: gpu ? pod.gpuCount : 0,
    gpuMemoryInGb: platform.gpuTypes.find((t) => t.id === pod.gpuTypeId)?.memoryInGb ?? 0,
    cudaVersion: gpu ? host.cudaVersion : undefined,
    vcpuCount: cpu?.vcpuCount ?? podVcpuCount(pod, host),
    memoryInGb: cpu?.memory ?? podMemoryInGb(pod, host),
    containerDiskInGb: pod.containerDiskInGb,
    volumeInGb: pod.volumeInGb,
    volumeMountPath: pod.volumeMountPath,
    networkVolume: pod.networkVolumeId !== undefined,
    files: { ...files.containerDisk, ...files.volume },
    startedAt: pod.lastStartedAt,
    now: platform.clock.now(),
  };
}

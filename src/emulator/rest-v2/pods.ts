import { Hono } from 'hono';
import { compareCuda } from '../catalog.js';
import { notFound } from '../errors.js';
import type { Account, DeployRequest, EmulatedPod, PodEdit, Platform } from '../platform.js';
import type { EmulatorEnv } from './context.js';
import { hash, mappedPorts, podMemoryInGb, podVcpuCount } from '../pod-facts.js';
import { cpuFlavor } from './catalog.js';
import { commandOf, type ContainerFields } from './container.js';
import { readContractBody } from './contract.js';
import { accountOf, extrasOf, idParam, iso, POD_CREATE_MAX_BYTES, type RestV2Deps, type V2Context } from './context.js';
import { sseLogs } from './logs.js';
import { cutPage, newestFirst } from './pages.js';
import { templateFor } from '../public-templates.js';
import { problem } from './problem.js';

export type PodStatus = 'PROVISIONING' | 'STARTING' | 'RUNNING' | 'EXITED' | 'ERROR' | 'TERMINATED';
export type PodAction = 'start' | 'stop' | 'restart' | 'terminate';

const ACTIONS: Record<PodStatus, PodAction[]> = {
  PROVISIONING: ['stop', 'terminate'],
  STARTING: ['stop', 'terminate'],
  RUNNING: ['stop', 'restart', 'terminate'],
  EXITED: ['start', 'terminate'],
  ERROR: ['start', 'terminate'],
  TERMINATED: [],
};

/** The observed state, from the requested one and the clock: a first start provisions, then starts. */
export function podStatus(platform: Platform, pod: EmulatedPod): PodStatus {
  if (pod.desiredStatus === 'TERMINATED') return 'TERMINATED';
  if (pod.desiredStatus === 'EXITED') return 'EXITED';
  const elapsed = platform.clock.now() - pod.lastStartedAt;
  if (elapsed >= platform.podStartupMs) return 'RUNNING';
  return pod.lastStartedAt === pod.createdAt && elapsed < platform.podStartupMs / 2 ? 'PROVISIONING' : 'STARTING';
}

type Mounts = { persistent?: { size: number; path: string }; network?: Array<{ volumeId: string; path: string }> };

function mountsOf(pod: EmulatedPod): Mounts {
  if (pod.networkVolumeId) return { network: [{ volumeId: pod.networkVolumeId, path: pod.volumeMountPath }] };
  if (pod.volumeInGb > 0) return { persistent: { size: pod.volumeInGb, path: pod.volumeMountPath } };
  return {};
}

/** A pod in REST v2's `Pod` shape. */
export function podView(platform: Platform, pod: EmulatedPod): Record<string, unknown> {
  const host = platform.host(pod.hostId);
  const status = podStatus(platform, pod);
  const up = status === 'RUNNING' && platform.isUp(pod);
  const extras = extrasOf(pod);
  const ports = up ? mappedPorts(pod) : [];
  const ssh = ports.find((p) => p.privatePort === 22 && p.type === 'tcp');
  const username = `${pod.id}-${hash(host.id).toString(16).slice(0, 8)}`;
  return {
    id: pod.id,
    name: pod.name,
    status,
    actions: ACTIONS[status],
    image: pod.imageName,
    args: extras.args ?? pod.dockerArgs ?? '',
    entrypoint: pod.dockerEntrypoint ?? [],
    cmd: pod.dockerStartCmd ?? [],
    disk: pod.containerDiskInGb,
    mounts: mountsOf(pod),
    ports: pod.ports,
    env: pod.env,
    registry: pod.containerRegistryAuthId ?? null,
    ...(pod.computeType === 'CPU'
      ? { cpu: extras.cpu ?? { id: 'cpu3c', vcpuCount: 2, memory: 4 } }
      : { gpu: { id: pod.gpuTypeId, count: pod.requestedGpuCount, vcpuCount: podVcpuCount({ gpuCount: pod.requestedGpuCount }, host), memory: podMemoryInGb({ gpuCount: pod.requestedGpuCount }, host) } }),
    cloud: host.secureCloud ? 'SECURE' : 'COMMUNITY',
    dataCenterId: host.dataCenterId,
    cudaVersion: pod.computeType === 'CPU' ? null : host.cudaVersion,
    ssh: {
      // The contract: null only until the pod has a machine (its create answer already carries it).
      proxy: status !== 'TERMINATED' ? { host: 'ssh.runpod.io', port: 22, username, command: `ssh ${username}@ssh.runpod.io` } : null,
      direct: up && ssh ? { host: ssh.ip, port: ssh.publicPort, username: 'root', command: `ssh root@${ssh.ip} -p ${ssh.publicPort}` } : null,
    },
    ...(extras.cluster && { cluster: { id: extras.cluster.id, rank: extras.cluster.rank } }),
    template: pod.templateId ?? null,
    cost: platform.podCostPerHr(pod),
    locked: extras.locked ?? false,
    globalNetworking: { enabled: extras.globalNetworking ?? false },
    runtime: up
      ? {
          uptime: Math.floor((platform.clock.now() - pod.lastStartedAt - platform.podStartupMs) / 1000),
          gpus: Array.from({ length: pod.gpuCount }, () => ({ util: 0, memoryUtil: 0 })),
          cpu: { util: 1 },
          memory: { util: 3 },
          ports: ports.map((p) => ({ private: p.privatePort, public: p.publicPort, type: p.type, ip: p.ip })),
        }
      : null,
    createdAt: iso(pod.createdAt),
    startedAt: iso(pod.lastStartedAt),
  };
}

interface CreatePodBody extends ContainerFields {
  name: string;
  templateId?: string;
  cloud?: 'SECURE' | 'COMMUNITY';
  gpu?: { id: string; count?: number; allowedCudaVersions?: string[]; minCudaVersion?: string; minRamPerGpu?: number; minVcpuCountPerGpu?: number };
  cpu?: { id: string; vcpuCount: number };
  dataCenterIds?: string[];
  globalNetworking?: boolean;
  mounts?: Mounts;
  startJupyter?: boolean;
  startSsh?: boolean;
}

interface UpdatePodBody extends ContainerFields {
  name?: string;
  templateId?: string;
  globalNetworking?: boolean;
  locked?: boolean;
  mounts?: Mounts;
}

const isPowerOfTwo = (n: number) => n >= 2 && (n & (n - 1)) === 0;

/** The CUDA versions a GPU request accepts, from its list and its minimum, over the hosts that exist. */
function cudaVersionsFor(platform: Platform, gpu: NonNullable<CreatePodBody['gpu']>): string[] | undefined {
  if (!gpu.minCudaVersion) return gpu.allowedCudaVersions;
  const known = [...new Set(platform.hosts.map((h) => h.cudaVersion))];
  const base = gpu.allowedCudaVersions?.length ? gpu.allowedCudaVersions : known;
  const versions = base.filter((v) => compareCuda(v, gpu.minCudaVersion!) >= 0);
  // Nothing left means nothing can match: a version no host has keeps placement failing with no capacity.
  return versions.length > 0 ? versions : ['0.0-none'];
}

export function createPod(deps: RestV2Deps, c: V2Context, body: CreatePodBody, extras: { cluster?: { id: string; rank: number } } = {}): EmulatedPod {
  const { platform } = deps;
  const account = accountOf(c);
  if (!!body.gpu === !!body.cpu) throw problem(400, 'Exactly one of gpu or cpu must be set.');
  if (body.cpu && body.mounts?.persistent) throw problem(400, 'mounts.persistent is not available for CPU pods; use a network volume.');
  if (body.mounts?.persistent && body.mounts.network?.length) throw problem(400, 'Set mounts.persistent or mounts.network, not both.');
  const flavor = body.cpu ? cpuFlavor(body.cpu.id) : undefined;
  if (body.cpu) {
    if (!flavor) throw problem(400, `Unknown CPU flavor '${body.cpu.id}'.`);
    if (!isPowerOfTwo(body.cpu.vcpuCount) || body.cpu.vcpuCount < flavor.vcpu.min || body.cpu.vcpuCount > flavor.vcpu.max) {
      throw problem(400, `cpu.vcpuCount must be a power of two from ${flavor.vcpu.min} to ${flavor.vcpu.max}.`);
    }
  }
  if (body.gpu && !platform.gpuTypes.some((t) => t.id === body.gpu!.id)) throw problem(400, `Unknown GPU type '${body.gpu.id}'.`);
  if (body.registry && !account.registryAuths.has(body.registry)) throw notFound('registry', body.registry);
  const template = body.templateId ? templateFor(account, body.templateId) : undefined;
  if (body.templateId && !template) throw notFound('template', body.templateId);
  const network = body.mounts?.network?.[0];
  let dataCenterIds = body.dataCenterIds;
  if (network) {
    // A network volume lives in one data centre: the pod goes there.
    const volume = account.networkVolumes.get(network.volumeId);
    if (!volume) throw notFound('network volume', network.volumeId);
    if (dataCenterIds?.length && !dataCenterIds.includes(volume.dataCenterId)) throw problem(400, `Network volume ${volume.id} is in ${volume.dataCenterId}, outside dataCenterIds.`);
    dataCenterIds = [volume.dataCenterId];
  }
  const command = commandOf(body);
  const request: DeployRequest = {
    name: body.name,
    imageName: body.image,
    templateId: body.templateId,
    gpuTypeIds: body.gpu ? [body.gpu.id] : [],
    gpuCount: body.gpu?.count ?? 1,
    computeType: body.cpu ? 'CPU' : 'GPU',
    cloudType: body.cloud ?? 'SECURE',
    dataCenterIds,
    allowedCudaVersions: body.gpu ? cudaVersionsFor(platform, body.gpu) : undefined,
    minVcpuPerGpu: body.gpu?.minVcpuCountPerGpu,
    minMemoryPerGpuInGb: body.gpu?.minRamPerGpu,
    containerDiskInGb: body.disk,
    // No default volume and no default ports in v2; a template still brings its own.
    volumeInGb: body.mounts?.persistent?.size ?? (template ? undefined : 0),
    volumeMountPath: body.mounts?.persistent?.path ?? network?.path,
    networkVolumeId: network?.volumeId,
    env: body.env,
    ports: body.ports ?? (template ? undefined : []),
    dockerArgs: body.args,
    dockerEntrypoint: command.entrypoint,
    dockerStartCmd: command.cmd,
    containerRegistryAuthId: body.registry ?? undefined,
  };
  const pod = platform.deploy(account, request);
  Object.assign(extrasOf(pod), {
    args: body.args,
    startSsh: body.startSsh,
    startJupyter: body.startJupyter,
    globalNetworking: body.globalNetworking,
    ...(body.cpu && flavor && { cpu: { id: flavor.id, vcpuCount: body.cpu.vcpuCount, memory: Math.round(flavor.ramGbPerVcpu * body.cpu.vcpuCount) } }),
    ...extras,
  });
  return pod;
}

/**
 * The limit applies to the deployment request built from the body and its template too: the
 * template's settings, with the body's over them (env merged per key), must fit as well.
 */
function checkExpandedSize(account: Account, body: CreatePodBody): void {
  const template = body.templateId ? templateFor(account, body.templateId) : undefined;
  if (!template) return;
  const expanded = { ...template, ...body, env: { ...template.env, ...body.env } };
  const size = new TextEncoder().encode(JSON.stringify(expanded)).byteLength;
  if (size > POD_CREATE_MAX_BYTES) throw problem(413, `The deployment request built from this body and template ${template.id} is ${size} bytes, over the ${POD_CREATE_MAX_BYTES} byte limit.`);
}

export function findPod(deps: RestV2Deps, c: V2Context, id = idParam(c)): EmulatedPod {
  const pod = deps.platform.getPod(accountOf(c), id);
  if (!pod) throw notFound('pod', id);
  return pod;
}

function checkUnlocked(pod: EmulatedPod, what: string): void {
  if (extrasOf(pod).locked) throw problem(409, `Pod ${pod.id} is locked; unlock it before you ${what}.`);
}

function checkNotInCluster(pod: EmulatedPod): void {
  const cluster = extrasOf(pod).cluster;
  if (cluster) throw problem(409, `Pod ${pod.id} belongs to cluster ${cluster.id}; delete the cluster instead.`);
}

export function podRoutes(deps: RestV2Deps): Hono<EmulatorEnv> {
  const { platform } = deps;
  const app = new Hono<EmulatorEnv>();

  app.get('/pods', (c) => {
    const withClusters = c.req.query('includeClusterPods') === 'true';
    // Cluster members are taken out after the page is cut, so a page can be short, as in production.
    const { items, pagination } = cutPage(c, newestFirst(platform.listPods(accountOf(c))), { params: { includeClusterPods: withClusters }, keep: (p) => withClusters || !extrasOf(p).cluster });
    return c.json({ pods: items.map((p) => podView(platform, p)), pagination });
  });

  app.post('/pods', async (c) => {
    const body = await readContractBody<CreatePodBody>(c.req, 'CreatePodRequest');
    checkExpandedSize(accountOf(c), body);
    return c.json(podView(platform, createPod(deps, c, body)), 201);
  });

  app.get('/pods/:id', (c) => c.json(podView(platform, findPod(deps, c))));

  app.patch('/pods/:id', async (c) => {
    const pod = findPod(deps, c);
    const body = await readContractBody<UpdatePodBody>(c.req, 'UpdatePodRequest');
    const { locked, ...rest } = body;
    if (Object.keys(rest).length > 0) checkUnlocked(pod, 'edit it');
    if (body.templateId && !templateFor(accountOf(c), body.templateId)) throw notFound('template', body.templateId);
    if (body.registry && !accountOf(c).registryAuths.has(body.registry)) throw notFound('registry', body.registry);
    if (body.mounts?.network) throw problem(400, 'A network volume can only be attached when the pod is created.');
    // A new name is only a label; anything about the container recreates it, as on the platform.
    if (body.name !== undefined) pod.name = body.name;
    const edit: PodEdit = {
      imageName: body.image,
      containerDiskInGb: body.disk,
      volumeInGb: body.mounts?.persistent?.size,
      volumeMountPath: body.mounts?.persistent?.path,
      env: body.env,
      ports: body.ports,
      containerRegistryAuthId: body.registry ?? undefined,
      ...(({ entrypoint, cmd }) => ({ dockerEntrypoint: entrypoint, dockerStartCmd: cmd }))(commandOf(body)),
    };
    const touchesContainer = Object.values(edit).some((v) => v !== undefined) || body.args !== undefined;
    if (touchesContainer) platform.updatePod(accountOf(c), pod.id, edit);
    const extras = extrasOf(pod);
    if (body.args !== undefined) extras.args = body.args;
    if (body.globalNetworking !== undefined) extras.globalNetworking = body.globalNetworking;
    if (locked !== undefined) extras.locked = locked;
    if (body.templateId !== undefined) pod.templateId = body.templateId;
    if (body.registry === null) pod.containerRegistryAuthId = undefined;
    return c.json(podView(platform, pod));
  });

  app.delete('/pods/:id', (c) => {
    const pod = findPod(deps, c);
    checkUnlocked(pod, 'delete it');
    checkNotInCluster(pod);
    platform.terminatePod(accountOf(c), pod.id);
    return c.body(null, 204);
  });

  app.get('/pods/:id/logs', (c) => {
    const pod = findPod(deps, c);
    const account = accountOf(c);
    return sseLogs(c, platform.clock, {
      // The pod's own lines, even once it is terminated: the last ones say so, then the stream ends.
      lines: () => platform.podLogs(pod),
      live: () => platform.getPod(account, pod.id)?.desiredStatus === 'RUNNING',
      nextAt: () => platform.nextPodLogAt(pod),
      onChange: (listener) => platform.onPodLog(listener),
    }, platform.lifetime);
  });

  app.post('/pods/:id/action', async (c) => {
    const pod = findPod(deps, c);
    const { action } = await readContractBody<{ action: PodAction }>(c.req, 'PodActionRequest');
    const status = podStatus(platform, pod);
    const valid = ACTIONS[status];
    if (!valid.includes(action)) {
      throw problem(409, `Action '${action}' is not valid for pod ${pod.id} in status ${status}; valid actions: ${valid.join(', ') || 'none'}.`);
    }
    if (action === 'terminate' || action === 'stop') checkUnlocked(pod, action === 'stop' ? 'stop it' : 'terminate it');
    const account = accountOf(c);
    switch (action) {
      case 'terminate':
        checkNotInCluster(pod);
        platform.terminatePod(account, pod.id);
        return c.body(null, 204);
      case 'start':
        platform.startPod(account, pod.id);
        break;
      case 'stop':
        platform.stopPod(account, pod.id);
        break;
      case 'restart':
        platform.restartPod(account, pod.id);
        break;
    }
    return c.json(podView(platform, pod));
  });

  return app;
}

/** Pods of a cluster, for the clusters module. */
export const clusterPods = (deps: RestV2Deps, c: V2Context, clusterId: string): EmulatedPod[] =>
  deps.platform.listPods(accountOf(c)).filter((p) => extrasOf(p).cluster?.id === clusterId);


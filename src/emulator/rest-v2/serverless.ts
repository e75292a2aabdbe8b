import { Hono } from 'hono';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import { ENDPOINT_DEFAULTS, type Account, type EmulatedEndpoint, type Platform, type PodLogLine } from '../platform.js';
import type { EmulatorEnv } from './context.js';
import { cpuFlavor } from './catalog.js';
import { readContractBody } from './contract.js';
import { accountOf, idParam, iso, type RestV2Deps, type V2Context } from './context.js';
import { sseLogs } from './logs.js';
import { cutPage, newestFirst } from './pages.js';
import type { ContainerFields } from './container.js';
import { problem } from './problem.js';

type Scaling = { type: 'QUEUE_DELAY'; queueDelay: number } | { type: 'REQUEST_COUNT'; requestCount: number };

export interface EndpointBody extends ContainerFields {
  name?: string;
  type?: 'QUEUE' | 'LOAD_BALANCER';
  templateId?: string;
  gpu?: { pools: string[]; excludedTypes?: string[]; count?: number; allowedCudaVersions?: string[]; minCudaVersion?: string };
  cpu?: Array<{ id: string; vcpuCount: number }>;
  dataCenterIds?: string[];
  flashboot?: string;
  networkVolumes?: string[];
  scaling?: Scaling;
  timeout?: number;
  workers?: { min?: number; max?: number; idleTimeout?: number };
}

/** What REST v2 keeps on an endpoint beside the fields the queue reads. */
interface EndpointV2 {
  type: 'QUEUE' | 'LOAD_BALANCER';
  image?: string | undefined;
  args: string;
  disk: number;
  env: Record<string, string>;
  ports: string[];
  registry: string | null;
  gpu: { pools: string[]; excludedTypes: string[]; count: number; allowedCudaVersions: string[]; minCudaVersion: string | null } | null;
  cpu?: Array<{ id: string; vcpuCount: number }> | undefined;
  dataCenterIds: string[];
  networkVolumes: string[];
  flashboot: string;
  version: number;
  releases: Array<{ id: string; version: number; createdAt: number; diff: Array<{ field: string; old: unknown; new: unknown }> }>;
}

const POOL_OF_MEMORY: Record<number, string> = { 16: 'AMPERE_16', 24: 'ADA_24', 48: 'ADA_48_PRO', 80: 'AMPERE_80', 180: 'BLACKWELL_180' };

function v2Of(platform: Platform, e: EmulatedEndpoint): EndpointV2 {
  if (!e.v2) {
    // Endpoints made another way (built-ins, GraphQL, v1) get a v2 face on first sight.
    const pools = e.gpuTypeIds.map((id) => POOL_OF_MEMORY[platform.gpuTypes.find((t) => t.id === id)?.memoryInGb ?? 0] ?? id);
    e.v2 = {
      type: 'QUEUE',
      args: '',
      disk: 20,
      env: {},
      ports: [],
      registry: null,
      gpu: e.computeType === 'CPU' ? null : { pools: pools.length ? pools : ['AMPERE_16'], excludedTypes: [], count: e.gpuCount, allowedCudaVersions: [], minCudaVersion: null },
      dataCenterIds: [],
      networkVolumes: [],
      flashboot: 'OFF',
      version: 1,
      releases: [{ id: newId(10), version: 1, createdAt: e.createdAt, diff: [] }],
    } satisfies EndpointV2;
  }
  return e.v2 as EndpointV2;
}

function scalingOf(e: EmulatedEndpoint): Scaling {
  return e.scalerType === 'REQUEST_COUNT' ? { type: 'REQUEST_COUNT', requestCount: Math.max(1, Math.round(e.scalerValue)) } : { type: 'QUEUE_DELAY', queueDelay: Math.max(0.5, e.scalerValue) };
}

function endpointView(deps: RestV2Deps, origin: string, e: EmulatedEndpoint): Record<string, unknown> {
  const v2 = v2Of(deps.platform, e);
  const queue = `${deps.queueBase(origin)}/${encodeURIComponent(e.id)}`;
  const lb = deps.loadBalancedBase(origin, e.id);
  return {
    id: e.id,
    name: e.name,
    type: v2.type,
    ...(v2.image !== undefined && { image: v2.image }),
    args: v2.args,
    disk: v2.disk,
    env: v2.env,
    ports: v2.ports,
    registry: v2.registry,
    ...(e.templateId && !e.templateId.startsWith('builtin-') && { templateId: e.templateId }),
    requestUrls:
      v2.type === 'QUEUE'
        ? { run: `${queue}/run`, runSync: `${queue}/runsync`, status: `${queue}/status`, stream: `${queue}/stream`, cancel: `${queue}/cancel`, retry: `${queue}/retry`, purgeQueue: `${queue}/purge-queue`, health: `${queue}/health` }
        : { base: lb, health: `${lb}/ping` },
    gpu: v2.gpu,
    ...(v2.cpu && { cpu: v2.cpu.map((c) => ({ ...c, memory: Math.round((cpuFlavor(c.id)?.ramGbPerVcpu ?? 2) * c.vcpuCount) })) }),
    workers: { min: e.workersMin, max: e.workersMax, idleTimeout: Math.min(3600, Math.max(1, e.idleTimeout)) },
    scaling: scalingOf(e),
    dataCenterIds: v2.dataCenterIds,
    networkVolumes: v2.networkVolumes,
    timeout: e.executionTimeoutMs ?? 300_000,
    flashboot: v2.flashboot,
    createdAt: iso(e.createdAt),
  };
}

function checkReferences(account: Account, body: EndpointBody): void {
  if (body.templateId && !account.templates.has(body.templateId)) throw notFound('template', body.templateId);
  for (const id of body.networkVolumes ?? []) if (!account.networkVolumes.has(id)) throw notFound('network volume', id);
  if (body.registry && !account.registryAuths.has(body.registry)) throw notFound('registry', body.registry);
  if (body.gpu && body.cpu) throw problem(400, 'Set gpu or cpu, not both.');
  for (const cpu of body.cpu ?? []) if (!cpuFlavor(cpu.id)) throw problem(400, `Unknown CPU flavor '${cpu.id}'.`);
  if (body.workers?.min !== undefined && body.workers.max !== undefined && body.workers.min > body.workers.max) throw problem(400, 'workers.min must not exceed workers.max.');
}

function gpuTypeIdsFor(platform: Platform, pools: readonly string[]): string[] {
  const ids = platform.gpuTypes.filter((t) => pools.includes(POOL_OF_MEMORY[t.memoryInGb] ?? t.id) || pools.includes(t.id)).map((t) => t.id);
  return ids.length ? ids : [...ENDPOINT_DEFAULTS.gpuTypeIds];
}

/**
 * A new endpoint of `account` from a create body (already checked against the contract), as
 * `POST /v2/serverless` makes it. It runs the handler named like the endpoint or like its image
 * (`…/echo:1` runs `echo`), else `echo`.
 */
export function buildEndpoint(platform: Platform, handlers: ReadonlySet<string>, account: Account, body: EndpointBody): EmulatedEndpoint {
  const template = body.templateId ? account.templates.get(body.templateId) : undefined;
  const image = body.image ?? template?.imageName;
  const imageName = image?.split('/').pop()?.split(':')[0];
  const name = body.name!;
  const now = platform.clock.now();
  const id = newId(14);
  const gpu = body.cpu ? null : { pools: body.gpu?.pools ?? ['AMPERE_16'], excludedTypes: body.gpu?.excludedTypes ?? [], count: body.gpu?.count ?? 1, allowedCudaVersions: body.gpu?.allowedCudaVersions ?? [], minCudaVersion: body.gpu?.minCudaVersion ?? null };
  const v2: EndpointV2 = {
    type: body.type ?? 'QUEUE',
    image: body.image,
    args: body.args ?? '',
    disk: body.disk ?? 20,
    env: body.env ?? {},
    ports: body.ports ?? [],
    registry: body.registry ?? null,
    gpu,
    cpu: body.cpu,
    dataCenterIds: body.dataCenterIds ?? [],
    networkVolumes: body.networkVolumes ?? [],
    flashboot: body.flashboot ?? 'OFF',
    version: 1,
    releases: [{ id: newId(10), version: 1, createdAt: now, diff: [] }],
  };
  const scaling = body.scaling!;
  return {
    ...ENDPOINT_DEFAULTS,
    id,
    name,
    templateId: body.templateId ?? '',
    gpuTypeIds: gpu ? gpuTypeIdsFor(platform, gpu.pools) : [],
    gpuCount: gpu?.count ?? 0,
    computeType: body.cpu ? 'CPU' : 'GPU',
    workersMin: body.workers?.min ?? 0,
    workersMax: body.workers?.max ?? 3,
    idleTimeout: body.workers?.idleTimeout ?? 10,
    executionTimeoutMs: body.timeout ?? 300_000,
    scalerType: scaling.type,
    scalerValue: scaling.type === 'QUEUE_DELAY' ? scaling.queueDelay : scaling.requestCount,
    createdAt: now,
    handler: handlers.has(name) ? name : imageName && handlers.has(imageName) ? imageName : 'echo',
    v2,
  };
}

export function serverlessRoutes(deps: RestV2Deps): Hono<EmulatorEnv> {
  const { platform } = deps;
  const app = new Hono<EmulatorEnv>();
  const origin = (c: V2Context) => new URL(c.req.url).origin;
  const find = (c: V2Context) => {
    const found = accountOf(c).endpoints.get(idParam(c));
    if (!found) throw notFound('endpoint', idParam(c));
    return found;
  };

  app.get('/serverless', (c) => {
    const { items, pagination } = cutPage(c, newestFirst(accountOf(c).endpoints.values()));
    return c.json({ endpoints: items.map((e) => endpointView(deps, origin(c), e)), pagination });
  });

  app.post('/serverless', async (c) => {
    const body = await readContractBody<EndpointBody>(c.req, 'CreateEndpointRequest');
    const account = accountOf(c);
    checkReferences(account, body);
    const endpoint = buildEndpoint(platform, deps.handlerNames(), account, body);
    account.endpoints.set(endpoint.id, endpoint);
    // `workers.min` workers start now.
    deps.endpointChanged?.(account, endpoint);
    return c.json(endpointView(deps, origin(c), endpoint), 201);
  });

  app.get('/serverless/:id', (c) => c.json(endpointView(deps, origin(c), find(c))));

  app.patch('/serverless/:id', async (c) => {
    const endpoint = find(c);
    const body = await readContractBody<EndpointBody>(c.req, 'UpdateEndpointRequest');
    checkReferences(accountOf(c), body);
    const v2 = v2Of(platform, endpoint);
    const before = endpointView(deps, origin(c), endpoint);
    if (body.name !== undefined) endpoint.name = body.name;
    if (body.templateId !== undefined) endpoint.templateId = body.templateId;
    if (body.timeout !== undefined) endpoint.executionTimeoutMs = body.timeout;
    if (body.workers?.min !== undefined) endpoint.workersMin = body.workers.min;
    if (body.workers?.max !== undefined) endpoint.workersMax = body.workers.max;
    if (body.workers?.idleTimeout !== undefined) endpoint.idleTimeout = body.workers.idleTimeout;
    if (endpoint.workersMin > endpoint.workersMax) throw problem(400, 'workers.min must not exceed workers.max.');
    if (body.scaling) {
      endpoint.scalerType = body.scaling.type;
      endpoint.scalerValue = body.scaling.type === 'QUEUE_DELAY' ? body.scaling.queueDelay : body.scaling.requestCount;
    }
    if (body.image !== undefined) v2.image = body.image;
    if (body.args !== undefined) v2.args = body.args;
    if (body.disk !== undefined) v2.disk = body.disk;
    if (body.env !== undefined) v2.env = body.env;
    if (body.ports !== undefined) v2.ports = body.ports;
    if (body.registry !== undefined) v2.registry = body.registry;
    if (body.dataCenterIds !== undefined) v2.dataCenterIds = body.dataCenterIds;
    if (body.networkVolumes !== undefined) v2.networkVolumes = body.networkVolumes;
    if (body.flashboot !== undefined) v2.flashboot = body.flashboot;
    if (body.cpu !== undefined) {
      v2.cpu = body.cpu;
      v2.gpu = null;
      endpoint.computeType = 'CPU';
    }
    if (body.gpu) {
      const gpu = v2.gpu ?? { pools: ['AMPERE_16'], excludedTypes: [], count: 1, allowedCudaVersions: [], minCudaVersion: null };
      v2.gpu = {
        pools: body.gpu.pools ?? gpu.pools,
        excludedTypes: body.gpu.excludedTypes ?? gpu.excludedTypes,
        count: body.gpu.count ?? gpu.count,
        allowedCudaVersions: body.gpu.allowedCudaVersions ?? gpu.allowedCudaVersions,
        minCudaVersion: body.gpu.minCudaVersion === '' ? null : (body.gpu.minCudaVersion ?? gpu.minCudaVersion),
      };
      v2.cpu = undefined;
      endpoint.computeType = 'GPU';
      endpoint.gpuCount = v2.gpu.count;
      endpoint.gpuTypeIds = gpuTypeIdsFor(platform, v2.gpu.pools);
    }
    deps.endpointChanged?.(accountOf(c), endpoint);
    const after = endpointView(deps, origin(c), endpoint);
    const diff = Object.keys(after)
      .filter((k) => k !== 'createdAt' && JSON.stringify(before[k]) !== JSON.stringify(after[k]))
      .map((field) => ({ field, old: before[field] ?? null, new: after[field] ?? null }));
    if (diff.length > 0) {
      v2.version++;
      v2.releases.unshift({ id: newId(10), version: v2.version, createdAt: platform.clock.now(), diff });
    }
    return c.json(after);
  });

  app.delete('/serverless/:id', (c) => {
    const endpoint = find(c);
    accountOf(c).endpoints.delete(endpoint.id);
    deps.endpointDeleted?.(accountOf(c), endpoint.id);
    return c.body(null, 204);
  });

  app.get('/serverless/:id/workers', (c) => {
    const endpoint = find(c);
    const v2 = v2Of(platform, endpoint);
    const workers = deps.workers(accountOf(c), endpoint);
    const count = (s: string) => workers.filter((w) => w.status === s).length;
    const host = platform.hosts.find((h) => endpoint.gpuTypeIds.includes(h.gpuTypeId));
    return c.json({
      workers: workers.map((w) => ({
        id: w.id,
        status: w.status,
        isStale: false,
        version: v2.version,
        gpuCount: endpoint.computeType === 'CPU' ? 0 : endpoint.gpuCount,
        image: v2.image ?? accountOf(c).templates.get(endpoint.templateId)?.imageName ?? null,
        uptimeSeconds: Math.max(0, Math.floor((platform.clock.now() - w.startedAt) / 1000)),
        gpuTypeId: endpoint.computeType === 'CPU' ? null : (host?.gpuTypeId ?? null),
        dataCenterId: host?.dataCenterId ?? null,
        startedAt: iso(w.startedAt),
      })),
      summary: { running: count('RUNNING'), idle: count('IDLE'), initializing: count('INITIALIZING'), throttled: count('THROTTLED'), unhealthy: count('UNHEALTHY'), total: workers.length },
      endpointVersion: v2.version,
    });
  });

  app.get('/serverless/:id/releases', (c) => {
    const endpoint = find(c);
    const v2 = v2Of(platform, endpoint);
    const workers = deps.workers(accountOf(c), endpoint).length;
    // Kept newest first; the rollout describes the endpoint now, whatever the page.
    const { items, pagination } = cutPage(c, v2.releases);
    return c.json({
      endpointVersion: v2.version,
      rollout: { inProgress: false, workersOnLatest: workers, workersTotal: workers, percentOnLatest: 100 },
      pagination,
      releases: items.map((r) => ({ id: r.id, version: r.version, source: 'MANUAL', buildId: null, createdByUserId: accountOf(c).id, workerCount: r.version === v2.version ? workers : 0, createdAt: iso(r.createdAt), diff: r.diff })),
    });
  });

  app.get('/serverless/:id/workers/:workerId/logs', (c) => {
    const endpoint = find(c);
    const workerId = idParam(c, 'workerId');
    const account = accountOf(c);
    const worker = deps.workers(account, endpoint).find((w) => w.id === workerId);
    if (!worker) throw notFound('worker', workerId);
    const lines: PodLogLine[] = [
      { ts: worker.startedAt, seq: 0, source: 'system', line: `worker ${worker.id} started for endpoint ${endpoint.id}` },
      { ts: worker.startedAt, seq: 1, source: 'container', line: `handler ${endpoint.handler} ready` },
    ];
    const exists = () => account.endpoints.get(endpoint.id) === endpoint && deps.workers(account, endpoint).some((w) => w.id === workerId);
    // A worker writes nothing after start-up here: the stream holds until the caller hangs up.
    return sseLogs(c, platform.clock, { lines: () => (exists() ? lines : undefined), live: exists, nextAt: () => undefined, onChange: () => () => undefined }, platform.lifetime);
  });

  return app;
}

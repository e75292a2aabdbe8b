import type { GraphQLResolveInfo } from 'graphql';
import { DERIVATIONS, FIELD_MAP, readPath, readRoutePath } from '../field-map/index.js';
import type { NoSourceWarnings } from '../field-map/types.js';
import { pubKeyText } from '../graphql/in-process/resolvers/account.js';
import { EmulatorHttpError } from './errors.js';
import type { Account, EmulatedPod, Platform, StockInfo } from './platform.js';
import { gpuAvailabilityRead, stockInDataCenters, stockInGpuCatalog } from '../graphql/in-process/resolvers/catalog.js';
import { dataCenters, dataCenterView, gpuFilterOf, gpuView } from './rest-v2/catalog.js';
import { stateOf } from './rest-v2/context.js';
import { podView } from './rest-v2/pods.js';
import { hash, mappedPorts, podMemoryInGb, podVcpuCount } from './pod-facts.js';

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

// ---- GraphQL views ----------------------------------------------------------------------------
// The emulator's GraphQL answers are its REST v2 views read through the field map
// (src/field-map/): a field the map gives a `path` or a derivation is read from the REST v2 object
// of the same resource, never written again here. What production's GraphQL has beyond REST v2
// (a field with no REST source, or one the map answers with its own call) comes from the state,
// in GRAPHQL_EXTRAS below.

/** What a GraphQL view was made from, beside its REST v2 object (the extras read it). */
export interface ViewState {
  readonly account?: Account | undefined;
  readonly pod?: EmulatedPod | undefined;
  readonly stock?: StockInfo | undefined;
}

/** One object of a GraphQL answer: its REST v2 view, and the state the extras read. */
export class GraphQLView {
  constructor(
    readonly rest: Readonly<Record<string, unknown>>,
    readonly state: ViewState,
  ) {}
}

/** The emulator's side of a GraphQL request: the platform, the caller's account, and REST v2 in process. */
export interface GraphQLContext {
  readonly platform: Platform;
  readonly account: Account | undefined;
  /** Calls the emulator's own REST v2 route as the caller (`GET /templates`); a refusal throws an EmulatorHttpError. */
  rest(method: string, path: string, body?: unknown): Promise<unknown>;
  /** The answer's `extensions.warnings`: informational fields the emulator holds no value for. */
  readonly warnings: NoSourceWarnings;
}

type Extra = (view: GraphQLView, args: Record<string, unknown>, ctx: GraphQLContext, info: GraphQLResolveInfo) => unknown;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** REST v2 objects as views of `state`. */
export const viewsOf = (list: unknown, state: ViewState): GraphQLView[] => (Array.isArray(list) ? list.filter(isRecord).map((rest) => new GraphQLView(rest, state)) : []);

/** The account's pods as GraphQL views (REST v2's pod view of each). */
export const podViews = (platform: Platform, account: Account): GraphQLView[] =>
  platform.listPods(account).map((pod) => new GraphQLView(podView(platform, pod), { account, pod }));

/** The REST v2 pod view of `pod` as a GraphQL view. */
export const podGraphQLView = (platform: Platform, account: Account, pod: EmulatedPod): GraphQLView => new GraphQLView(podView(platform, pod), { account, pod });

const gpuTypeName = (platform: Platform, id: string) => platform.gpuTypes.find((t) => t.id === id)?.displayName ?? id;

/** `Type.field` → its value from the state, where production's GraphQL has more than REST v2. */
export const GRAPHQL_EXTRAS: Readonly<Record<string, Readonly<Record<string, Extra>>>> = {
  Pod: {
    machineId: ({ state }, _a, { platform }) => (state.pod ? platform.host(state.pod.hostId).id : null),
    // A container id, as Docker prints it short (12 hex digits), stable for the pod.
    dockerId: ({ state }) => (state.pod ? (hash(`${state.pod.id}:docker`).toString(16) + hash(state.pod.id).toString(16)).padStart(12, '0').slice(0, 12) : null),
    port: ({ state }) => (state.pod?.ports[0] ? Number(state.pod.ports[0].split('/')[0]) || null : null),
    // Free text for people: why the pod last changed (the CUDA failure of a pod that exited, for instance).
    lastStatusChange: ({ state }) => state.pod?.lastStatusChange ?? null,
    // The GPUs the pod holds now (0 while stopped, or after a start asked for none); REST v2's
    // gpu.count is what it asked for, and its runtime is absent until the container is up.
    gpuCount: ({ state }) => state.pod?.gpuCount ?? null,
    adjustedCostPerHr: ({ state }, _a, { platform }) => (state.pod ? platform.podCostPerHr(state.pod) : null),
    volumeEncrypted: () => false,
    gpuPowerLimitPercent: () => 100,
    gpus: ({ state }) => (state.pod ? Array.from({ length: state.pod.gpuCount }, (_, i) => ({ id: `GPU-${state.pod!.id}-${i}`, podId: state.pod!.id })) : []),
  },
  PodMachineInfo: {
    id: ({ state }) => state.pod?.hostId ?? null,
    gpuDisplayName: ({ state }, _a, { platform }) => (state.pod ? gpuTypeName(platform, platform.host(state.pod.hostId).gpuTypeId) : null),
    costPerHr: ({ state }, _a, { platform }) => (state.pod ? platform.pricePerGpu(platform.host(state.pod.hostId)) : null),
    currentPricePerGpu: ({ state }, _a, { platform }) => (state.pod ? platform.pricePerGpu(platform.host(state.pod.hostId)) : null),
    gpuAvailable: ({ state }, _a, { platform }) => (state.pod && state.pod.computeType === 'GPU' ? platform.freeGpus(state.pod.hostId) : null),
    supportPublicIp: () => true,
  },
  PodRuntimeGpus: {
    // The list index is the GPU's place on the pod.
    id: ({ state }, _a, _c, info) => (state.pod && typeof info.path.prev?.key === 'number' ? `GPU-${state.pod.id}-${info.path.prev.key}` : null),
  },
  User: {
    id: (_v, _a, { account }) => account?.id ?? null,
    email: (_v, _a, { account }) => (account ? `${account.id}@emulator.local` : null),
    clientBalance: () => 100,
    spendLimit: () => 80,
    underBalance: () => false,
    currentSpendPerHr: (_v, _a, { platform, account }) =>
      account ? platform.listPods(account).reduce((sum, p) => sum + (p.desiredStatus === 'RUNNING' ? platform.podCostPerHr(p) : 0), 0) : null,
    pods: (_v, _a, { platform, account }) => (account ? podViews(platform, account) : []),
    pubKey: (_v, _a, { account }) => (account ? pubKeyText(stateOf(account).sshKeys) : null),
    podTemplates: async (_v, _a, ctx) => viewsOf(((await ctx.rest('GET', '/templates')) as { templates?: unknown }).templates, { account: ctx.account }),
    endpoints: async (_v, _a, ctx) => viewsOf(((await ctx.rest('GET', '/serverless')) as { endpoints?: unknown }).endpoints, { account: ctx.account }),
    endpoint: async (_v, { id }, ctx) => orNull(ctx, 'GET', `/serverless/${encodeURIComponent(String(id))}`),
    networkVolumes: async (_v, _a, ctx) => viewsOf(((await ctx.rest('GET', '/network-volumes')) as { networkVolumes?: unknown }).networkVolumes, { account: ctx.account }),
    containerRegistryCreds: async (_v, _a, ctx) => viewsOf(((await ctx.rest('GET', '/registries')) as { registries?: unknown }).registries, { account: ctx.account }),
    // Non-null lists the emulator keeps nothing for.
    userPreferences: () => [],
    dailyCharges: () => [],
    reservations: () => [],
    clusters: async (_v, _a, ctx) => viewsOf(((await ctx.rest('GET', '/clusters')) as { clusters?: unknown }).clusters, { account: ctx.account }),
    secrets: async (_v, _a, ctx) => viewsOf(((await ctx.rest('GET', '/account/secrets')) as { secrets?: unknown }).secrets, { account: ctx.account }),
  },
  Endpoint: {
    // What production's GraphQL has beyond REST v2, from the state (the AI key is for AI-API endpoints only).
    aiKey: () => null,
    userId: (_v, _a, { account }) => account?.id ?? null,
    version: () => 1,
    workersStandby: () => 0,
    // REST v2's endpoint answer does not always name its template; the state does.
    templateId: ({ rest }, _a, { account }) => (typeof rest.id === 'string' ? (account?.endpoints.get(rest.id)?.templateId ?? null) : null) || null,
    networkVolumeIds: ({ rest }, _a, { account }) =>
      Array.isArray(rest.networkVolumes)
        ? rest.networkVolumes.filter((id): id is string => typeof id === 'string').map((id) => ({ networkVolumeId: id, dataCenterId: account?.networkVolumes.get(id)?.dataCenterId ?? null }))
        : null,
    networkVolume: ({ rest }, _a, ctx) => {
      const ids = rest.networkVolumes;
      return Array.isArray(ids) && typeof ids[0] === 'string' ? orNull(ctx, 'GET', `/network-volumes/${encodeURIComponent(ids[0])}`) : null;
    },
  },
  NetworkVolume: {
    dataCenter: ({ rest }, _a, ctx) => (typeof rest.dataCenter === 'string' ? orNull(ctx, 'GET', `/catalog/datacenters/${encodeURIComponent(rest.dataCenter)}`) : null),
  },
  DataCenter: {
    location: ({ rest }) => (typeof rest.country === 'string' ? rest.country : null),
    // The same read the in-process executor makes (resolvers/catalog.ts), of the emulator's catalog views.
    gpuAvailability: ({ rest }, { input }, { platform }) => {
      const read = gpuAvailabilityRead(input);
      if (read.kind === 'gpus') return viewsOf(stockInGpuCatalog(platform.gpuTypes.map((t) => gpuView(platform, t, gpuFilterOf(read.query), true)), rest.id), {});
      if (Array.isArray(rest.gpuAvailability)) return viewsOf(rest.gpuAvailability, {});
      return viewsOf(stockInDataCenters(dataCenters(platform).map((d) => dataCenterView(platform, d, ['GPU_AVAILABILITY'])), rest.id), {});
    },
    pools: () => [],
  },
  Cluster: {
    userId: (_v, _a, { account }) => account?.id ?? null,
    gpuDisplayName: ({ rest }, _a, { platform }) => {
      const gpu = isRecord(rest.compute) ? rest.compute.gpuTypeId : undefined;
      return typeof gpu === 'string' ? gpuTypeName(platform, gpu) : null;
    },
    // The cluster's pods as the emulator's pod views (with their state, as myself { pods } has).
    pods: async ({ rest }, _a, ctx) => {
      const { account, platform } = ctx;
      if (!account || typeof rest.id !== 'string') return null;
      const listed = ((await ctx.rest('GET', `/clusters/${encodeURIComponent(rest.id)}/pods`)) as { pods?: Array<{ id?: unknown }> }).pods ?? [];
      return listed.flatMap((p) => {
        const pod = typeof p.id === 'string' ? platform.getPod(account, p.id) : undefined;
        return pod ? [podGraphQLView(platform, account, pod)] : [];
      });
    },
  },
  GpuAvailability: {
    gpuType: ({ rest }, _a, { platform }) => {
      const type = platform.gpuTypes.find((t) => t.id === rest.id);
      return type ? new GraphQLView(gpuView(platform, type, { count: 1 }, false), {}) : null;
    },
  },
  ContainerRegistryAuth: {
    userId: (_v, _a, { account }) => account?.id ?? null,
  },
  GpuType: {
    lowestPrice: ({ rest }, { input }, { platform }) => {
      const filter = (isRecord(input) ? input : {}) as Parameters<Platform['stock']>[1];
      const stock = platform.stock(String(rest.id), { ...filter, gpuCount: typeof filter.gpuCount === 'number' ? filter.gpuCount : 1 });
      // The same keys the client's REST path builds a LowestPrice from (the map reads them).
      const type = platform.gpuTypes.find((t) => t.id === rest.id);
      // The CUDA versions as the catalog answers them for this count and cloud (the map reads cudaVersions).
      const cuda = type ? gpuView(platform, type, gpuFilterOf({ count: typeof filter.gpuCount === 'number' ? filter.gpuCount : 1, cloud: filter.secureCloud === true ? 'SECURE' : filter.secureCloud === false ? 'COMMUNITY' : undefined }), true).cudaVersions : [];
      const lowest = { gpuTypeId: rest.id, gpuName: rest.name, uninterruptablePrice: stock.price, stockStatus: stock.stockStatus, maxGpuCount: stock.maxFreeOnOneHost, cudaVersions: cuda };
      return new GraphQLView(lowest, { stock });
    },
  },
  LowestPrice: {
    availableGpuCounts: ({ state }) => state.stock?.availableGpuCounts ?? null,
    maxUnreservedGpuCount: ({ state }) => state.stock?.maxFreeOnOneHost ?? null,
    minMemory: () => 8,
    minVcpu: () => 2,
  },
};

/** The REST v2 object at `path` as a view, or null when REST v2 answers 404 (GraphQL's null for a missing one). */
async function orNull(ctx: GraphQLContext, method: string, path: string): Promise<GraphQLView | null> {
  try {
    const rest = await ctx.rest(method, path);
    return isRecord(rest) ? new GraphQLView(rest, { account: ctx.account }) : null;
  } catch (err) {
    if (err instanceof EmulatorHttpError && err.status === 404) return null;
    throw err;
  }
}

/**
 * The value of `Type.field` on `view`: its extra from the state, else what the field map reads from
 * the REST v2 object (a path or a named derivation). A field the map has no source for and the
 * state holds nothing for: an informational one is null with a warning; a decisive one is null
 * with no error, because the emulator's GraphQL stands in for production's, which holds a value
 * for every field and sends no error for it (an error here failed 23 of 159 real projects'
 * documents that production answers). After the 410 the executors over REST v2 answer a decisive
 * field with its error; the emulator's GraphQL then answers 410 itself.
 */
export function graphqlField(type: string, field: string, view: GraphQLView, args: Record<string, unknown>, ctx: GraphQLContext, info: GraphQLResolveInfo): unknown {
  const extra = GRAPHQL_EXTRAS[type]?.[field];
  if (extra) return extra(view, args, ctx, info);
  const source = FIELD_MAP[type]?.fields[field]?.source;
  if (!source) return FIELD_MAP[type] ? null : view.rest[field];
  switch (source.kind) {
    case 'path':
      return readPath(view.rest, source.path);
    case 'derived': {
      const derive = DERIVATIONS[source.derive];
      return derive ? derive(view.rest) : null;
    }
    case 'none':
      if (source.standIn) return source.standIn.value;
      if (source.effect === 'informational') {
        ctx.warnings.add(`${type}.${field}`, source.why);
        return null;
      }
      return null;
    case 'read':
      // The emulator's own route, as the caller (the same row the in-process executor follows).
      return ctx.rest('GET', readRoutePath(source.route)).then((answer) => readPath(answer, source.path));
    case 'call':
      return null;
  }
}

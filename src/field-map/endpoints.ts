// Endpoint and its mutations. The parent object is REST v2's `Endpoint` (`GET /v2/serverless/{id}`).
import { envEntries, typedAt, wrongShape } from './templates.js';
import { call, derived, holding, decisive, path, readPath, type FieldEntry, type FieldMap } from './types.js';

// `at(rest, key)`: one step into a REST object, without trusting its shape.
const at = readPath;

/** A list of strings at `key` (null when absent), else a typed error naming the field. */
function strings(rest: unknown, key: string, field: string): string[] | null {
  const list = at(rest, key);
  if (list === null || list === undefined) return null;
  if (!Array.isArray(list) || list.some((v) => typeof v !== 'string')) throw wrongShape(field, 'a list of strings');
  return list as string[];
}

export const endpointDerivations = {
  // GraphQL's gpuIds names pools, and takes a card out of them with a leading "-" (AMPERE_16,-NVIDIA RTX A4000).
  endpointGpuIds(rest: unknown): string | null {
    const gpu = at(rest, 'gpu');
    // A `gpu` that is not an object (a string, a list) is a wrong shape, never a silent null.
    if (gpu !== null && gpu !== undefined && (typeof gpu !== 'object' || Array.isArray(gpu))) throw wrongShape('gpu', 'an object with pools');
    const pools = strings(gpu, 'pools', 'gpu.pools');
    if (!pools) return null;
    return [...pools, ...(strings(gpu, 'excludedTypes', 'gpu.excludedTypes') ?? []).map((t) => `-${t}`)].join(',');
  },
  endpointLocations: (rest: unknown): string | null => strings(rest, 'dataCenterIds', 'dataCenterIds')?.join(',') || null,
  endpointNetworkVolumeId: (rest: unknown): string | null => strings(rest, 'networkVolumes', 'networkVolumes')?.[0] ?? null,
  endpointCudaVersions: (rest: unknown): string | null => strings(at(rest, 'gpu'), 'allowedCudaVersions', 'gpu.allowedCudaVersions')?.join(',') || null,
  endpointComputeType(rest: unknown): 'GPU' | 'CPU' | null {
    if (at(rest, 'gpu')) return 'GPU';
    return Array.isArray(at(rest, 'cpu')) ? 'CPU' : null;
  },
  endpointScalerValue(rest: unknown): number | string | null {
    const scaling = at(rest, 'scaling');
    return typedAt(scaling, 'queueDelay', 'number', 'scaling.queueDelay') ?? typedAt(scaling, 'requestCount', 'number', 'scaling.requestCount');
  },
  envEntries,
} satisfies Readonly<Record<string, (rest: unknown) => unknown>>;

const notInEndpoints = (what: string) => decisive(`REST v2 endpoints have no ${what}`);

export const endpointMutationFields: Readonly<Record<string, FieldEntry>> = {
  // With `input.id`, an update (PATCH); without, a create sent once (create marker in its env).
  saveEndpoint: holding('Endpoint', call(['POST /v2/serverless', 'PATCH /v2/serverless/{id}'])),
  deleteEndpoint: call(['DELETE /v2/serverless/{id}']),
  updateEndpointTemplate: holding('Endpoint', call(['PATCH /v2/serverless/{id}'])),
};

export const endpointTypes: FieldMap = {
  /** Built by `Endpoint.networkVolumeIds` from each listed volume: `{ networkVolumeId, dataCenterId }`. */
  NetworkVolumeIds: {
    rest: null,
    scope: 'read',
    fields: { networkVolumeId: path('networkVolumeId'), dataCenterId: path('dataCenterId') },
  },
  Endpoint: {
    rest: 'Endpoint',
    scope: 'read',
    fields: {
      aiKey: notInEndpoints('AI key'),
      gpuIds: derived('endpointGpuIds', ['gpu.pools', 'gpu.excludedTypes'], 'GraphQL joins the pools with commas and names each excluded card with a leading "-"'),
      id: path('id'),
      idleTimeout: path('workers.idleTimeout'),
      name: path('name'),
      networkVolumeId: derived('endpointNetworkVolumeId', ['networkVolumes'], 'GraphQL holds one volume; REST v2 lists them, and an endpoint made over GraphQL has at most one'),
      locations: derived('endpointLocations', ['dataCenterIds'], 'GraphQL joins the data centre ids with commas; an empty list means anywhere, as GraphQL null does'),
      pods: notInEndpoints('pods: workers are a route of their own (GET /v2/serverless/{id}/workers) with another shape'),
      scalerType: path('scaling.type'),
      scalerValue: derived('endpointScalerValue', ['scaling'], 'queueDelay (QUEUE_DELAY) or requestCount (REQUEST_COUNT), whichever the scaler has; a fractional delay is a field error (GraphQL Int)'),
      template: notInEndpoints('template object: the answer carries the container settings itself'),
      // REST v2's answer does not name the template: answered only on the saveEndpoint or
      // updateEndpointTemplate answer that set it (the id sent), else an error naming the field.
      templateId: call(['POST /v2/serverless', 'PATCH /v2/serverless/{id}']),
      type: path('type'),
      userId: notInEndpoints('owner id'),
      version: notInEndpoints('version counter'),
      workersMax: path('workers.max'),
      workersMin: path('workers.min'),
      workersStandby: notInEndpoints('standby worker count'),
      workersPFBTarget: notInEndpoints('FlashBoot worker target'),
      gpuCount: path('gpu.count'),
      // Endpoint env values are often credentials: only a write token reads them.
      env: holding('EnvironmentVariable', derived('envEntries', ['env'], 'REST v2 keeps env as an object of names to values; GraphQL lists the same pairs as { key, value } (less the create marker the client adds)', 'write')),
      createdAt: path('createdAt'),
      allowedCudaVersions: derived('endpointCudaVersions', ['gpu.allowedCudaVersions'], 'GraphQL joins the versions with commas'),
      executionTimeoutMs: path('timeout'),
      instanceIds: notInEndpoints('CPU instance ids: its cpu entries are flavour and vCPU count'),
      computeType: derived('endpointComputeType', ['gpu', 'cpu'], 'an endpoint has exactly one of gpu and cpu'),
      builds: notInEndpoints('GraphQL GitBuild objects (GET /v2/serverless/{id}/builds has another shape)'),
      activeBuildid: notInEndpoints('active build id'),
      repo: notInEndpoints('linked repository'),
      hubRelease: notInEndpoints('hub release'),
      idePodId: notInEndpoints('IDE pod'),
      modelStatus: notInEndpoints('model status'),
      workerState: notInEndpoints('worker state history'),
      webhookRequests: notInEndpoints('webhook request log'),
      networkVolume: holding('NetworkVolume', call(['GET /v2/network-volumes/{id}'])),
      // Each volume id REST v2 lists, with its data centre from the volume itself (one read per volume).
      networkVolumeIds: holding('NetworkVolumeIds', call(['GET /v2/network-volumes/{id}'])),
      minCudaVersion: path('gpu.minCudaVersion'),
      // REST v2's FlashBoot has GraphQL's FlashBootType values (OFF, FLASHBOOT, PRIORITY_FLASHBOOT).
      flashBootType: path('flashboot'),
      flashEnvironmentId: notInEndpoints('Flash environment'),
      modelReferences: notInEndpoints('model references'),
      compliance: notInEndpoints('compliance filter'),
    },
  },
};

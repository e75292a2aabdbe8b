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
      aiKey: decisive(),
      gpuIds: derived('endpointGpuIds', ['gpu.pools', 'gpu.excludedTypes']),
      id: path('id'),
      idleTimeout: path('workers.idleTimeout'),
      name: path('name'),
      networkVolumeId: derived('endpointNetworkVolumeId', ['networkVolumes']),
      locations: derived('endpointLocations', ['dataCenterIds']),
      pods: decisive(),
      scalerType: path('scaling.type'),
      scalerValue: derived('endpointScalerValue', ['scaling']),
      template: decisive(),
      // REST v2's answer does not name the template: answered only on the saveEndpoint or
      // updateEndpointTemplate answer that set it (the id sent), else an error naming the field.
      templateId: call(['POST /v2/serverless', 'PATCH /v2/serverless/{id}']),
      type: path('type'),
      userId: decisive(),
      version: decisive(),
      workersMax: path('workers.max'),
      workersMin: path('workers.min'),
      workersStandby: decisive(),
      workersPFBTarget: decisive(),
      gpuCount: path('gpu.count'),
      // Endpoint env values are often credentials: only a write token reads them.
      env: holding('EnvironmentVariable', derived('envEntries', ['env'], 'write')),
      createdAt: path('createdAt'),
      allowedCudaVersions: derived('endpointCudaVersions', ['gpu.allowedCudaVersions']),
      executionTimeoutMs: path('timeout'),
      instanceIds: decisive(),
      computeType: derived('endpointComputeType', ['gpu', 'cpu']),
      builds: decisive(),
      activeBuildid: decisive(),
      repo: decisive(),
      hubRelease: decisive(),
      idePodId: decisive(),
      modelStatus: decisive(),
      workerState: decisive(),
      webhookRequests: decisive(),
      networkVolume: holding('NetworkVolume', call(['GET /v2/network-volumes/{id}'])),
      // Each volume id REST v2 lists, with its data centre from the volume itself (one read per volume).
      networkVolumeIds: holding('NetworkVolumeIds', call(['GET /v2/network-volumes/{id}'])),
      minCudaVersion: path('gpu.minCudaVersion'),
      // REST v2's FlashBoot has GraphQL's FlashBootType values (OFF, FLASHBOOT, PRIORITY_FLASHBOOT).
      flashBootType: path('flashboot'),
      flashEnvironmentId: decisive(),
      modelReferences: decisive(),
      compliance: decisive(),
    },
  },
};

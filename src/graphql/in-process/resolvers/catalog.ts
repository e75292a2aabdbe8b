// The catalog's calls that both the in-process executor and the emulator's GraphQL make: which REST
// v2 catalog read answers `DataCenter.gpuAvailability(input:)`, and how its answer becomes the REST
// v2 `CatalogResourceAvailability` objects the field map reads (src/field-map/catalog.ts). One
// mapping, two callers, as templateBody is for saveTemplate.
import type { GpuCatalogQuery } from '../../../rest/types.js';
import { wrongShape } from '../../../field-map/templates.js';
import { inputOf, isSet, refuseSet } from './inputs.js';

/** The filters of `GpuAvailabilityInput` REST v2 cannot apply per data centre, each with its fix. */
const UNSUPPORTED = {
  minDisk: 'Leave it out: REST v2 gives stock per data centre and GPU count, not per disk size.',
  minMemoryInGb: 'Leave it out: REST v2 gives stock per data centre and GPU count, not per RAM size.',
  minVcpuCount: 'Leave it out: REST v2 gives stock per data centre and GPU count, not per vCPU count.',
  includeAiApi: 'Leave it out: REST v2 has no AI API capacity.',
} as const;

/**
 * How to read a data centre's GPU stock for `input`: with no filter, the data centre's own list
 * (`GET /v2/catalog/datacenters?include=GPU_AVAILABILITY`); with a GPU count, a cloud or CUDA
 * versions, the GPU catalog scoped to them (`GET /v2/catalog/gpus?include=AVAILABILITY&product=POD`),
 * whose per-data-centre stock is turned around per data centre. A filter REST v2 cannot apply is
 * refused before anything is sent (a field error naming `input.<filter>`).
 */
export function gpuAvailabilityRead(input: unknown): { readonly kind: 'dataCenters' } | { readonly kind: 'gpus'; readonly query: GpuCatalogQuery } {
  const fields = inputOf(input);
  refuseSet('DataCenter.gpuAvailability', fields, UNSUPPORTED);
  const count = typeof fields.gpuCount === 'number' && fields.gpuCount > 1 ? fields.gpuCount : undefined;
  const cloud = typeof fields.secureCloud === 'boolean' ? (fields.secureCloud ? 'SECURE' : 'COMMUNITY') : undefined;
  const cuda = Array.isArray(fields.allowedCudaVersions) ? fields.allowedCudaVersions.filter((v): v is string => typeof v === 'string' && v !== '') : [];
  if (count === undefined && cloud === undefined && !isSet(cuda)) return { kind: 'dataCenters' };
  return {
    kind: 'gpus',
    query: { include: ['AVAILABILITY'], product: ['POD'], ...(count !== undefined && { count }), ...(cloud && { cloud }), ...(cuda.length > 0 && { cudaVersions: cuda }) },
  };
}

type RestEntry = Readonly<Record<string, unknown>>;
const isEntry = (value: unknown): value is RestEntry => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The list at `key` of `entry` (absent: empty), else a typed error naming it (never a TypeError). */
function listAt(entry: RestEntry, key: string, field: string): RestEntry[] {
  const value = entry[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isEntry)) throw wrongShape(field, 'a list of objects');
  return value;
}

/** The stock of data centre `id` in REST v2's list answer (null when the list does not name it). */
export function stockInDataCenters(dataCenters: readonly RestEntry[], id: unknown): RestEntry[] | null {
  const centre = dataCenters.find((d) => isEntry(d) && d.id === id);
  return centre ? listAt(centre, 'gpuAvailability', 'gpuAvailability') : null;
}

/** The stock of data centre `id` from the GPU catalog: one entry per GPU type that names it. */
export function stockInGpuCatalog(types: readonly RestEntry[], id: unknown): RestEntry[] {
  return types.filter(isEntry).flatMap((type) => {
    const here = listAt(type, 'dataCenters', 'dataCenters').find((d) => d.id === id);
    return here ? [{ id: type.id, name: type.name, availability: here.availability }] : [];
  });
}

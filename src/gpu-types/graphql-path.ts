import { GpuTypesDocument } from '../graphql/__generated__/operations.js';
import { withDataCheck, type DataCheck, type GraphQLCallOptions, type GraphQLRequester } from '../graphql/graphql-client.js';
import { isArrayOf, isRecord } from '../transport/shape.js';
import type { GpuType, GpuTypesListInput } from './types.js';

// Nullable fields may also be left out: every reader treats both alike.
const nullOr = (value: unknown, type: 'string' | 'number' | 'boolean') => value == null || typeof value === type;
const isCountOrNull = (value: unknown): value is number | null => value === null || typeof value === 'number';

/** Every field `offers` reads, of the type the query selects. */
function isGpuType(value: unknown): value is GpuType {
  if (!isRecord(value) || !nullOr(value.id, 'string') || !nullOr(value.displayName, 'string') || !nullOr(value.memoryInGb, 'number')) return false;
  if (!nullOr(value.secureCloud, 'boolean') || !nullOr(value.communityCloud, 'boolean')) return false;
  const price = value.lowestPrice;
  if (price == null) return true;
  return (
    isRecord(price) &&
    nullOr(price.uninterruptablePrice, 'number') &&
    nullOr(price.stockStatus, 'string') &&
    (price.availableGpuCounts == null || isArrayOf(price.availableGpuCounts, isCountOrNull))
  );
}

const isGpuTypeOrNull = (value: unknown): value is GpuType | null => value === null || isGpuType(value);

const GPU_TYPES_CHECK: DataCheck = {
  check: (data) => data.gpuTypes === null || isArrayOf(data.gpuTypes, isGpuTypeOrNull),
  expected: '`gpuTypes` as a list of GPU types with numeric prices and counts (GpuTypes)',
};

/** `gpuTypes.list` over GraphQL: one `GpuTypes` query, every filter sent as the platform takes it. */
export async function listOverGraphql(graphql: GraphQLRequester, input: GpuTypesListInput, gpuCount: number, options?: GraphQLCallOptions): Promise<GpuType[]> {
  const { id, ids, gpuCount: _count, ...priceFilters } = input;
  const filter = id !== undefined || ids !== undefined ? { ...(id !== undefined && { id }), ...(ids !== undefined && { ids }) } : null;
  const data = await graphql.request(GpuTypesDocument, { input: filter, lowestPriceInput: { ...priceFilters, gpuCount } }, withDataCheck(options, GPU_TYPES_CHECK));
  return ((data.gpuTypes ?? []) as Array<GpuType | null>).filter((t): t is GpuType => t !== null);
}

import { ValidationError } from '../errors.js';
import { checkInteger, checkNumber } from '../validation.js';
import { GpuTypesDocument, type CloudTypeEnum, type GpuLowestPriceInput, type GpuTypesQuery } from './__generated__/operations.js';
import { isArrayOf, isRecord } from '../transport/shape.js';
import { withDataCheck, type DataCheck, type GraphQLCallOptions, type RunpodGraphQL } from './graphql-client.js';

/** A GPU type as `gpuTypes.list` returns it, with its lowest price for the requested count. */
export type GpuType = NonNullable<NonNullable<GpuTypesQuery['gpuTypes']>[number]>;

/** Filters of `gpuTypes.list`: a type filter plus every `lowestPrice` filter the platform offers. */
export interface GpuTypesListInput extends Omit<GpuLowestPriceInput, 'gpuCount'> {
  /** One GPU type id, e.g. `NVIDIA GeForce RTX 4090`. */
  id?: string | undefined;
  ids?: string[] | undefined;
  /** How many GPUs the price and stock refer to. @default 1 */
  gpuCount?: number | undefined;
}

export type StockStatus = 'High' | 'Medium' | 'Low';

/** One place to get GPUs right now, and what it costs. */
export interface GpuOffer {
  readonly gpuTypeId: string;
  readonly displayName: string;
  /** GPU memory (VRAM) of one GPU. */
  readonly memoryInGb: number | null;
  readonly gpuCount: number;
  /** On-demand price of one GPU per hour, in USD (the platform quotes `lowestPrice` per GPU). */
  readonly pricePerGpuHour: number;
  /** On-demand price per hour for all `gpuCount` GPUs, in USD. */
  readonly pricePerHour: number;
  readonly stockStatus: StockStatus;
  readonly availableGpuCounts: readonly number[];
  /** Which cloud the price refers to: the one asked for, or `ALL` when none was (deploy's `cloudType` takes the same value). */
  readonly cloud: CloudTypeEnum;
}

export interface GpuOffersInput {
  /** @default 1 */
  gpuCount?: number | undefined;
  /** true: secure cloud only; false: community cloud only; unset: either. */
  secureCloud?: boolean | undefined;
  /** Minimum GPU memory (VRAM) per GPU, in GB. Filtered here, not by the platform. */
  minMemoryInGb?: number | undefined;
  /** Highest acceptable on-demand price per hour for all `gpuCount` GPUs, in USD. */
  maxPricePerHour?: number | undefined;
}

export interface GpuTypesApi {
  /** GPU types with their lowest price and stock for `gpuCount` GPUs (default 1). */
  list(input?: GpuTypesListInput, options?: GraphQLCallOptions): Promise<GpuType[]>;
  /** In-stock offers, cheapest first: "where can I get a GPU and what does it cost?" */
  offers(input?: GpuOffersInput, options?: GraphQLCallOptions): Promise<GpuOffer[]>;
}

const STOCKED: ReadonlySet<string> = new Set(['High', 'Medium', 'Low']);

// Nullable fields may also be left out: every reader below treats both alike.
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

export function createGpuTypesApi(graphql: RunpodGraphQL): GpuTypesApi {
  async function list(input: GpuTypesListInput = {}, options?: GraphQLCallOptions): Promise<GpuType[]> {
    const { id, ids, gpuCount = 1, ...priceFilters } = input;
    checkInteger('gpuCount', gpuCount, 1);
    const filter = id !== undefined || ids !== undefined ? { ...(id !== undefined && { id }), ...(ids !== undefined && { ids }) } : null;
    const data = await graphql.request(GpuTypesDocument, { input: filter, lowestPriceInput: { ...priceFilters, gpuCount } }, withDataCheck(options, GPU_TYPES_CHECK));
    return ((data.gpuTypes ?? []) as Array<GpuType | null>).filter((t): t is GpuType => t !== null);
  }

  return {
    list,
    async offers(input = {}, options) {
      const gpuCount = input.gpuCount ?? 1;
      checkInteger('gpuCount', gpuCount, 1);
      checkNumber('minMemoryInGb', input.minMemoryInGb, 0, Number.MAX_SAFE_INTEGER);
      checkNumber('maxPricePerHour', input.maxPricePerHour, 0, Number.MAX_SAFE_INTEGER);
      if (input.secureCloud !== undefined && typeof input.secureCloud !== 'boolean') {
        throw new ValidationError('secureCloud', 'must be true, false or unset');
      }
      const types = await list({ gpuCount, ...(input.secureCloud !== undefined && { secureCloud: input.secureCloud }) }, options);
      const cloud = input.secureCloud === undefined ? 'ALL' : input.secureCloud ? 'SECURE' : 'COMMUNITY';
      const offers: GpuOffer[] = [];
      for (const type of types) {
        const price = type.lowestPrice;
        const stock = price?.stockStatus;
        if (!type.id || price?.uninterruptablePrice == null || !stock || !STOCKED.has(stock)) continue;
        const counts = (price.availableGpuCounts ?? []).filter((n): n is number => n !== null);
        if (price.availableGpuCounts && !counts.includes(gpuCount)) continue;
        if (input.secureCloud === true && type.secureCloud === false) continue;
        if (input.secureCloud === false && type.communityCloud === false) continue;
        if (input.minMemoryInGb !== undefined && (type.memoryInGb ?? 0) < input.minMemoryInGb) continue;
        const pricePerHour = Math.round(price.uninterruptablePrice * gpuCount * 10_000) / 10_000;
        if (input.maxPricePerHour !== undefined && pricePerHour > input.maxPricePerHour) continue;
        offers.push({
          gpuTypeId: type.id,
          displayName: type.displayName ?? type.id,
          memoryInGb: type.memoryInGb,
          gpuCount,
          pricePerGpuHour: price.uninterruptablePrice,
          pricePerHour,
          stockStatus: stock as StockStatus,
          availableGpuCounts: counts,
          cloud,
        });
      }
      return offers.sort((a, b) => a.pricePerHour - b.pricePerHour || a.gpuTypeId.localeCompare(b.gpuTypeId));
    },
  };
}

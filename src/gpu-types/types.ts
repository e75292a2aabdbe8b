import type { CloudTypeEnum, GpuLowestPriceInput, GpuTypesQuery } from '../graphql/__generated__/operations.js';
import type { GraphQLCallOptions } from '../graphql/graphql-client.js';

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
  /** The GPU counts in stock; null (unknown) over REST v2, which has no per-count stock (see `transportOf`). */
  readonly availableGpuCounts: readonly number[] | null;
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

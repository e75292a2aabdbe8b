import { describe, expectTypeOf, it } from 'vitest';
import {
  createRunpodClient,
  transportOf,
  TransportUnsupportedError,
  ValidationError,
  type CloudTypeEnum,
  type GpuLowestPriceInput,
  type GpuOffer,
  type GpuOffersInput,
  type GpuType,
  type GpuTypesApi,
  type GpuTypesListInput,
  type GraphQLCallOptions,
  type StockStatus,
} from '../../src/index.js';

// The public types of rp.gpuTypes as they were before the REST v2 path existed, spelled out:
// a change to any of them fails here.
type GpuTypeBefore = {
  id: string | null;
  displayName: string | null;
  memoryInGb: number | null;
  secureCloud: boolean | null;
  communityCloud: boolean | null;
  lowestPrice: { uninterruptablePrice: number | null; stockStatus: string | null; availableGpuCounts: Array<number | null> | null } | null;
};

interface GpuOfferBefore {
  readonly gpuTypeId: string;
  readonly displayName: string;
  readonly memoryInGb: number | null;
  readonly gpuCount: number;
  readonly pricePerGpuHour: number;
  readonly pricePerHour: number;
  readonly stockStatus: StockStatus;
  readonly availableGpuCounts: readonly number[] | null;
  readonly cloud: CloudTypeEnum;
}

interface GpuOffersInputBefore {
  gpuCount?: number | undefined;
  secureCloud?: boolean | undefined;
  minMemoryInGb?: number | undefined;
  maxPricePerHour?: number | undefined;
}

describe('rp.gpuTypes public types, unchanged by the REST v2 path', () => {
  it('results and inputs', () => {
    expectTypeOf<GpuType>().toEqualTypeOf<GpuTypeBefore>();
    expectTypeOf<GpuOffer>().toEqualTypeOf<GpuOfferBefore>();
    expectTypeOf<GpuOffersInput>().toEqualTypeOf<GpuOffersInputBefore>();
    expectTypeOf<StockStatus>().toEqualTypeOf<'High' | 'Medium' | 'Low'>();
    expectTypeOf<keyof GpuTypesListInput>().toEqualTypeOf<keyof GpuLowestPriceInput | 'id' | 'ids'>();
    expectTypeOf<GpuTypesListInput['gpuCount']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<GpuTypesListInput['ids']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<GpuTypesListInput['id']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<GpuTypesListInput['minMemoryInGb']>().toEqualTypeOf<GpuLowestPriceInput['minMemoryInGb']>();
    expectTypeOf<GpuTypesListInput['secureCloud']>().toEqualTypeOf<GpuLowestPriceInput['secureCloud']>();
  });

  it('signatures', () => {
    expectTypeOf<GpuTypesApi['list']>().toEqualTypeOf<(input?: GpuTypesListInput, options?: GraphQLCallOptions) => Promise<GpuType[]>>();
    expectTypeOf<GpuTypesApi['offers']>().toEqualTypeOf<(input?: GpuOffersInput, options?: GraphQLCallOptions) => Promise<GpuOffer[]>>();
    expectTypeOf(createRunpodClient().gpuTypes).toEqualTypeOf<GpuTypesApi>();
  });

  it('transportOf and TransportUnsupportedError', () => {
    expectTypeOf(transportOf).returns.toEqualTypeOf<'graphql' | 'rest' | undefined>();
    expectTypeOf<TransportUnsupportedError>().toMatchTypeOf<ValidationError>();
    expectTypeOf<TransportUnsupportedError['fields']>().toEqualTypeOf<readonly string[]>();
  });
});

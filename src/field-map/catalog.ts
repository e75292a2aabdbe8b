// The GPU catalog (GpuType, LowestPrice), CPU types and data centres, and their root fields: what a
// public price page reads, so every field is of scope `catalog`.
import { call, derived, holding, informational, decisive, path, readPath, standIn, WrongRestShape, type Derivations, type FieldEntry, type FieldMap } from './types.js';

const NOT_IN_REST = 'REST v2 has no such field';
const NO_RESERVED_PRICES = 'REST v2 lists on-demand prices only (no savings-plan terms)';
const DISCONTINUED_SPOT = 'spot (interruptible) pods are discontinued';

export const catalogQueryFields: Readonly<Record<string, FieldEntry>> = {
  gpuTypes: holding('GpuType', call(['GET /v2/catalog/gpus'], 'catalog')),
  cpuTypes: holding('CpuType', call(['GET /v2/catalog/cpus'], 'catalog')),
  dataCenters: holding('DataCenter', call(['GET /v2/catalog/datacenters'], 'catalog')),
};

export const catalogTypes: FieldMap = {
  GpuType: {
    rest: 'GpuType',
    scope: 'catalog',
    fields: {
      id: path('id'),
      displayName: path('name'),
      manufacturer: path('manufacturer'),
      memoryInGb: path('memory'),
      secureCloud: path('secure'),
      communityCloud: path('community'),
      securePrice: path('price.secure'),
      communityPrice: path('price.community'),
      maxGpuCountSecureCloud: path('maxCount.secure'),
      maxGpuCountCommunityCloud: path('maxCount.community'),
      maxGpuCount: derived('GpuType.maxGpuCount', ['maxCount.secure', 'maxCount.community'], 'the larger of the two clouds\' ceilings: the most GPUs of this type one pod can have anywhere'),
      lowestPrice: holding('LowestPrice', call(['GET /v2/catalog/gpus'])),
      cudaCores: informational('REST v2 has no CUDA core count (a figure of the card\'s data sheet)'),
      clusterPrice: decisive('REST v2 prices clusters per cluster, not per GPU type'),
      oneWeekPrice: informational(NO_RESERVED_PRICES),
      oneMonthPrice: informational(NO_RESERVED_PRICES),
      threeMonthPrice: informational(NO_RESERVED_PRICES),
      sixMonthPrice: informational(NO_RESERVED_PRICES),
      oneYearPrice: informational(NO_RESERVED_PRICES),
      communitySpotPrice: informational(DISCONTINUED_SPOT),
      secureSpotPrice: informational(DISCONTINUED_SPOT),
      throughput: decisive(NOT_IN_REST),
      minPodGpuCount: decisive(NOT_IN_REST),
      nodeGroupGpuSizes: decisive(NOT_IN_REST),
      nodeGroupDatacenters: decisive(NOT_IN_REST),
    },
  },
  /**
   * Built by `GpuType.lowestPrice` from the type's REST entries for the filters asked (one per
   * cloud): src/gpu-types/rest-path.ts `lowestPriceOf` gives these keys.
   */
  LowestPrice: {
    rest: null,
    scope: 'catalog',
    fields: {
      gpuTypeId: path('gpuTypeId'),
      gpuName: path('gpuName'),
      uninterruptablePrice: path('uninterruptablePrice'),
      stockStatus: path('stockStatus'),
      maxGpuCount: path('maxGpuCount'),
      availableGpuCounts: standIn(null, 'REST v2 gives a ceiling (maxCount) and a stock level, not the counts in stock (null, as rp.gpuTypes has always answered it over REST v2)'),
      minMemory: decisive(NOT_IN_REST),
      minVcpu: decisive(NOT_IN_REST),
      rentalPercentage: decisive(NOT_IN_REST),
      rentedCount: decisive(NOT_IN_REST),
      totalCount: decisive(NOT_IN_REST),
      minDownload: decisive(NOT_IN_REST),
      minDisk: decisive(NOT_IN_REST),
      minUpload: decisive(NOT_IN_REST),
      countryCode: decisive(NOT_IN_REST),
      supportPublicIp: decisive(NOT_IN_REST),
      compliance: decisive('REST v2 gives compliance per data centre (dataCenters), not per offer'),
      maxUnreservedGpuCount: decisive(NOT_IN_REST),
      minimumBidPrice: informational('spot pods are discontinued: there is no bid price, and REST v2 has none'),
      clusterPrice: decisive("REST v2's catalog prices a GPU for pods (price.secure, price.community) and serverless, not for clusters"),
      gpuTypeDatacenters: decisive('not mapped yet: REST v2 has availability per data centre (GET /v2/catalog/gpus?include=AVAILABILITY, dataCenters[].availability)'),
      gpuTypeCudaVersions: holding('GpuTypeCudaVersionAvailability', path('cudaVersions')),
    },
  },
  CpuType: {
    rest: 'CpuType',
    scope: 'catalog',
    fields: {
      id: path('id'),
      displayName: path('name'),
      groupId: path('group'),
      manufacturer: informational('REST v2 names the CPU flavour, not its maker'),
      cores: informational('REST v2 gives the vCPU range of a flavour (vcpu.min, vcpu.max), not the cores of the CPU'),
      threadsPerCore: informational('REST v2 has no threads per core (a figure of the CPU\'s data sheet)'),
    },
  },
  DataCenter: {
    rest: 'DataCenter',
    scope: 'catalog',
    fields: {
      id: path('id'),
      name: path('name'),
      region: path('region'),
      globalNetwork: path('globalNetwork'),
      compliance: derived('DataCenter.compliance', ['compliance'], "REST v2 lists the same certifications; the ones GraphQL has no value for (HIPAA, RENEWABLE) are left out"),
      storageSupport: derived('DataCenter.storageSupport', ['networkVolumeTypes'], 'a data centre supports network storage when it offers a network volume type'),
      location: decisive('REST v2 gives the region (region) and the name, not a location'),
      storage: decisive(NOT_IN_REST),
      s3apiEnabled: decisive(NOT_IN_REST),
      storageClusters: decisive(NOT_IN_REST),
      listed: decisive(NOT_IN_REST),
      // With no filter, the data centre's own list (include=GPU_AVAILABILITY); with a GPU count, a
      // cloud or CUDA versions, the GPU catalog scoped to them, per data centre
      // (src/graphql/in-process/resolvers/catalog.ts). Never a null for "no stock": a type out of
      // stock is listed with stockStatus None.
      gpuAvailability: holding('GpuAvailability', call(['GET /v2/catalog/datacenters', 'GET /v2/catalog/gpus'])),
      pools: decisive(NOT_IN_REST),
    },
  },
  /** One CUDA version of a GPU type's hosts (`cudaVersions` of GET /v2/catalog/gpus?include=AVAILABILITY). */
  GpuTypeCudaVersionAvailability: {
    rest: 'CudaVersionAvailability',
    scope: 'catalog',
    fields: {
      cudaVersion: path('version'),
      availability: derived('GpuTypeCudaVersionAvailability.availability', ['available'], 'GraphQL says AVAILABLE or UNAVAILABLE where REST v2 says true or false (a host of that CUDA version has the GPUs asked for free)'),
    },
  },
  /** One GPU type's stock in one data centre: REST v2's `CatalogResourceAvailability`. */
  GpuAvailability: {
    rest: 'CatalogResourceAvailability',
    scope: 'catalog',
    fields: {
      id: path('id'),
      gpuTypeId: path('id'),
      displayName: path('name'),
      gpuTypeDisplayName: path('name'),
      stockStatus: derived('GpuAvailability.stockStatus', ['availability'], "GraphQL's spelling of REST v2's level (HIGH is High, NONE is None), as LowestPrice.stockStatus spells it"),
      available: derived('GpuAvailability.available', ['availability'], 'in stock at any level but NONE'),
      gpuType: holding('GpuType', call(['GET /v2/catalog/gpus'])),
    },
  },
};

/** GraphQL's `stockStatus` spelling of REST v2's availability levels. */
export const STOCK_STATUS: Readonly<Record<string, string>> = { NONE: 'None', LOW: 'Low', MEDIUM: 'Medium', HIGH: 'High' };

function level(parent: Readonly<Record<string, unknown>>): string {
  const value = readPath(parent, 'availability');
  if (typeof value !== 'string' || !Object.hasOwn(STOCK_STATUS, value)) throw new WrongRestShape('availability', 'NONE, LOW, MEDIUM or HIGH');
  return value;
}

const GRAPHQL_COMPLIANCE = new Set(['GDPR', 'ISO_IEC_27001', 'ISO_14001', 'PCI_DSS', 'HITRUST', 'SOC_1_TYPE_2', 'SOC_2_TYPE_2', 'SOC_3_TYPE_2', 'ITAR', 'FISMA_HIGH']);

function list(parent: Readonly<Record<string, unknown>>, at: string): unknown[] {
  const value = readPath(parent, at);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new WrongRestShape(at, 'a list');
  return value;
}

function count(parent: Readonly<Record<string, unknown>>, at: string): number | undefined {
  const value = readPath(parent, at);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new WrongRestShape(at, 'a whole number');
  return value;
}

export const catalogDerivations: Derivations = {
  'GpuType.maxGpuCount': (type) => {
    const counts = [count(type, 'maxCount.secure'), count(type, 'maxCount.community')].filter((n): n is number => n !== undefined);
    return counts.length ? Math.max(...counts) : null;
  },
  'DataCenter.compliance': (centre) => list(centre, 'compliance').filter((c) => typeof c === 'string' && GRAPHQL_COMPLIANCE.has(c)),
  'DataCenter.storageSupport': (centre) => list(centre, 'networkVolumeTypes').length > 0,
  'GpuTypeCudaVersionAvailability.availability': (cuda) => {
    const available = readPath(cuda, 'available');
    if (typeof available !== 'boolean') throw new WrongRestShape('available', 'true or false');
    return available ? 'AVAILABLE' : 'UNAVAILABLE';
  },
  'GpuAvailability.stockStatus': (stock) => STOCK_STATUS[level(stock)],
  'GpuAvailability.available': (stock) => level(stock) !== 'NONE',
};

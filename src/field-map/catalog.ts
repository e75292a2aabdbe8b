// The GPU catalog (GpuType, LowestPrice), CPU types and data centres, and their root fields: what a
// public price page reads, so every field is of scope `catalog`.
import { call, derived, holding, informational, decisive, path, readPath, standIn, WrongRestShape, type Derivations, type FieldEntry, type FieldMap } from './types.js';
import { STOCK_STATUS } from './stock-status.js';

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
      maxGpuCount: derived('GpuType.maxGpuCount', ['maxCount.secure', 'maxCount.community']),
      lowestPrice: holding('LowestPrice', call(['GET /v2/catalog/gpus'])),
      cudaCores: informational('REST v2 has no CUDA core count (a figure of the card\'s data sheet)'),
      clusterPrice: decisive(),
      oneWeekPrice: informational(NO_RESERVED_PRICES),
      oneMonthPrice: informational(NO_RESERVED_PRICES),
      threeMonthPrice: informational(NO_RESERVED_PRICES),
      sixMonthPrice: informational(NO_RESERVED_PRICES),
      oneYearPrice: informational(NO_RESERVED_PRICES),
      communitySpotPrice: informational(DISCONTINUED_SPOT),
      secureSpotPrice: informational(DISCONTINUED_SPOT),
      throughput: decisive(),
      minPodGpuCount: decisive(),
      nodeGroupGpuSizes: decisive(),
      nodeGroupDatacenters: decisive(),
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
      availableGpuCounts: standIn(null),
      minMemory: decisive(),
      minVcpu: decisive(),
      rentalPercentage: decisive(),
      rentedCount: decisive(),
      totalCount: decisive(),
      minDownload: decisive(),
      minDisk: decisive(),
      minUpload: decisive(),
      countryCode: decisive(),
      supportPublicIp: decisive(),
      compliance: decisive(),
      maxUnreservedGpuCount: decisive(),
      minimumBidPrice: informational('spot pods are discontinued: there is no bid price, and REST v2 has none'),
      clusterPrice: decisive(),
      gpuTypeDatacenters: decisive(),
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
      compliance: derived('DataCenter.compliance', ['compliance']),
      storageSupport: derived('DataCenter.storageSupport', ['networkVolumeTypes']),
      location: decisive(),
      storage: decisive(),
      s3apiEnabled: decisive(),
      storageClusters: decisive(),
      listed: decisive(),
      // With no filter, the data centre's own list (include=GPU_AVAILABILITY); with a GPU count, a
      // cloud or CUDA versions, the GPU catalog scoped to them, per data centre
      // (src/graphql/in-process/resolvers/catalog.ts). Never a null for "no stock": a type out of
      // stock is listed with stockStatus None.
      gpuAvailability: holding('GpuAvailability', call(['GET /v2/catalog/datacenters', 'GET /v2/catalog/gpus'])),
      pools: decisive(),
    },
  },
  /** One CUDA version of a GPU type's hosts (`cudaVersions` of GET /v2/catalog/gpus?include=AVAILABILITY). */
  GpuTypeCudaVersionAvailability: {
    rest: 'CudaVersionAvailability',
    scope: 'catalog',
    fields: {
      cudaVersion: path('version'),
      availability: derived('GpuTypeCudaVersionAvailability.availability', ['available']),
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
      stockStatus: derived('GpuAvailability.stockStatus', ['availability']),
      available: derived('GpuAvailability.available', ['availability']),
      gpuType: holding('GpuType', call(['GET /v2/catalog/gpus'])),
    },
  },
};

export { STOCK_STATUS };

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
  'GpuAvailability.stockStatus': (stock) => STOCK_STATUS[level(stock) as keyof typeof STOCK_STATUS],
  'GpuAvailability.available': (stock) => level(stock) !== 'NONE',
};

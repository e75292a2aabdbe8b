// Loaded on first use only (a dynamic import), so clients that never leave GraphQL do not carry it.
import { TransportUnsupportedError, ValidationError } from '../errors.js';
import { STOCK_STATUS } from '../field-map/stock-status.js';
import type { Compliance } from '../graphql/__generated__/operations.js';
import type { GraphQLCallOptions } from '../graphql/graphql-client.js';
import type { RestCatalogApi } from '../rest/catalog.js';
import type { RestCall, RestRequester } from '../rest/rest-request.js';
import type { AvailabilityLevel, GpuCatalogQuery, GpuType as RestGpuType } from '../rest/types.js';
import type { CallOptions } from '../transport/options.js';
import type { GpuType, GpuTypesListInput } from './types.js';

/**
 * What the REST path reads through: the client's REST requester, and the catalog (shared within
 * one document in process). Handed in by the caller, which has them: importing the REST modules
 * here would split them into a shared chunk that costs the code-split start-up 0.7 KB (measured
 * with pods/rest-path.ts, 2026-11-28).
 */
export interface GpuRestSource {
  readonly rest: RestRequester;
  readonly catalog: RestCatalogApi;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

type Cloud = NonNullable<GpuCatalogQuery['cloud']>;

/**
 * Whether the REST path must refuse each filter of `gpuTypes.list`. A Record over every key, so a
 * new GraphQL filter breaks the build here until someone decides. `true`: REST v2's catalog has no
 * counterpart (host RAM, vCPUs, disk, bandwidth, public IP, AI API types): refused, never dropped.
 */
const UNSUPPORTED: Record<keyof GpuTypesListInput, boolean> = {
  id: false,
  ids: false,
  gpuCount: false,
  secureCloud: false,
  countryCode: false,
  allowedCudaVersions: false,
  cudaVersion: false,
  dataCenterId: false,
  compliance: false,
  globalNetwork: false,
  // REST v2's catalog filters on a minimum CUDA version and on a product, but the REST path does not map them yet: refused by name.
  minCudaVersion: true,
  machineProducts: true,
  minMemoryInGb: true,
  minVcpuCount: true,
  minDisk: true,
  totalDisk: true,
  minDownload: true,
  minUpload: true,
  supportPublicIp: true,
  includeAiApi: true,
  isCluster: true,
  podCount: true,
  throughput: true,
};

/** Every value of the schema's `Compliance` (a Record, so a new value breaks the build here); REST v2's catalog takes each. */
const COMPLIANCE_VALUES: Record<Compliance, true> = {
  FISMA_HIGH: true, GDPR: true, HIPAA: true, HITRUST: true, ISO_14001: true, ISO_IEC_27001: true, ITAR: true, PCI_DSS: true, SOC_1_TYPE_2: true, SOC_2_TYPE_2: true, SOC_3_TYPE_2: true,
};
const COMPLIANCE = Object.keys(COMPLIANCE_VALUES) as Compliance[];
const LEVELS: readonly AvailabilityLevel[] = ['NONE', 'LOW', 'MEDIUM', 'HIGH'];

// A filter left at a value that constrains nothing (unset, false, a minimum of 0) is not a constraint.
const isVacuous = (value: unknown) => value === undefined || value === null || value === false || value === 0;

/** The filters of `input` the REST path cannot honour, by name; any key it does not know counts. */
function unsupportedGpuFilters(input: object): string[] {
  return Object.entries(input)
    .filter(([key, value]) => !isVacuous(value) && (!Object.hasOwn(UNSUPPORTED, key) || UNSUPPORTED[key as keyof GpuTypesListInput]))
    .map(([key]) => key);
}

function stringList(kit: GpuRestSource, field: string, value: unknown, pattern: RegExp, hint: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new ValidationError(field, `must be an array of ${hint}`);
  const out: string[] = [];
  for (const entry of value as unknown[]) {
    if (entry === null || entry === undefined) continue;
    if (typeof entry !== 'string' || !pattern.test(entry)) throw new ValidationError(field, `must be an array of ${hint}`);
    out.push(entry);
  }
  return out;
}

function optionalString(kit: GpuRestSource, field: string, value: unknown, pattern: RegExp, hint: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !pattern.test(value)) throw new ValidationError(field, `must be ${hint}`);
  return value;
}

function optionalBoolean(kit: GpuRestSource, field: string, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new ValidationError(field, 'must be true, false or unset');
  return value;
}

const cudaNumber = (v: string) => v.split('.').map(Number) as [number, number?];
function cudaAtLeast(version: string, min: string): boolean {
  const [a, b = 0] = cudaNumber(version);
  const [c, d = 0] = cudaNumber(min);
  return a > c || (a === c && b >= d);
}

interface RestListPlan {
  readonly clouds: readonly Cloud[];
  readonly query: Omit<GpuCatalogQuery, 'cloud'>;
  readonly ids: ReadonlySet<string> | undefined;
  readonly dataCenterId: string | undefined;
  readonly compliance: Compliance[] | undefined;
  readonly globalNetwork: boolean;
  /** `allowedCudaVersions` and `cudaVersion` leave no version: nothing can be in stock. */
  readonly noCudaMatch: boolean;
}

/** Checks every filter and turns it into catalog queries; throws before anything is sent. */
function plan(kit: GpuRestSource, input: GpuTypesListInput, gpuCount: number): RestListPlan {
  const unsupported = unsupportedGpuFilters(input);
  if (unsupported.length > 0) {
    throw new TransportUnsupportedError(
      unsupported,
      `REST v2's GPU catalog cannot filter by ${unsupported.join(', ')}, so nothing was sent; leave ${unsupported.length > 1 ? 'them' : 'it'} out of the filter`,
    );
  }
  const secureCloud = optionalBoolean(kit, 'secureCloud', input.secureCloud);
  const id = optionalString(kit, 'id', input.id, /./, 'a GPU type id');
  const ids = stringList(kit, 'ids', input.ids, /./, 'GPU type ids');
  const country = optionalString(kit, 'countryCode', input.countryCode, /^[A-Za-z]{2}$/, 'a two-letter country code like "US"');
  const allowed = stringList(kit, 'allowedCudaVersions', input.allowedCudaVersions, /^\d+\.\d+$/, 'CUDA versions like "12.4"');
  const minCuda = optionalString(kit, 'cudaVersion', input.cudaVersion, /^\d+(\.\d+)?$/, 'a CUDA version like "12.4"');
  const dataCenterId = optionalString(kit, 'dataCenterId', input.dataCenterId, /./, 'a data centre id');
  const compliance = stringList(kit, 'compliance', input.compliance, /^[A-Z0-9_]+$/, `compliance values (${COMPLIANCE.join(', ')})`);
  if (compliance?.some((c) => !COMPLIANCE.includes(c as Compliance))) throw new ValidationError('compliance', `must hold only ${COMPLIANCE.join(', ')}`);
  const globalNetwork = optionalBoolean(kit, 'globalNetwork', input.globalNetwork) === true;

  // The catalog takes either an exact set or a minimum (400 with both): send the versions that satisfy both.
  const cudaVersions = allowed?.length ? (minCuda ? allowed.filter((v) => cudaAtLeast(v, minCuda)) : allowed) : undefined;
  // id and ids both given: GraphQL's filter wants a type that is each; the same here.
  let wanted: Set<string> | undefined = id !== undefined ? new Set([id]) : undefined;
  if (ids) wanted = new Set(wanted ? ids.filter((x) => wanted!.has(x)) : ids);
  return {
    clouds: secureCloud === undefined ? ['SECURE', 'COMMUNITY'] : [secureCloud ? 'SECURE' : 'COMMUNITY'],
    query: {
      include: ['AVAILABILITY'],
      product: ['POD'],
      count: gpuCount,
      ...(country && { countryCodes: [country.toUpperCase()] }),
      ...(cudaVersions?.length ? { cudaVersions } : minCuda !== undefined && !allowed?.length ? { minCudaVersion: minCuda } : {}),
    },
    ids: wanted,
    dataCenterId,
    compliance: compliance?.length ? (compliance as Compliance[]) : undefined,
    globalNetwork,
    noCudaMatch: cudaVersions !== undefined && cudaVersions.length === 0,
  };
}

const isLevel = (value: unknown): value is AvailabilityLevel => typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
const isPrice = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** Every field the mapping reads, of the contract's type. */
function isRestGpuType(value: unknown): value is RestGpuType {
  if (!isRecord(value) || typeof value.id !== 'string' || typeof value.name !== 'string') return false;
  if (typeof value.memory !== 'number' || !Number.isFinite(value.memory) || typeof value.secure !== 'boolean' || typeof value.community !== 'boolean') return false;
  if (!isRecord(value.price) || !isPrice(value.price.secure) || !isPrice(value.price.community)) return false;
  if (value.availability !== undefined && !isLevel(value.availability)) return false;
  return value.dataCenters === undefined || (Array.isArray(value.dataCenters) && value.dataCenters.every((d) => isRecord(d) && typeof d.id === 'string' && isLevel(d.availability)));
}

const higher = (a: AvailabilityLevel, b: AvailabilityLevel) => (LEVELS.indexOf(a) >= LEVELS.indexOf(b) ? a : b);

/** Stock of one type in one cloud: overall, or the best of the data centres the filters allow. */
function levelOf(type: RestGpuType, allowedDataCenters: ReadonlySet<string> | undefined): AvailabilityLevel {
  if (!allowedDataCenters) return type.availability ?? 'NONE';
  return (type.dataCenters ?? []).filter((d) => allowedDataCenters.has(d.id)).reduce<AvailabilityLevel>((best, d) => higher(best, d.availability), 'NONE');
}

const callOptions = (options: GraphQLCallOptions | undefined): CallOptions => {
  const { idempotent: _idempotent, ...rest } = options ?? {};
  return rest;
};

/** What `GpuType.lowestPrice` is over REST v2, for the filters and count asked (src/field-map/catalog.ts maps its keys). */
export interface RestLowestPrice {
  readonly gpuTypeId: string;
  readonly gpuName: string;
  /** The list price of one GPU: the lowest of the clouds in stock. */
  readonly uninterruptablePrice: number;
  readonly stockStatus: string;
  /** The most GPUs one pod can have, in the clouds asked. */
  readonly maxGpuCount: number | null;
  /** Each CUDA version hosts of this type run, and whether one of them has stock (in any cloud asked). */
  readonly cudaVersions: ReadonlyArray<{ readonly version: string; readonly available: boolean }>;
}

/** One GPU type of REST v2's catalog, with its lowest price for the filters asked. */
export interface RestGpuOffer {
  readonly type: RestGpuType;
  readonly lowestPrice: RestLowestPrice;
}

/**
 * GPU types over REST v2: `GET /v2/catalog/gpus` with availability for pods, once per cloud asked
 * for. Lossy, and documented so: the price is the list price of one GPU (the lowest of the clouds
 * in stock), stock is scoped to the count and cloud, and REST v2 has no per-count stock.
 */
export async function readOverRest(kit: GpuRestSource, input: GpuTypesListInput, gpuCount: number, options?: GraphQLCallOptions): Promise<RestGpuOffer[]> {
  const p = plan(kit, input, gpuCount);
  const opts = callOptions(options);
  const { catalog } = kit;

  const allowedDataCenters = async (): Promise<ReadonlySet<string> | undefined> => {
    let allowed: Set<string> | undefined = p.dataCenterId !== undefined ? new Set([p.dataCenterId]) : undefined;
    if (p.compliance || p.globalNetwork) {
      const centres = await catalog.dataCenters({ ...(p.compliance && { compliance: p.compliance }), ...(p.globalNetwork && { globalNetwork: true }) }, opts);
      const ids = new Set(centres.map((d) => d.id));
      allowed = allowed ? new Set([...allowed].filter((id) => ids.has(id))) : ids;
    }
    return allowed;
  };

  const [centres, ...answers] = await Promise.all([allowedDataCenters(), ...p.clouds.map((cloud) => readCloud(kit, { ...p.query, cloud }, opts))]);

  const seen = new Map<string, { type: RestGpuType; levels: Array<{ cloud: Cloud; level: AvailabilityLevel }>; cudas: Map<string, boolean> }>();
  answers.forEach((types, i) => {
    const cloud = p.clouds[i]!;
    for (const type of types) {
      if (p.ids && !p.ids.has(type.id)) continue;
      const level = p.noCudaMatch ? 'NONE' : levelOf(type, centres);
      const entry = seen.get(type.id) ?? { type, levels: [], cudas: new Map<string, boolean>() };
      entry.levels.push({ cloud, level });
      for (const cuda of Array.isArray(type.cudaVersions) ? type.cudaVersions : []) {
        if (isRecord(cuda) && typeof cuda.version === 'string') entry.cudas.set(cuda.version, entry.cudas.get(cuda.version) === true || cuda.available === true);
      }
      seen.set(type.id, entry);
    }
  });

  const result: RestGpuOffer[] = [];
  for (const { type, levels, cudas } of seen.values()) {
    const offered = levels.filter(({ cloud }) => (cloud === 'SECURE' ? type.secure : type.community));
    const inStock = levels.filter(({ level }) => level !== 'NONE');
    // The clouds in stock; with none, those that offer the type; with none, every cloud asked.
    const priced = (inStock.length > 0 ? inStock : offered.length > 0 ? offered : levels).map(({ cloud }) => (cloud === 'SECURE' ? type.price.secure : type.price.community));
    const level = levels.reduce<AvailabilityLevel>((best, l) => higher(best, l.level), 'NONE');
    const ceilings = levels.map(({ cloud }) => (isRecord(type.maxCount) ? type.maxCount[cloud === 'SECURE' ? 'secure' : 'community'] : undefined)).filter((n): n is number => typeof n === 'number');
    result.push({
      type,
      lowestPrice: {
        gpuTypeId: type.id,
        gpuName: type.name,
        uninterruptablePrice: Math.min(...priced),
        stockStatus: STOCK_STATUS[level],
        maxGpuCount: ceilings.length ? Math.max(...ceilings) : null,
        cudaVersions: [...cudas].map(([version, available]) => ({ version, available })),
      },
    });
  }
  return result;
}

/** `gpuTypes.list` over REST v2: {@link readOverRest}, in GraphQL's `GpuType` shape (`availableGpuCounts` is null). */
export async function listOverRest(kit: GpuRestSource, input: GpuTypesListInput, gpuCount: number, options?: GraphQLCallOptions): Promise<GpuType[]> {
  return (await readOverRest(kit, input, gpuCount, options)).map(({ type, lowestPrice }) => ({
    id: type.id,
    displayName: type.name,
    memoryInGb: type.memory,
    secureCloud: type.secure,
    communityCloud: type.community,
    lowestPrice: { uninterruptablePrice: lowestPrice.uninterruptablePrice, stockStatus: lowestPrice.stockStatus, availableGpuCounts: null },
  }));
}

async function readCloud(kit: GpuRestSource, query: GpuCatalogQuery, options: CallOptions): Promise<RestGpuType[]> {
  const types = await kit.catalog.gpus(query, options);
  const bad = types.find((t) => !isRestGpuType(t));
  if (bad !== undefined) {
    const call: RestCall = { method: 'GET', path: '/catalog/gpus', route: 'GET /catalog/gpus', query, idempotent: true };
    throw kit.rest.core.wrongShape(kit.rest.http(call, options), 'GPU types with a name, memory, cloud flags, list prices and availability levels', bad);
  }
  return types;
}


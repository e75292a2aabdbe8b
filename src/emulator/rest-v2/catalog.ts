import { Hono } from 'hono';
import { compareCuda, SERVERLESS_PRICE_PER_SECOND, type GpuTypeSpec, type HostSpec } from '../catalog.js';
import { notFound } from '../errors.js';
import type { Platform } from '../platform.js';
import type { EmulatorEnv } from './context.js';
import { idParam, type RestV2Deps, type V2Context } from './context.js';
import { problem } from './problem.js';
import { PUBLIC_TEMPLATES, templateView } from './templates.js';

type Level = 'NONE' | 'LOW' | 'MEDIUM' | 'HIGH';

export interface CpuFlavor {
  id: string;
  name: string;
  group: string;
  vcpu: { min: number; max: number };
  ramGbPerVcpu: number;
  price: { securePerVcpu: number; serverlessPerVcpu: number };
}

/** The CPU flavors the emulator offers; CPU pods run in one secure data centre. */
export const CPU_FLAVORS: CpuFlavor[] = [
  { id: 'cpu3c', name: 'Compute-Optimized', group: 'Gen 3', vcpu: { min: 2, max: 32 }, ramGbPerVcpu: 2, price: { securePerVcpu: 0.03, serverlessPerVcpu: 0.025 } },
  { id: 'cpu3g', name: 'General Purpose', group: 'Gen 3', vcpu: { min: 2, max: 32 }, ramGbPerVcpu: 4, price: { securePerVcpu: 0.04, serverlessPerVcpu: 0.035 } },
  { id: 'cpu5c', name: 'Compute-Optimized', group: 'Gen 5', vcpu: { min: 2, max: 64 }, ramGbPerVcpu: 2, price: { securePerVcpu: 0.05, serverlessPerVcpu: 0.045 } },
];
const CPU_DATA_CENTER = 'EU-RO-1';

export const cpuFlavor = (id: string) => CPU_FLAVORS.find((f) => f.id === id);

interface DataCenterInfo {
  id: string;
  name: string;
  region: string;
  country: string;
  compliance: string[];
  globalNetwork: boolean;
  networkVolumeTypes: string[];
}

const KNOWN_DATA_CENTERS: DataCenterInfo[] = [
  { id: 'EU-RO-1', name: 'Romania 1', region: 'EUROPE', country: 'RO', compliance: ['GDPR', 'ISO_IEC_27001'], globalNetwork: true, networkVolumeTypes: ['STANDARD'] },
  { id: 'EU-SE-1', name: 'Sweden 1', region: 'EUROPE', country: 'SE', compliance: ['GDPR', 'RENEWABLE'], globalNetwork: false, networkVolumeTypes: ['STANDARD', 'HIGH_PERFORMANCE'] },
  { id: 'US-TX-3', name: 'Texas 3', region: 'NORTH_AMERICA', country: 'US', compliance: ['SOC_2_TYPE_2'], globalNetwork: true, networkVolumeTypes: ['STANDARD', 'HIGH_PERFORMANCE'] },
  { id: 'US-KS-2', name: 'Kansas 2', region: 'NORTH_AMERICA', country: 'US', compliance: ['SOC_2_TYPE_2'], globalNetwork: false, networkVolumeTypes: ['STANDARD'] },
  { id: 'US-GA-2', name: 'Georgia 2', region: 'NORTH_AMERICA', country: 'US', compliance: ['SOC_2_TYPE_2', 'HIPAA'], globalNetwork: true, networkVolumeTypes: ['STANDARD'] },
];

function dataCenterInfo(id: string): DataCenterInfo {
  const known = KNOWN_DATA_CENTERS.find((d) => d.id === id);
  if (known) return known;
  const [area = '', country = ''] = id.split('-');
  const region = area === 'US' || area === 'CA' ? 'NORTH_AMERICA' : area === 'EU' ? 'EUROPE' : area === 'AP' ? 'ASIA' : 'UNKNOWN';
  return { id, name: id, region, country: area === 'US' || area === 'CA' ? area : country, compliance: [], globalNetwork: false, networkVolumeTypes: ['STANDARD'] };
}

/** Every data centre the emulator's hosts (and its CPU machines) live in. */
export function dataCenters(platform: Platform): DataCenterInfo[] {
  return [...new Set([CPU_DATA_CENTER, ...platform.hosts.map((h) => h.dataCenterId)])].map(dataCenterInfo);
}

const POOLS: Record<string, string> = { 16: 'AMPERE_16', 24: 'ADA_24', 48: 'ADA_48_PRO', 80: 'AMPERE_80', 180: 'BLACKWELL_180' };
const MANUFACTURERS: Record<string, string> = { nvidia: 'NVIDIA', amd: 'AMD' };

function level(free: number, fits: boolean): Level {
  if (!fits || free <= 0) return 'NONE';
  return free > 5 ? 'HIGH' : free > 2 ? 'MEDIUM' : 'LOW';
}

/** `a,b` or repeated `x=a&x=b`: form style, not exploded, as the contract declares. */
function listParam(c: V2Context, name: string, allowed?: readonly string[], pattern?: RegExp): string[] | undefined {
  const raw = c.req.queries(name);
  if (!raw) return undefined;
  const values = raw.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  for (const v of values) {
    if ((allowed && !allowed.includes(v)) || (pattern && !pattern.test(v))) throw problem(400, `Query parameter ${name}: '${v}' is not allowed.`);
  }
  return values;
}

function intParam(c: V2Context, name: string, min: number): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw problem(400, `Query parameter ${name} must be an integer of at least ${min}.`);
  return n;
}

/** `include=AVAILABILITY` needs `product`: stock differs by product. Returns whether to include it. */
function availabilityWanted(c: V2Context, products: readonly string[]): boolean {
  const include = listParam(c, 'include', ['AVAILABILITY']);
  if (include && include.length > 1) throw problem(400, 'Query parameter include takes one value.');
  const product = listParam(c, 'product', products);
  if (include?.length && !product?.length) throw problem(400, 'include=AVAILABILITY requires product (one of ' + products.join(', ') + ').');
  return !!include?.length;
}

interface GpuFilter {
  count: number;
  cloud?: string | undefined;
  countries?: string[] | undefined;
  cudaVersions?: string[] | undefined;
  minCudaVersion?: string | undefined;
}

function gpuFilter(c: V2Context): GpuFilter {
  const cloud = c.req.query('cloud');
  if (cloud !== undefined && cloud !== 'SECURE' && cloud !== 'COMMUNITY') throw problem(400, 'Query parameter cloud must be SECURE or COMMUNITY.');
  const minCudaVersion = c.req.query('minCudaVersion');
  if (minCudaVersion !== undefined && !/^\d+(\.\d+)?$/.test(minCudaVersion)) throw problem(400, 'Query parameter minCudaVersion must look like 12.4.');
  return {
    count: intParam(c, 'count', 1) ?? 1,
    cloud,
    countries: listParam(c, 'countryCodes', undefined, /^[A-Z]{2}$/),
    cudaVersions: listParam(c, 'cudaVersions', undefined, /^\d+\.\d+$/),
    minCudaVersion,
  };
}

/** A GPU catalog query as the filter the catalog's views apply (the emulator's GraphQL asks with one). */
export function gpuFilterOf(query: { count?: number | undefined; cloud?: string | undefined; countryCodes?: string[] | undefined; cudaVersions?: string[] | undefined; minCudaVersion?: string | undefined }): GpuFilter {
  return { count: query.count ?? 1, cloud: query.cloud, countries: query.countryCodes, cudaVersions: query.cudaVersions, minCudaVersion: query.minCudaVersion };
}

function hostMatches(h: HostSpec, f: GpuFilter): boolean {
  return (
    (!f.cloud || h.secureCloud === (f.cloud === 'SECURE')) &&
    (!f.countries || f.countries.includes(dataCenterInfo(h.dataCenterId).country)) &&
    (!f.cudaVersions || f.cudaVersions.includes(h.cudaVersion)) &&
    (!f.minCudaVersion || compareCuda(h.cudaVersion, f.minCudaVersion) >= 0)
  );
}

function stockOf(platform: Platform, hosts: HostSpec[], count: number): Level {
  const frees = hosts.map((h) => platform.freeGpus(h.id));
  return level(
    frees.reduce((a, b) => a + b, 0),
    frees.some((f) => f >= count),
  );
}

export function gpuView(platform: Platform, type: GpuTypeSpec, filter: GpuFilter, withAvailability: boolean): Record<string, unknown> {
  const hosts = platform.hosts.filter((h) => h.gpuTypeId === type.id);
  const maxOn = (secure: boolean) => Math.max(0, ...hosts.filter((h) => h.secureCloud === secure).map((h) => h.gpuTotal));
  const view: Record<string, unknown> = {
    id: type.id,
    name: type.displayName,
    pool: POOLS[type.memoryInGb] ?? null,
    manufacturer: MANUFACTURERS[type.manufacturer.toLowerCase()] ?? 'UNKNOWN',
    memory: type.memoryInGb,
    secure: hosts.some((h) => h.secureCloud),
    community: hosts.some((h) => !h.secureCloud),
    price: { secure: type.securePrice, community: type.communityPrice, serverless: Math.round(SERVERLESS_PRICE_PER_SECOND * 3600 * 10_000) / 10_000 },
    maxCount: { secure: maxOn(true), community: maxOn(false) },
  };
  if (!withAvailability) return view;
  const matching = hosts.filter((h) => hostMatches(h, filter));
  view.availability = stockOf(platform, matching, filter.count);
  view.dataCenters = [...new Set(hosts.map((h) => h.dataCenterId))].map((id) => ({
    id,
    name: dataCenterInfo(id).name,
    availability: stockOf(
      platform,
      matching.filter((h) => h.dataCenterId === id),
      filter.count,
    ),
  }));
  view.cudaVersions = [...new Set(hosts.map((h) => h.cudaVersion))]
    .sort(compareCuda)
    .map((version) => ({ version, available: matching.some((h) => h.cudaVersion === version && platform.freeGpus(h.id) >= filter.count) }));
  return view;
}

function cpuView(flavor: CpuFlavor, withAvailability: boolean): Record<string, unknown> {
  const view: Record<string, unknown> = { ...flavor, vcpu: { ...flavor.vcpu }, price: { ...flavor.price } };
  if (withAvailability) {
    view.availability = 'HIGH';
    view.dataCenters = [{ id: CPU_DATA_CENTER, name: dataCenterInfo(CPU_DATA_CENTER).name, availability: 'HIGH' }];
  }
  return view;
}

export function dataCenterView(platform: Platform, dc: DataCenterInfo, include: readonly string[]): Record<string, unknown> {
  const { country: _country, ...view } = dc;
  const out: Record<string, unknown> = { ...view };
  if (include.includes('GPU_AVAILABILITY')) {
    out.gpuAvailability = platform.gpuTypes
      .map((t) => ({ t, hosts: platform.hosts.filter((h) => h.gpuTypeId === t.id && h.dataCenterId === dc.id) }))
      .filter(({ hosts }) => hosts.length > 0)
      .map(({ t, hosts }) => ({ id: t.id, name: t.displayName, availability: stockOf(platform, hosts, 1) }));
  }
  if (include.includes('CPU_AVAILABILITY')) {
    out.cpuAvailability = dc.id === CPU_DATA_CENTER ? CPU_FLAVORS.map((f) => ({ id: f.id, name: f.name, availability: 'HIGH' })) : [];
  }
  return out;
}

export function catalogRoutes(deps: RestV2Deps): Hono<EmulatorEnv> {
  const { platform } = deps;
  const app = new Hono<EmulatorEnv>();

  app.get('/catalog/gpus', (c) => {
    const withAvailability = availabilityWanted(c, ['POD', 'CLUSTER', 'SERVERLESS']);
    const filter = gpuFilter(c);
    const types = platform.gpuTypes.filter((t) => !filter.countries || platform.hosts.some((h) => h.gpuTypeId === t.id && filter.countries!.includes(dataCenterInfo(h.dataCenterId).country)));
    return c.json({ gpus: types.map((t) => gpuView(platform, t, filter, withAvailability)) });
  });
  app.get('/catalog/gpus/:id', (c) => {
    const withAvailability = availabilityWanted(c, ['POD', 'CLUSTER', 'SERVERLESS']);
    const type = platform.gpuTypes.find((t) => t.id === idParam(c));
    if (!type) throw notFound('GPU type', idParam(c));
    return c.json(gpuView(platform, type, gpuFilter(c), withAvailability));
  });

  app.get('/catalog/cpus', (c) => {
    const withAvailability = availabilityWanted(c, ['POD', 'SERVERLESS']);
    const vcpuCount = intParam(c, 'vcpuCount', 2);
    const flavors = CPU_FLAVORS.filter((f) => vcpuCount === undefined || (vcpuCount >= f.vcpu.min && vcpuCount <= f.vcpu.max));
    return c.json({ cpus: flavors.map((f) => cpuView(f, withAvailability)) });
  });
  app.get('/catalog/cpus/:id', (c) => {
    const withAvailability = availabilityWanted(c, ['POD', 'SERVERLESS']);
    const flavor = cpuFlavor(idParam(c));
    if (!flavor) throw notFound('CPU flavor', idParam(c));
    return c.json(cpuView(flavor, withAvailability));
  });

  app.get('/catalog/datacenters', (c) => {
    const include = listParam(c, 'include', ['GPU_AVAILABILITY', 'CPU_AVAILABILITY']) ?? [];
    const regions = listParam(c, 'regions');
    const volumeTypes = listParam(c, 'networkVolumeTypes', ['STANDARD', 'HIGH_PERFORMANCE']);
    const compliance = listParam(c, 'compliance');
    const globalNetwork = c.req.query('globalNetwork');
    if (globalNetwork !== undefined && globalNetwork !== 'true' && globalNetwork !== 'false') throw problem(400, 'Query parameter globalNetwork must be true or false.');
    const found = dataCenters(platform).filter(
      (dc) =>
        (!regions || regions.includes(dc.region)) &&
        (!volumeTypes || volumeTypes.every((t) => dc.networkVolumeTypes.includes(t))) &&
        (!compliance || compliance.every((x) => dc.compliance.includes(x))) &&
        (globalNetwork === undefined || dc.globalNetwork === (globalNetwork === 'true')),
    );
    return c.json({ dataCenters: found.map((dc) => dataCenterView(platform, dc, include)) });
  });
  app.get('/catalog/datacenters/:id', (c) => {
    const include = listParam(c, 'include', ['GPU_AVAILABILITY', 'CPU_AVAILABILITY']) ?? [];
    const dc = dataCenters(platform).find((d) => d.id === idParam(c));
    if (!dc) throw notFound('data center', idParam(c));
    return c.json(dataCenterView(platform, dc, include));
  });

  app.get('/catalog/templates', (c) => {
    const source = c.req.query('source') ?? 'official';
    if (!['official', 'verified', 'community'].includes(source)) throw problem(400, 'Query parameter source must be official, verified or community.');
    // Not paged (at most 100), yet the newest contract answers the exhausted marker, as the paged lists' last page.
    const templates = PUBLIC_TEMPLATES.filter((t) => t.source === source).map((t) => templateView(t.template));
    return c.json({ templates, pagination: { nextCursor: null, hasNextPage: false } });
  });

  return app;
}

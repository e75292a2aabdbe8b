import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import {
  AbortError,
  ApiRetiredError,
  createRunpodClient,
  ServerError,
  TransportUnsupportedError,
  ValidationError,
  transportOf,
  type GpuTypesListInput,
  type RunpodClientOptions,
} from '../../src/index.js';
import type { TransportChangeEvent } from '../../src/transport/transport-choice.js';
import { captureError, json, recordingFetch } from '../helpers.js';

const emulators: Emulator[] = [];
afterEach(() => {
  for (const e of emulators.splice(0)) e.dispose();
});

/** A client on an in-process emulator, with every request it sends counted by API. */
function setup(emulatorOptions: EmulatorOptions = {}, clientOptions: Partial<RunpodClientOptions> = {}) {
  const emulator = createEmulator(emulatorOptions);
  emulators.push(emulator);
  const sent: string[] = [];
  const events: TransportChangeEvent[] = [];
  const base = emulator.clientOptions();
  const rp = createRunpodClient({
    ...base,
    onTransportChange: (e) => events.push(e),
    ...clientOptions,
    fetch: async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      sent.push(`${init?.method ?? 'GET'} ${url.pathname}${url.search.replace(/api_key=[^&]*&?/, '').replace(/^\?$/, '')}`);
      return base.fetch!(input, init);
    },
  });
  return { emulator, rp, sent, events, graphqlSent: () => sent.filter((s) => s.includes('/graphql')).length };
}

describe('gpuTypes over REST v2 after GraphQL retired', () => {
  it('list: same types and fields as over GraphQL, lossy fields as documented, tagged rest, one event, no GraphQL after the 410', async () => {
    const live = setup();
    const viaGraphql = await live.rp.gpuTypes.list({ gpuCount: 1 });
    expect(transportOf(viaGraphql)).toBe('graphql');
    expect(transportOf(viaGraphql[0])).toBe('graphql');

    const retired = setup({ graphqlRetired: true });
    const viaRest = await retired.rp.gpuTypes.list({ gpuCount: 1 });
    expect(transportOf(viaRest)).toBe('rest');
    expect(viaRest.every((t) => transportOf(t) === 'rest')).toBe(true);
    const pick = (t: (typeof viaRest)[number]) => ({ id: t.id, displayName: t.displayName, memoryInGb: t.memoryInGb, secureCloud: t.secureCloud, communityCloud: t.communityCloud });
    expect(viaRest.map(pick).sort((a, b) => a.id!.localeCompare(b.id!))).toEqual(viaGraphql.map(pick).sort((a, b) => a.id!.localeCompare(b.id!)));
    for (const t of viaRest) {
      expect(t.lowestPrice?.availableGpuCounts).toBeNull();
      expect(['High', 'Medium', 'Low', 'None']).toContain(t.lowestPrice?.stockStatus);
      expect(typeof t.lowestPrice?.uninterruptablePrice).toBe('number');
    }
    // The tag never shows in what a user serialises.
    expect(JSON.parse(JSON.stringify(viaRest))).toEqual(viaRest.map((t) => ({ ...t })));

    await retired.rp.gpuTypes.offers();
    expect(retired.graphqlSent()).toBe(1);
    expect(retired.events).toHaveLength(1);
    expect(retired.events[0]).toMatchObject({ surface: 'gpuTypes', operation: 'list', from: 'graphql', to: 'rest', reason: 'retired', sticky: true });
    expect(retired.events[0]!.error).toBeInstanceOf(ApiRetiredError);
  });

  it('offers: the same in-stock types, cheapest first, at the list price, tagged rest, count check skipped', async () => {
    for (const secureCloud of [true, false, undefined]) {
      const live = await setup().rp.gpuTypes.offers({ gpuCount: 1, secureCloud });
      const rest = await setup({ graphqlRetired: true }).rp.gpuTypes.offers({ gpuCount: 1, secureCloud });
      expect(rest.length).toBeGreaterThan(0);
      expect(transportOf(rest)).toBe('rest');
      expect(rest.every((o) => transportOf(o) === 'rest' && o.availableGpuCounts === null)).toBe(true);
      expect(rest.map((o) => o.pricePerHour)).toEqual(rest.map((o) => o.pricePerHour).sort((a, b) => a - b));
      expect(new Set(rest.map((o) => o.gpuTypeId))).toEqual(new Set(live.map((o) => o.gpuTypeId)));
      expect(rest.every((o) => o.cloud === (secureCloud === undefined ? 'ALL' : secureCloud ? 'SECURE' : 'COMMUNITY'))).toBe(true);
    }
  });

  it("podsTransport 'rest' never touches GraphQL; 'graphql' is strict and names the option", async () => {
    const forced = setup({}, { podsTransport: 'rest' });
    await forced.rp.gpuTypes.list();
    await forced.rp.gpuTypes.offers({ secureCloud: true });
    expect(forced.graphqlSent()).toBe(0);
    expect(forced.events).toEqual([]);

    const strict = setup({ graphqlRetired: true }, { podsTransport: 'graphql' });
    const err = await captureError<ApiRetiredError>(strict.rp.gpuTypes.offers());
    expect(err).toBeInstanceOf(ApiRetiredError);
    expect(err.replacement).toMatch(/podsTransport/);
    expect(strict.sent.filter((s) => s.includes('/v2/'))).toEqual([]);
  });

  it('asks /v2/catalog/gpus for pod availability at the count, once per cloud when none is given, with CUDA and country filters', async () => {
    const { rp, sent } = setup({}, { podsTransport: 'rest' });
    await rp.gpuTypes.list({ gpuCount: 2, countryCode: 'us', allowedCudaVersions: ['12.1', null, '12.4'], cudaVersion: '12.2' });
    expect(sent).toEqual([
      'GET /v2/catalog/gpus?include=AVAILABILITY&product=POD&count=2&countryCodes=US&cudaVersions=12.4&cloud=SECURE',
      'GET /v2/catalog/gpus?include=AVAILABILITY&product=POD&count=2&countryCodes=US&cudaVersions=12.4&cloud=COMMUNITY',
    ]);
    sent.length = 0;
    await rp.gpuTypes.list({ secureCloud: false, cudaVersion: '12' });
    expect(sent).toEqual(['GET /v2/catalog/gpus?include=AVAILABILITY&product=POD&count=1&minCudaVersion=12&cloud=COMMUNITY']);
  });

  it.each<[string, GpuTypesListInput, string[]]>([
    ['host RAM', { minMemoryInGb: 64 }, ['minMemoryInGb']],
    ['vCPUs', { minVcpuCount: 8 }, ['minVcpuCount']],
    ['disk', { minDisk: 100, totalDisk: 200 }, ['minDisk', 'totalDisk']],
    ['bandwidth', { minDownload: 100, minUpload: 100 }, ['minDownload', 'minUpload']],
    ['public IP', { supportPublicIp: true }, ['supportPublicIp']],
    ['AI API types', { includeAiApi: true }, ['includeAiApi']],
    ['a key no API knows', { cluster: true } as GpuTypesListInput, ['cluster']],
  ])('refuses a filter REST v2 cannot honour (%s) with TransportUnsupportedError, sending nothing', async (_name, input, fields) => {
    const { fetch, calls } = recordingFetch(() => json({}));
    const rp = createRunpodClient({ apiKey: 'k', fetch, podsTransport: 'rest', maxRetries: 0 });
    for (const call of [() => rp.gpuTypes.list(input), () => rp.gpuTypes.list({ ...input, gpuCount: 2, secureCloud: true })]) {
      const err = await captureError<TransportUnsupportedError>(call);
      expect(err).toBeInstanceOf(TransportUnsupportedError);
      expect(err).toBeInstanceOf(ValidationError);
      expect(err.fields).toEqual(fields);
    }
    expect(calls).toHaveLength(0);
  });

  it('vacuous values of those filters are not constraints', async () => {
    const { rp } = setup({}, { podsTransport: 'rest' });
    await expect(rp.gpuTypes.list({ minMemoryInGb: 0, supportPublicIp: false, includeAiApi: null, minDisk: undefined })).resolves.not.toHaveLength(0);
  });

  it.each<[string, unknown]>([
    ['countryCode', { countryCode: 'USA' }],
    ['allowedCudaVersions', { allowedCudaVersions: ['12'] }],
    ['cudaVersion', { cudaVersion: 'twelve' }],
    ['compliance', { compliance: ['SOC_9'] }],
    ['secureCloud', { secureCloud: 'yes' }],
    ['ids', { ids: 'NVIDIA A40' }],
    ['gpuCount', { gpuCount: 0 }],
    ['input', null],
  ])('a malformed %s is a ValidationError before anything is sent', async (field, input) => {
    const { fetch, calls } = recordingFetch(() => json({}));
    const rp = createRunpodClient({ apiKey: 'k', fetch, podsTransport: 'rest' });
    const err = await captureError<ValidationError>(rp.gpuTypes.list(input as GpuTypesListInput));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe(field);
    expect(calls).toHaveLength(0);
  });

  it('scopes stock to a data centre, and to data centres with the requested compliance and global networking', async () => {
    const { rp, sent } = setup({}, { podsTransport: 'rest' });
    const all = await rp.gpuTypes.list();
    const inKansas = await rp.gpuTypes.list({ dataCenterId: 'US-KS-2' });
    expect(inKansas.map((t) => t.id)).toEqual(all.map((t) => t.id));
    expect(inKansas.some((t) => t.lowestPrice?.stockStatus === 'None')).toBe(true);
    sent.length = 0;
    const gdpr = await rp.gpuTypes.list({ compliance: ['GDPR'], globalNetwork: true });
    expect(sent).toContain('GET /v2/catalog/datacenters?compliance=GDPR&globalNetwork=true');
    expect(gdpr.length).toBe(all.length);
  });
});

describe('the REST mapping, at the fetch seam', () => {
  const restType = (over: Record<string, unknown> = {}) => ({
    id: 'NVIDIA A40',
    name: 'A40',
    pool: null,
    manufacturer: 'NVIDIA',
    memory: 48,
    secure: true,
    community: true,
    price: { secure: 0.5, community: 0.35 },
    maxCount: { secure: 8, community: 4 },
    availability: 'HIGH',
    dataCenters: [{ id: 'EU-RO-1', name: 'Romania 1', availability: 'HIGH' }],
    ...over,
  });

  it('takes the lowest list price over the clouds in stock, and the best stock', async () => {
    const { fetch } = recordingFetch((call) =>
      json({ gpus: [restType(call.url.searchParams.get('cloud') === 'COMMUNITY' ? { availability: 'NONE' } : { availability: 'LOW' })], cursor: 'ignored' }),
    );
    const rp = createRunpodClient({ apiKey: 'k', fetch, podsTransport: 'rest' });
    const [a40] = await rp.gpuTypes.list();
    expect(a40).toEqual({
      id: 'NVIDIA A40',
      displayName: 'A40',
      memoryInGb: 48,
      secureCloud: true,
      communityCloud: true,
      lowestPrice: { uninterruptablePrice: 0.5, stockStatus: 'Low', availableGpuCounts: null },
    });
    const offers = await rp.gpuTypes.offers({ gpuCount: 2 });
    expect(offers).toEqual([expect.objectContaining({ gpuTypeId: 'NVIDIA A40', pricePerGpuHour: 0.5, pricePerHour: 1, stockStatus: 'Low', cloud: 'ALL', availableGpuCounts: null })]);
  });

  it.each<[string, unknown]>([
    ['a name that is not a string', restType({ name: 7 })],
    ['a price that is not a number', restType({ price: { secure: '0.5', community: 0.3 } })],
    ['an unknown availability level', restType({ availability: 'PLENTY' })],
    ['data centres that are not a list', restType({ dataCenters: 'EU' })],
    ['no price at all', restType({ price: null })],
  ])('an answer with %s is a ServerError, never a TypeError', async (_name, entry) => {
    const { fetch } = recordingFetch(() => json({ gpus: [entry] }));
    const rp = createRunpodClient({ apiKey: 'k', fetch, podsTransport: 'rest', maxRetries: 0 });
    for (const call of [() => rp.gpuTypes.list(), () => rp.gpuTypes.offers({ secureCloud: true })]) {
      const err = await captureError(call);
      expect(err).toBeInstanceOf(ServerError);
      expect(err.message).toMatch(/GET \/catalog\/gpus: unexpected answer/);
    }
  });
});

describe("deploy's GPU type catalog", () => {
  const input = { name: 'x', imageName: 'img', gpuTypeId: 'NVIDIA RTX A400', gpuCount: 1, cloudType: 'SECURE' as const };

  it('reads over REST v2 once GraphQL is retired, and still names the closest id', async () => {
    const { rp, sent } = setup({ graphqlRetired: true });
    const err = await captureError<ValidationError>(rp.pods.deploy(input));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/did you mean "NVIDIA RTX A4000"/);
    expect(sent).toEqual(['POST /graphql', 'GET /v2/catalog/gpus']);
  });

  it('skips malformed catalog entries rather than failing with a TypeError', async () => {
    const gpuTypes = [{ id: 'NVIDIA RTX A4000', displayName: 7 }, { id: 5, displayName: 'x' }, null, 'text', { displayName: null }, { id: 'NVIDIA A40', displayName: { a: 1 } }];
    const { fetch } = recordingFetch(() => json({ data: { gpuTypes } }));
    const rp = createRunpodClient({ apiKey: 'k', fetch, maxRetries: 0 });
    const err = await captureError<ValidationError>(rp.pods.deploy(input));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/did you mean "NVIDIA RTX A4000"/);
  });

  it("honours the caller's signal while the shared read is in flight; the read goes on for the others", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let catalogReads = 0;
    const { fetch } = recordingFetch(async (call) => {
      if (call.body?.includes('GpuTypeCatalog')) {
        catalogReads++;
        await held;
        return json({ data: { gpuTypes: [{ id: 'NVIDIA RTX A4000', displayName: 'RTX A4000' }] } });
      }
      return json({ errors: [{ message: 'unexpected' }] });
    });
    const rp = createRunpodClient({ apiKey: 'k', fetch, maxRetries: 0 });
    const controller = new AbortController();
    const aborted = captureError(rp.pods.deploy(input, { signal: controller.signal }));
    const other = captureError<ValidationError>(rp.pods.deploy(input));
    await new Promise((r) => setTimeout(r, 20));
    const t0 = performance.now();
    controller.abort();
    const err = await aborted;
    expect(performance.now() - t0).toBeLessThan(100);
    expect(err).toBeInstanceOf(AbortError);
    release();
    const otherErr = await other;
    expect(otherErr).toBeInstanceOf(ValidationError);
    expect(otherErr.message).toMatch(/did you mean "NVIDIA RTX A4000"/);
    expect(catalogReads).toBe(1);
  });
});

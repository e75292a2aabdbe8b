import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createRunpodRestV1Client, type RestPod, type RunpodRestV1 } from '../../src/rest-v1/index.js';
import { json, recordingFetch, TEST_API_KEY, type RecordedCall } from '../helpers.js';
import { contractAvailable, contractProblems, contractRoutes } from './contract.js';

const REST = 'https://rest.runpod.io/v1';
const podAnswer = { id: 'pod 1/x', name: 'p', image: 'img', costPerHr: '0.74', adjustedCostPerHr: '0.70', machine: { costPerHr: '0.5' } };

interface RouteCase {
  route: string;
  call: (rp: RunpodRestV1) => Promise<unknown>;
  path: string;
  query?: Record<string, string[]>;
  body?: unknown;
  status?: number;
  answer?: unknown;
}

const ID = 'a b/c?d';
const ENC = 'a%20b%2Fc%3Fd';

const cases: RouteCase[] = [
  {
    route: 'POST /pods',
    call: (rp) => rp.pods.create({ name: 'from-template', templateId: 'tpl-1', gpuTypeIds: ['NVIDIA GeForce RTX 4090'], gpuCount: 1 }),
    path: '/pods',
    body: { name: 'from-template', templateId: 'tpl-1', gpuTypeIds: ['NVIDIA GeForce RTX 4090'], gpuCount: 1 },
    status: 201,
    answer: podAnswer,
  },
  {
    route: 'GET /pods',
    call: (rp) => rp.pods.list({ gpuTypeId: ['NVIDIA A40', 'NVIDIA L4'], dataCenterId: ['EU-RO-1'], includeMachine: true, includeWorkers: false, desiredStatus: 'RUNNING' }),
    path: '/pods',
    query: { gpuTypeId: ['NVIDIA A40', 'NVIDIA L4'], dataCenterId: ['EU-RO-1'], includeMachine: ['true'], includeWorkers: ['false'], desiredStatus: ['RUNNING'] },
    answer: [podAnswer],
  },
  { route: 'GET /pods/{podId}', call: (rp) => rp.pods.get(ID, { includeNetworkVolume: true }), path: `/pods/${ENC}`, query: { includeNetworkVolume: ['true'] }, answer: podAnswer },
  { route: 'PATCH /pods/{podId}', call: (rp) => rp.pods.update(ID, { containerDiskInGb: 40, env: { A: '1' }, ports: ['8888/http'] }), path: `/pods/${ENC}`, body: { containerDiskInGb: 40, env: { A: '1' }, ports: ['8888/http'] }, answer: podAnswer },
  { route: 'POST /pods/{podId}/update', call: (rp) => rp.pods.update(ID, { volumeInGb: 30 }, { method: 'POST' }), path: `/pods/${ENC}/update`, body: { volumeInGb: 30 }, answer: podAnswer },
  { route: 'DELETE /pods/{podId}', call: (rp) => rp.pods.delete(ID), path: `/pods/${ENC}`, status: 204 },
  { route: 'POST /pods/{podId}/start', call: (rp) => rp.pods.start(ID), path: `/pods/${ENC}/start` },
  { route: 'POST /pods/{podId}/stop', call: (rp) => rp.pods.stop(ID), path: `/pods/${ENC}/stop` },
  { route: 'POST /pods/{podId}/reset', call: (rp) => rp.pods.reset(ID), path: `/pods/${ENC}/reset` },
  { route: 'POST /pods/{podId}/restart', call: (rp) => rp.pods.restart(ID), path: `/pods/${ENC}/restart` },

  { route: 'POST /endpoints', call: (rp) => rp.endpoints.create({ templateId: 'tpl-1', name: 'ep', gpuTypeIds: ['NVIDIA L4'], workersMax: 2, idleTimeout: 5 }), path: '/endpoints', body: { templateId: 'tpl-1', name: 'ep', gpuTypeIds: ['NVIDIA L4'], workersMax: 2, idleTimeout: 5 }, answer: { id: 'ep-1' } },
  { route: 'GET /endpoints', call: (rp) => rp.endpoints.list({ includeTemplate: true }), path: '/endpoints', query: { includeTemplate: ['true'] }, answer: [] },
  { route: 'GET /endpoints/{endpointId}', call: (rp) => rp.endpoints.get(ID, { includeWorkers: true }), path: `/endpoints/${ENC}`, query: { includeWorkers: ['true'] }, answer: { id: ID } },
  { route: 'PATCH /endpoints/{endpointId}', call: (rp) => rp.endpoints.update(ID, { workersMax: 3 }), path: `/endpoints/${ENC}`, body: { workersMax: 3 }, answer: { id: ID } },
  { route: 'POST /endpoints/{endpointId}/update', call: (rp) => rp.endpoints.update(ID, { workersMin: 0 }, { method: 'POST' }), path: `/endpoints/${ENC}/update`, body: { workersMin: 0 }, answer: { id: ID } },
  { route: 'DELETE /endpoints/{endpointId}', call: (rp) => rp.endpoints.delete(ID), path: `/endpoints/${ENC}`, status: 204 },

  { route: 'POST /templates', call: (rp) => rp.templates.create({ name: 'tpl', imageName: 'img:1', ports: ['8888/http', '22/tcp'], env: { A: '1' } }), path: '/templates', body: { name: 'tpl', imageName: 'img:1', ports: ['8888/http', '22/tcp'], env: { A: '1' } }, answer: { id: 't', name: 'tpl', imageName: 'img:1' } },
  { route: 'GET /templates', call: (rp) => rp.templates.list({ includePublicTemplates: false, includeRunpodTemplates: true }), path: '/templates', query: { includePublicTemplates: ['false'], includeRunpodTemplates: ['true'] }, answer: [] },
  { route: 'GET /templates/{templateId}', call: (rp) => rp.templates.get(ID), path: `/templates/${ENC}`, answer: { id: ID } },
  { route: 'PATCH /templates/{templateId}', call: (rp) => rp.templates.update(ID, { readme: 'hi' }), path: `/templates/${ENC}`, body: { readme: 'hi' }, answer: { id: ID } },
  { route: 'POST /templates/{templateId}/update', call: (rp) => rp.templates.update(ID, { name: 'n' }, { method: 'POST' }), path: `/templates/${ENC}/update`, body: { name: 'n' }, answer: { id: ID } },
  { route: 'DELETE /templates/{templateId}', call: (rp) => rp.templates.delete(ID), path: `/templates/${ENC}`, status: 204 },

  { route: 'POST /networkvolumes', call: (rp) => rp.networkVolumes.create({ name: 'vol', size: 100, dataCenterId: 'EU-RO-1' }), path: '/networkvolumes', body: { name: 'vol', size: 100, dataCenterId: 'EU-RO-1' }, answer: { id: 'v' } },
  { route: 'GET /networkvolumes', call: (rp) => rp.networkVolumes.list(), path: '/networkvolumes', answer: [] },
  { route: 'GET /networkvolumes/{networkVolumeId}', call: (rp) => rp.networkVolumes.get(ID), path: `/networkvolumes/${ENC}`, answer: { id: ID } },
  { route: 'PATCH /networkvolumes/{networkVolumeId}', call: (rp) => rp.networkVolumes.update(ID, { size: 200 }), path: `/networkvolumes/${ENC}`, body: { size: 200 }, answer: { id: ID } },
  { route: 'POST /networkvolumes/{networkVolumeId}/update', call: (rp) => rp.networkVolumes.update(ID, { name: 'v2' }, { method: 'POST' }), path: `/networkvolumes/${ENC}/update`, body: { name: 'v2' }, answer: { id: ID } },
  { route: 'DELETE /networkvolumes/{networkVolumeId}', call: (rp) => rp.networkVolumes.delete(ID), path: `/networkvolumes/${ENC}`, status: 204 },

  { route: 'POST /containerregistryauth', call: (rp) => rp.containerRegistryAuths.create({ name: 'ghcr', username: 'me', password: 'pw' }), path: '/containerregistryauth', body: { name: 'ghcr', username: 'me', password: 'pw' }, answer: { id: 'c', name: 'ghcr' } },
  { route: 'GET /containerregistryauth', call: (rp) => rp.containerRegistryAuths.list(), path: '/containerregistryauth', answer: [] },
  { route: 'GET /containerregistryauth/{containerRegistryAuthId}', call: (rp) => rp.containerRegistryAuths.get(ID), path: `/containerregistryauth/${ENC}`, answer: { id: ID, name: 'x' } },
  { route: 'DELETE /containerregistryauth/{containerRegistryAuthId}', call: (rp) => rp.containerRegistryAuths.delete(ID), path: `/containerregistryauth/${ENC}`, status: 204 },

  {
    route: 'GET /billing/pods',
    call: (rp) => rp.billing.pods({ bucketSize: 'hour', grouping: 'podId', startTime: new Date('2026-11-01T00:00:00Z'), endTime: '2026-11-02T00:00:00Z' }),
    path: '/billing/pods',
    query: { bucketSize: ['hour'], grouping: ['podId'], startTime: ['2026-11-01T00:00:00.000Z'], endTime: ['2026-11-02T00:00:00Z'] },
    answer: [{ amount: '1.25', time: '2026-11-01T00:00:00Z', podId: 'p' }],
  },
  {
    route: 'GET /billing/endpoints',
    call: (rp) => rp.billing.endpoints({ dataCenterId: ['EU-RO-1', 'US-TX-3'], gpuTypeId: ['NVIDIA L4'], grouping: 'gpuTypeId' }),
    path: '/billing/endpoints',
    query: { dataCenterId: ['EU-RO-1', 'US-TX-3'], gpuTypeId: ['NVIDIA L4'], grouping: ['gpuTypeId'] },
    answer: [],
  },
  { route: 'GET /billing/networkvolumes', call: (rp) => rp.billing.networkVolumes({ bucketSize: 'month' }), path: '/billing/networkvolumes', query: { bucketSize: ['month'] }, answer: [] },
];

function methodOf(route: string): string {
  return route.split(' ')[0]!;
}

function queryOf(url: URL): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of new Set(url.searchParams.keys())) out[name] = url.searchParams.getAll(name);
  return out;
}

describe('REST v1 routes', () => {
  it('covers every route of the contract', () => {
    const covered = cases.map((c) => c.route).sort();
    expect(covered).toHaveLength(35);
    expect(new Set(covered).size).toBe(35);
    if (contractAvailable) expect(covered).toEqual(contractRoutes().sort());
  });

  it.each(cases)('$route', async (c) => {
    const { fetch, calls } = recordingFetch(() =>
      c.answer === undefined ? new Response(null, { status: c.status ?? 200 }) : json(c.answer, { status: c.status ?? 200 }),
    );
    const rp = createRunpodRestV1Client({ apiKey: TEST_API_KEY, fetch });
    await c.call(rp);
    expect(calls).toHaveLength(1);
    const call = calls[0] as RecordedCall;
    expect(call.method).toBe(methodOf(c.route));
    expect(call.url.origin + call.url.pathname).toBe(`${REST}${c.path}`);
    expect(queryOf(call.url)).toEqual(c.query ?? {});
    expect(call.headers.get('authorization')).toBe(`Bearer ${TEST_API_KEY}`);
    expect(call.url.searchParams.has('api_key')).toBe(false);
    if (c.body === undefined) {
      expect(call.body).toBeUndefined();
      expect(call.headers.get('content-type')).toBeNull();
    } else {
      expect(JSON.parse(call.body ?? 'null')).toEqual(c.body);
      expect(call.headers.get('content-type')).toBe('application/json');
    }
    if (contractAvailable) expect(contractProblems(call.method, call.url, '/v1', call.body)).toEqual([]);
  });

  it('normalises numbers sent as strings', async () => {
    const { fetch } = recordingFetch((call) =>
      call.url.pathname.startsWith('/v1/billing') ? json([{ amount: '1.25', time: 't' }]) : json(podAnswer),
    );
    const rp = createRunpodRestV1Client({ apiKey: TEST_API_KEY, fetch });
    const pod = await rp.pods.get('p');
    expect(pod).toMatchObject({ costPerHr: 0.74, adjustedCostPerHr: 0.7, image: 'img', machine: { costPerHr: 0.5 } });
    expectTypeOf(pod).toEqualTypeOf<RestPod>();
    expect((await rp.billing.pods())[0]?.amount).toBe(1.25);
  });
});

describe('REST on the wire (nock)', () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());
  afterAll(() => nock.enableNetConnect());

  it('sends Bearer auth and a JSON body to the configured base URL', async () => {
    const scope = nock('https://rest.example.test', { reqheaders: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' } })
      .post('/v1/networkvolumes', { name: 'vol', size: 10, dataCenterId: 'EU-RO-1' })
      .reply(200, { id: 'v1', name: 'vol', size: 10, dataCenterId: 'EU-RO-1' });
    const rp = createRunpodRestV1Client({ apiKey: TEST_API_KEY, restUrl: 'https://rest.example.test/v1/' });
    expect(await rp.networkVolumes.create({ name: 'vol', size: 10, dataCenterId: 'EU-RO-1' })).toMatchObject({ id: 'v1' });
    expect(scope.isDone()).toBe(true);
  });

  it('serialises array and boolean query parameters as repeated names', async () => {
    const scope = nock(REST.replace('/v1', ''))
      .get('/v1/pods')
      .query((q) => JSON.stringify(q) === JSON.stringify({ gpuTypeId: ['NVIDIA A40', 'NVIDIA L4'], includeTemplate: 'true' }))
      .reply(200, []);
    await createRunpodRestV1Client({ apiKey: TEST_API_KEY }).pods.list({ gpuTypeId: ['NVIDIA A40', 'NVIDIA L4'], includeTemplate: true });
    expect(scope.isDone()).toBe(true);
  });
});

import { describe, expect, expectTypeOf, it } from 'vitest';
import { CREATE_MARKER_ENV, createRunpodClient, type RunpodClient } from '../../src/index.js';
import { createRunpodRestClient, type Pod } from '../../src/rest/index.js';
import { json, recordingFetch, recordingFetchWithCatalog, TEST_API_KEY } from '../helpers.js';
import { contractOperations, contractProblems, matchOperation } from './v2-contract.js';

const ID = 'a b/c?d';
const ENC = 'a%20b%2Fc%3Fd';
const pod = { id: 'p1', name: 'p', status: 'RUNNING', actions: ['stop', 'restart', 'terminate'] };
const secret = { id: 's1', name: 'HF_TOKEN', createdAt: '2026-11-27T00:00:00Z', description: null, valueLastUpdatedAt: '2026-11-27T00:00:00Z' };
const billing = { records: [{ startTime: 't0', endTime: 't1', totalAmount: 1.5 }], metadata: { recordCount: 1 } };
const sse = () => new Response('id: 1\ndata: {"ts":"2026-11-21T00:00:00Z","source":"system","line":"hi"}\n\n', { headers: { 'content-type': 'text/event-stream' } });

interface Case {
  /** The contract operation, `METHOD /v2/...`. */
  op: string;
  call: (rp: RunpodClient) => Promise<unknown>;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  answer?: () => Response;
  /** What the call resolves to. */
  result?: unknown;
}

const drain = async (lines: AsyncIterable<unknown>) => {
  const out: unknown[] = [];
  for await (const line of lines) out.push(line);
  return out;
};

const podCreate = { name: 'trainer', image: 'img:1', gpu: { id: 'NVIDIA L4', count: 1, minCudaVersion: '12.4' }, ports: ['8888/http'], mounts: { persistent: { size: 20, path: '/workspace' } } };
const endpointCreate = { name: 'ep', templateId: 'tpl', type: 'QUEUE' as const, scaling: { type: 'QUEUE_DELAY' as const, queueDelay: 4 }, gpu: { pools: ['ADA_24'] }, workers: { max: 2 } };

const cases: Case[] = [
  { op: 'GET /v2/account/ssh-keys', call: (rp) => rp.rest.sshKeys.list(), path: '/account/ssh-keys', answer: () => json({ keys: ['ssh-ed25519 AAA me'] }), result: ['ssh-ed25519 AAA me'] },
  { op: 'PUT /v2/account/ssh-keys', call: (rp) => rp.rest.sshKeys.replace(['ssh-ed25519 AAA me']), path: '/account/ssh-keys', body: { keys: ['ssh-ed25519 AAA me'] }, answer: () => json({ keys: ['ssh-ed25519 AAA me'] }) },

  { op: 'GET /v2/pods', call: (rp) => rp.rest.pods.list({ includeClusterPods: true }), path: '/pods', query: { includeClusterPods: 'true' }, answer: () => json({ pods: [pod], next: null }), result: [pod] },
  { op: 'POST /v2/pods', call: (rp) => rp.rest.pods.create(podCreate), path: '/pods', body: podCreate, answer: () => json(pod, { status: 201 }), result: pod },
  { op: 'GET /v2/pods/{id}', call: (rp) => rp.rest.pods.get(ID), path: `/pods/${ENC}`, answer: () => json(pod), result: pod },
  { op: 'PATCH /v2/pods/{id}', call: (rp) => rp.rest.pods.update(ID, { name: 'renamed', env: { A: '1' }, locked: true }), path: `/pods/${ENC}`, body: { name: 'renamed', env: { A: '1' }, locked: true }, answer: () => json(pod) },
  { op: 'DELETE /v2/pods/{id}', call: (rp) => rp.rest.pods.delete(ID), path: `/pods/${ENC}`, answer: () => new Response(null, { status: 204 }), result: undefined },
  {
    op: 'GET /v2/pods/{id}/logs',
    call: (rp) => drain(rp.rest.pods.logs(ID, { source: 'system', tail: 50, since: new Date('2026-11-21T00:00:00Z') })),
    path: `/pods/${ENC}/logs`,
    query: { source: 'system', tail: '50', since: '2026-11-21T00:00:00.000Z' },
    answer: sse,
    result: [{ ts: '2026-11-21T00:00:00Z', source: 'system', line: 'hi' }],
  },
  { op: 'POST /v2/pods/{id}/action', call: (rp) => rp.rest.pods.start(ID), path: `/pods/${ENC}/action`, body: { action: 'start' }, answer: () => json(pod), result: pod },
  {
    op: 'POST /v2/pods/{id}/exec',
    call: (rp) => rp.rest.pods.exec(ID, { command: ['ls', '-la'], timeoutSeconds: 5, cwd: '/workspace' }),
    path: `/pods/${ENC}/exec`,
    body: { command: ['ls', '-la'], timeoutSeconds: 5, cwd: '/workspace' },
    answer: () => json({ exitCode: 2, stdout: '', stderr: 'no such file\n' }),
    result: { exitCode: 2, stdout: '', stderr: 'no such file\n' },
  },

  { op: 'GET /v2/account/secrets', call: (rp) => rp.rest.secrets.list({ name: 'HF_TOKEN' }), path: '/account/secrets', query: { name: 'HF_TOKEN' }, answer: () => json({ secrets: [secret] }), result: [secret] },
  { op: 'POST /v2/account/secrets', call: (rp) => rp.rest.secrets.create({ name: 'HF_TOKEN', value: 'hf_value' }), path: '/account/secrets', body: { name: 'HF_TOKEN', value: 'hf_value' }, answer: () => json(secret, { status: 201 }), result: secret },
  { op: 'GET /v2/account/secrets/{id}', call: (rp) => rp.rest.secrets.get(ID), path: `/account/secrets/${ENC}`, answer: () => json(secret), result: secret },
  { op: 'PATCH /v2/account/secrets/{id}', call: (rp) => rp.rest.secrets.update(ID, { description: '' }), path: `/account/secrets/${ENC}`, body: { description: '' }, answer: () => json(secret), result: secret },
  { op: 'DELETE /v2/account/secrets/{id}', call: (rp) => rp.rest.secrets.delete(ID), path: `/account/secrets/${ENC}`, answer: () => new Response(null, { status: 204 }), result: undefined },

  { op: 'GET /v2/clusters', call: (rp) => rp.rest.clusters.list(), path: '/clusters', answer: () => json({ clusters: [{ id: 'c' }] }), result: [{ id: 'c' }] },
  {
    op: 'POST /v2/clusters',
    call: (rp) => rp.rest.clusters.create({ name: 'c', type: 'TRAINING', image: 'img', compute: { gpuTypeId: 'NVIDIA H100 80GB HBM3', gpuCountPerPod: 8, podCount: 2 } }),
    path: '/clusters',
    body: { name: 'c', type: 'TRAINING', image: 'img', compute: { gpuTypeId: 'NVIDIA H100 80GB HBM3', gpuCountPerPod: 8, podCount: 2 } },
    answer: () => json({ id: 'c' }, { status: 201 }),
  },
  { op: 'GET /v2/clusters/{id}', call: (rp) => rp.rest.clusters.get(ID), path: `/clusters/${ENC}`, answer: () => json({ id: 'c' }) },
  { op: 'PATCH /v2/clusters/{id}', call: (rp) => rp.rest.clusters.update(ID, { name: 'd' }), path: `/clusters/${ENC}`, body: { name: 'd' }, answer: () => json({ id: 'c' }) },
  { op: 'DELETE /v2/clusters/{id}', call: (rp) => rp.rest.clusters.delete(ID), path: `/clusters/${ENC}`, answer: () => new Response(null, { status: 204 }) },
  { op: 'GET /v2/clusters/{id}/pods', call: (rp) => rp.rest.clusters.pods(ID), path: `/clusters/${ENC}/pods`, answer: () => json({ pods: [pod] }), result: [pod] },

  { op: 'GET /v2/serverless', call: (rp) => rp.rest.endpoints.list(), path: '/serverless', answer: () => json({ endpoints: [{ id: 'e' }] }), result: [{ id: 'e' }] },
  { op: 'POST /v2/serverless', call: (rp) => rp.rest.endpoints.create(endpointCreate), path: '/serverless', body: endpointCreate, answer: () => json({ id: 'e' }, { status: 201 }) },
  { op: 'GET /v2/serverless/{id}', call: (rp) => rp.rest.endpoints.get(ID), path: `/serverless/${ENC}`, answer: () => json({ id: 'e' }) },
  { op: 'PATCH /v2/serverless/{id}', call: (rp) => rp.rest.endpoints.update(ID, { workers: { min: 1 }, flashboot: 'FLASHBOOT' }), path: `/serverless/${ENC}`, body: { workers: { min: 1 }, flashboot: 'FLASHBOOT' }, answer: () => json({ id: 'e' }) },
  { op: 'DELETE /v2/serverless/{id}', call: (rp) => rp.rest.endpoints.delete(ID), path: `/serverless/${ENC}`, answer: () => new Response(null, { status: 204 }) },
  { op: 'GET /v2/serverless/{id}/workers', call: (rp) => rp.rest.endpoints.workers(ID), path: `/serverless/${ENC}/workers`, answer: () => json({ workers: [{ id: 'w' }], summary: {} }), result: [{ id: 'w' }] },
  { op: 'GET /v2/serverless/{id}/releases', call: (rp) => rp.rest.endpoints.releases(ID), path: `/serverless/${ENC}/releases`, answer: () => json({ rollout: {}, releases: [{ id: 'rel-1', version: 1 }] }), result: [{ id: 'rel-1', version: 1 }] },
  {
    op: 'GET /v2/serverless/{id}/workers/{workerId}/logs',
    call: (rp) => drain(rp.rest.endpoints.workerLogs(ID, 'w 1', { tail: 0 })),
    path: `/serverless/${ENC}/workers/w%201/logs`,
    query: { tail: '0' },
    answer: sse,
  },

  { op: 'GET /v2/serverless/{id}/builds', call: (rp) => rp.rest.endpoints.builds(ID, { limit: 100 }), path: `/serverless/${ENC}/builds`, query: { limit: '100' }, answer: () => json({ builds: [{ id: 'b1', status: 'COMPLETED' }], pagination: { nextCursor: null, hasNextPage: false } }), result: [{ id: 'b1', status: 'COMPLETED' }] },
  { op: 'GET /v2/serverless/{id}/builds/{buildId}', call: (rp) => rp.rest.endpoints.build(ID, ID), path: `/serverless/${ENC}/builds/${ENC}`, answer: () => json({ id: 'b1', status: 'BUILDING' }), result: { id: 'b1', status: 'BUILDING' } },
  { op: 'GET /v2/templates', call: (rp) => rp.rest.templates.list(), path: '/templates', answer: () => json({ templates: [] }), result: [] },
  { op: 'POST /v2/templates', call: (rp) => rp.rest.templates.create({ name: 't', image: 'img', category: 'NVIDIA', mounts: { persistent: { size: 10, path: '/workspace' } } }), path: '/templates', body: { name: 't', image: 'img', category: 'NVIDIA', mounts: { persistent: { size: 10, path: '/workspace' } } }, answer: () => json({ id: 't' }, { status: 201 }) },
  { op: 'GET /v2/templates/{id}', call: (rp) => rp.rest.templates.get(ID), path: `/templates/${ENC}`, answer: () => json({ id: 't' }) },
  { op: 'PATCH /v2/templates/{id}', call: (rp) => rp.rest.templates.update(ID, { public: false, args: 'run' }), path: `/templates/${ENC}`, body: { public: false, args: 'run' }, answer: () => json({ id: 't' }) },
  { op: 'DELETE /v2/templates/{id}', call: (rp) => rp.rest.templates.delete(ID), path: `/templates/${ENC}`, answer: () => new Response(null, { status: 204 }) },

  { op: 'GET /v2/network-volumes', call: (rp) => rp.rest.networkVolumes.list(), path: '/network-volumes', answer: () => json({ networkVolumes: [{ id: 'v' }] }), result: [{ id: 'v' }] },
  { op: 'POST /v2/network-volumes', call: (rp) => rp.rest.networkVolumes.create({ name: 'v', size: 10, dataCenter: 'EU-RO-1', type: 'STANDARD' }), path: '/network-volumes', body: { name: 'v', size: 10, dataCenter: 'EU-RO-1', type: 'STANDARD' }, answer: () => json({ id: 'v' }, { status: 201 }) },
  { op: 'GET /v2/network-volumes/{id}', call: (rp) => rp.rest.networkVolumes.get(ID), path: `/network-volumes/${ENC}`, answer: () => json({ id: 'v' }) },
  { op: 'PATCH /v2/network-volumes/{id}', call: (rp) => rp.rest.networkVolumes.update(ID, { size: 4096 }), path: `/network-volumes/${ENC}`, body: { size: 4096 }, answer: () => json({ id: 'v' }) },
  { op: 'DELETE /v2/network-volumes/{id}', call: (rp) => rp.rest.networkVolumes.delete(ID), path: `/network-volumes/${ENC}`, answer: () => new Response(null, { status: 204 }) },

  { op: 'GET /v2/registries', call: (rp) => rp.rest.registries.list(), path: '/registries', answer: () => json({ registries: [{ id: 'r', name: 'ghcr' }] }), result: [{ id: 'r', name: 'ghcr' }] },
  { op: 'POST /v2/registries', call: (rp) => rp.rest.registries.create({ name: 'ghcr', username: 'me', password: 'pw' }), path: '/registries', body: { name: 'ghcr', username: 'me', password: 'pw' }, answer: () => json({ id: 'r' }, { status: 201 }) },
  { op: 'GET /v2/registries/{id}', call: (rp) => rp.rest.registries.get(ID), path: `/registries/${ENC}`, answer: () => json({ id: 'r' }) },
  { op: 'DELETE /v2/registries/{id}', call: (rp) => rp.rest.registries.delete(ID), path: `/registries/${ENC}`, answer: () => new Response(null, { status: 204 }) },
  { op: 'GET /v2/registries/delegations', call: (rp) => rp.rest.registries.delegations.list(), path: '/registries/delegations', answer: () => json({ delegations: [] }), result: [] },
  { op: 'POST /v2/registries/delegations', call: (rp) => rp.rest.registries.delegations.create({ resource: 'arn:aws:ecr:eu-west-1:1:repository/x', name: null }), path: '/registries/delegations', body: { resource: 'arn:aws:ecr:eu-west-1:1:repository/x', name: null }, answer: () => json({ id: 'd' }, { status: 201 }) },
  { op: 'DELETE /v2/registries/delegations/{id}', call: (rp) => rp.rest.registries.delegations.revoke(ID), path: `/registries/delegations/${ENC}`, answer: () => new Response(null, { status: 204 }) },

  {
    op: 'GET /v2/catalog/gpus',
    call: (rp) => rp.rest.catalog.gpus({ include: ['AVAILABILITY'], product: ['POD', 'SERVERLESS'], count: 2, cloud: 'SECURE', countryCodes: ['RO', 'US'], cudaVersions: ['12.4', '12.8'], minCudaVersion: '12.4' }),
    path: '/catalog/gpus',
    query: { include: 'AVAILABILITY', product: 'POD,SERVERLESS', count: '2', cloud: 'SECURE', countryCodes: 'RO,US', cudaVersions: '12.4,12.8', minCudaVersion: '12.4' },
    answer: () => json({ gpus: [{ id: 'NVIDIA L4' }] }),
    result: [{ id: 'NVIDIA L4' }],
  },
  { op: 'GET /v2/catalog/gpus/{id}', call: (rp) => rp.rest.catalog.gpu(ID, { include: ['AVAILABILITY'], product: ['POD'] }), path: `/catalog/gpus/${ENC}`, query: { include: 'AVAILABILITY', product: 'POD' }, answer: () => json({ id: 'g' }) },
  { op: 'GET /v2/catalog/cpus', call: (rp) => rp.rest.catalog.cpus({ product: ['POD'], vcpuCount: 4 }), path: '/catalog/cpus', query: { product: 'POD', vcpuCount: '4' }, answer: () => json({ cpus: [] }), result: [] },
  { op: 'GET /v2/catalog/cpus/{id}', call: (rp) => rp.rest.catalog.cpu(ID), path: `/catalog/cpus/${ENC}`, answer: () => json({ id: 'cpu3c' }) },
  {
    op: 'GET /v2/catalog/datacenters',
    call: (rp) => rp.rest.catalog.dataCenters({ include: ['GPU_AVAILABILITY'], regions: ['EUROPE'], networkVolumeTypes: ['STANDARD'], compliance: ['GDPR'], globalNetwork: true }),
    path: '/catalog/datacenters',
    query: { include: 'GPU_AVAILABILITY', regions: 'EUROPE', networkVolumeTypes: 'STANDARD', compliance: 'GDPR', globalNetwork: 'true' },
    answer: () => json({ dataCenters: [] }),
    result: [],
  },
  { op: 'GET /v2/catalog/datacenters/{id}', call: (rp) => rp.rest.catalog.dataCenter(ID, { include: ['CPU_AVAILABILITY'] }), path: `/catalog/datacenters/${ENC}`, query: { include: 'CPU_AVAILABILITY' }, answer: () => json({ id: 'EU-RO-1' }) },
  { op: 'GET /v2/catalog/templates', call: (rp) => rp.rest.catalog.templates({ source: 'verified' }), path: '/catalog/templates', query: { source: 'verified' }, answer: () => json({ templates: [] }), result: [] },

  {
    op: 'GET /v2/billing',
    call: (rp) => rp.rest.billing.summary({ startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-21T00:00:00Z', bucketSize: 'day', lastN: 3 }),
    path: '/billing',
    query: { startTime: '2026-11-01T00:00:00Z', endTime: '2026-11-21T00:00:00Z', bucketSize: 'day', lastN: '3' },
    answer: () => json({ ...billing, next: 'x' }),
    result: billing,
  },
  { op: 'GET /v2/billing/pods', call: (rp) => rp.rest.billing.pods({ podId: 'p1', bucketSize: 'hour' }), path: '/billing/pods', query: { podId: 'p1', bucketSize: 'hour' }, answer: () => json(billing), result: billing },
  { op: 'GET /v2/billing/serverless', call: (rp) => rp.rest.billing.serverless({ serverlessId: 'e' }), path: '/billing/serverless', query: { serverlessId: 'e' }, answer: () => json(billing), result: billing },
  { op: 'GET /v2/billing/endpoints', call: (rp) => rp.rest.billing.endpoints({ lastN: 1 }), path: '/billing/endpoints', query: { lastN: '1' }, answer: () => json(billing), result: billing },
  { op: 'GET /v2/billing/network-volumes', call: (rp) => rp.rest.billing.networkVolumes({ networkVolumeId: 'v' }), path: '/billing/network-volumes', query: { networkVolumeId: 'v' }, answer: () => json(billing), result: billing },
  { op: 'GET /v2/billing/clusters', call: (rp) => rp.rest.billing.clusters({ clusterId: 'c' }), path: '/billing/clusters', query: { clusterId: 'c' }, answer: () => json(billing), result: billing },
];

/** Operations of the merged contract the client does not call yet: none. */
const PENDING = new Set<string>();

describe('REST v2: every operation of the contract', () => {
  it('has one case per contract operation', () => {
    expect(cases.map((c) => c.op).sort()).toEqual(contractOperations().filter((op) => !PENDING.has(op)).sort());
  });

  it.each(cases)('$op', async (c) => {
    const { fetch, calls } = (c.op === 'POST /v2/pods' ? recordingFetchWithCatalog : recordingFetch)(() => (c.answer ? c.answer() : json({})));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const result = await c.call(rp);
    if ('result' in c) expect(result).toEqual(c.result);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    const [method] = c.op.split(' ');
    expect(call!.method).toBe(method);
    expect(`${call!.url.origin}${call!.url.pathname}`).toBe(`https://api.runpod.io/v2${c.path}`);
    expect(Object.fromEntries(call!.url.searchParams)).toEqual(c.query ?? {});
    expect(matchOperation(call!.method, call!.url.pathname)?.route).toBe(c.op);
    expect(call!.headers.get('authorization')).toBe(`Bearer ${TEST_API_KEY}`);
    if (c.body === undefined) expect(call!.body).toBeUndefined();
    else {
      const sent = JSON.parse(call!.body!);
      if (c.op === 'POST /v2/pods' || c.op === 'POST /v2/templates' || c.op === 'POST /v2/serverless') {
        // The create marker rides along in env (issue 12; templates and endpoints since issue 22).
        expect(sent.env[CREATE_MARKER_ENV]).toMatch(/^[0-9a-f]{32}$/);
        delete sent.env[CREATE_MARKER_ENV];
        if (Object.keys(sent.env).length === 0) delete sent.env;
      }
      expect(sent).toEqual(c.body);
      expect(call!.headers.get('content-type')).toBe('application/json');
    }
    expect(contractProblems(call!.method, call!.url, call!.headers, call!.body)).toEqual([]);
  });

  it('the contract checker does catch what the server would refuse', () => {
    const url = new URL('https://api.runpod.io/v2/pods');
    const headers = new Headers();
    expect(contractProblems('POST', url, headers, JSON.stringify({ name: 'x', image: 'i', dataCenterId: 'EU' })).join()).toContain('dataCenterId');
    expect(contractProblems('POST', url, headers, JSON.stringify({ name: 'x', gpu: { id: 'g' } }))).not.toEqual([]);
    expect(contractProblems('POST', new URL('https://api.runpod.io/v2/network-volumes'), headers, JSON.stringify({ name: 'v', size: 5000, dataCenter: 'EU' }))).not.toEqual([]);
    expect(contractProblems('GET', new URL('https://api.runpod.io/v2/catalog/gpus?product=POD&product=CLUSTER'), headers, undefined)).not.toEqual([]);
    expect(contractProblems('POST', new URL('https://api.runpod.io/v2/pods/x/reset'), headers, undefined)).toEqual(['no operation POST /v2/pods/x/reset']);
  });

  it('the REST entry alone works the same, on restUrl, and types come from the contract', async () => {
    const { fetch, calls } = recordingFetch(() => json(pod));
    const rest = createRunpodRestClient({ apiKey: TEST_API_KEY, fetch, restUrl: 'http://127.0.0.1:9/v2/' });
    const got = await rest.pods.get('p1');
    expectTypeOf(got).toEqualTypeOf<Pod>();
    expectTypeOf(got.status).toEqualTypeOf<'PROVISIONING' | 'STARTING' | 'RUNNING' | 'EXITED' | 'ERROR' | 'TERMINATED'>();
    expect(calls[0]!.url.toString()).toBe('http://127.0.0.1:9/v2/pods/p1');
  });
});

import { describe, expect, it } from 'vitest';
import { createEmulator, EMULATOR_API_KEY } from '../../src/emulator/index.js';
import { createRunpodClient } from '../../src/index.js';
import { answerProblems, contractOperations, operationFor, readSse, sseEvents } from './rest-v2-contract-check.js';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked against the contract, then read loosely
  json: any;
}

function session(options: Parameters<typeof createEmulator>[0] = {}) {
  const emulator = createEmulator({ clock: 'manual', podStartupMs: 2_000, ...options });
  const { restUrl, fetch } = emulator.clientOptions();
  const called = new Set<string>();
  const problems: string[] = [];
  /** `events`: the answer is a stream that stays open; read that many events, then hang up. */
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, events?: number): Promise<Answer> {
    const res = await fetch!(`${restUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${EMULATOR_API_KEY}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = events === undefined ? await res.text() : await readSse(res, events);
    const pathname = new URL(`${restUrl}${path}`).pathname;
    const found = operationFor(method, pathname);
    if (found) called.add(found.op.operationId);
    problems.push(...answerProblems(method, pathname, res.status, res.headers.get('content-type'), text));
    const isJson = /json/.test(res.headers.get('content-type') ?? '');
    return { status: res.status, headers: res.headers, text, json: isJson && text ? JSON.parse(text) : undefined };
  }
  return { emulator, call, called, problems };
}

/**
 * Operations added after v2.9.0 whose conformance is checked in their own files
 * (listEndpointBuilds and getEndpointBuild: rest-v2-builds.test.ts).
 */
const CHECKED_ELSEWHERE = new Set(['listSecrets', 'createSecret', 'getSecret', 'updateSecret', 'deleteSecret', 'execPod', 'listEndpointBuilds', 'getEndpointBuild']);

describe('REST v2 emulator against its contract', () => {
  it('answers every operation of the contract with a declared status and a body matching the response schema', async () => {
    const { emulator, call, called, problems } = session();
    const expectStatus = async (want: number, answer: Promise<Answer>) => {
      const a = await answer;
      expect(a.status, a.text).toBe(want);
      expect(a.headers.get('ratelimit')).toMatch(/"minute";r=\d+;t=\d+/);
      expect(a.headers.get('ratelimit-policy')).toMatch(/"minute";q=\d+;w=60/);
      expect(a.headers.get('x-request-id')).toBeTruthy();
      return a;
    };

    expect((await expectStatus(200, call('GET', '/account/ssh-keys'))).json).toEqual({ keys: [] });
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA me@laptop';
    expect((await expectStatus(200, call('PUT', '/account/ssh-keys', { keys: [key] }))).json).toEqual({ keys: [key] });

    const gpus = (await expectStatus(200, call('GET', '/catalog/gpus?include=AVAILABILITY&product=POD'))).json.gpus;
    expect(gpus.find((g: { id: string }) => g.id === 'NVIDIA RTX A4000')).toMatchObject({ price: { secure: 0.25, community: 0.17 }, availability: 'HIGH' });
    await expectStatus(200, call('GET', `/catalog/gpus/${encodeURIComponent('NVIDIA GeForce RTX 4090')}`));
    await expectStatus(200, call('GET', '/catalog/cpus?include=AVAILABILITY&product=POD'));
    await expectStatus(200, call('GET', '/catalog/cpus/cpu3c'));
    await expectStatus(200, call('GET', '/catalog/datacenters?include=GPU_AVAILABILITY,CPU_AVAILABILITY'));
    await expectStatus(200, call('GET', '/catalog/datacenters/EU-RO-1?include=GPU_AVAILABILITY'));
    const catalogTemplates = (await expectStatus(200, call('GET', '/catalog/templates'))).json;
    expect(catalogTemplates.templates.length).toBeGreaterThan(0);
    // Not paged, but the newest contract answers the exhausted marker (a client's contract check reads it).
    expect(catalogTemplates.pagination).toEqual({ nextCursor: null, hasNextPage: false });
    expect((await expectStatus(200, call('GET', '/catalog/templates?source=community'))).json.pagination).toEqual({ nextCursor: null, hasNextPage: false });

    const registry = (await expectStatus(201, call('POST', '/registries', { name: 'ghcr', username: 'me', password: 'not-returned' }))).json;
    expect(registry).toEqual({ id: registry.id, name: 'ghcr' });
    await expectStatus(200, call('GET', '/registries'));
    await expectStatus(200, call('GET', `/registries/${registry.id}`));

    const template = (await expectStatus(201, call('POST', '/templates', { name: 'tpl', image: 'me/app:1', ports: ['8888/http', '22/tcp'], registry: registry.id }))).json;
    await expectStatus(200, call('GET', '/templates'));
    await expectStatus(200, call('GET', `/templates/${template.id}`));
    expect((await expectStatus(200, call('PATCH', `/templates/${template.id}`, { env: { A: '1' } }))).json.env).toEqual({ A: '1' });

    const volume = (await expectStatus(201, call('POST', '/network-volumes', { name: 'data', size: 10, dataCenter: 'US-TX-3' }))).json;
    await expectStatus(200, call('GET', '/network-volumes'));
    await expectStatus(200, call('GET', `/network-volumes/${volume.id}`));
    expect((await expectStatus(200, call('PATCH', `/network-volumes/${volume.id}`, { size: 20 }))).json.size).toBe(20);

    const pod = (await expectStatus(201, call('POST', '/pods', { name: 'p1', templateId: template.id, gpu: { id: 'NVIDIA RTX A4000' }, dataCenterIds: ['US-TX-3'], mounts: { network: [{ volumeId: volume.id, path: '/data' }] } }))).json;
    expect(pod).toMatchObject({ status: 'PROVISIONING', actions: ['stop', 'terminate'], runtime: null, mounts: { network: [{ volumeId: volume.id, path: '/data' }] } });
    // Pods made through GraphQL (GPU and CPU, with its default volume and ports) list in v2's shape too.
    const rp = createRunpodClient(emulator.clientOptions());
    const viaGraphql = await rp.pods.deploy({ imageName: 'me/app:1', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, ports: '8888/http,22/tcp' });
    const listed = (await expectStatus(200, call('GET', '/pods'))).json.pods;
    expect(listed.map((p: { id: string }) => p.id).sort()).toEqual([pod.id, viaGraphql.id].sort());
    await emulator.clock.advance(2_000);
    await expectStatus(200, call('GET', `/pods/${viaGraphql.id}`));
    await rp.pods.terminate(viaGraphql.id);
    expect((await expectStatus(200, call('GET', `/pods/${pod.id}`))).json).toMatchObject({ status: 'RUNNING', actions: ['stop', 'restart', 'terminate'] });
    await expectStatus(200, call('PATCH', `/pods/${pod.id}`, { name: 'renamed' }));
    expect((await expectStatus(200, call('POST', `/pods/${pod.id}/action`, { action: 'stop' }))).json.status).toBe('EXITED');
    const events = sseEvents((await expectStatus(200, call('GET', `/pods/${pod.id}/logs`))).text);
    expect(events.map((e) => e.data.source)).toContain('system');

    const cluster = (await expectStatus(201, call('POST', '/clusters', { name: 'c', type: 'TRAINING', compute: { gpuTypeId: 'NVIDIA L40S', gpuCountPerPod: 1, podCount: 2 } }))).json;
    expect(cluster.pods.total).toBe(2);
    await expectStatus(200, call('GET', '/clusters'));
    await expectStatus(200, call('GET', `/clusters/${cluster.id}`));
    await expectStatus(200, call('PATCH', `/clusters/${cluster.id}`, { name: 'renamed' }));
    expect((await expectStatus(200, call('GET', `/clusters/${cluster.id}/pods`))).json.pods.map((p: { cluster: { rank: number } }) => p.cluster.rank)).toEqual([0, 1]);

    const endpoint = (await expectStatus(201, call('POST', '/serverless', { name: 'echo-v2', type: 'QUEUE', image: 'me/echo:1', scaling: { type: 'QUEUE_DELAY', queueDelay: 4 }, workers: { min: 1, max: 2 } }))).json;
    await expectStatus(200, call('GET', '/serverless'));
    await expectStatus(200, call('GET', `/serverless/${endpoint.id}`));
    await expectStatus(200, call('PATCH', `/serverless/${endpoint.id}`, { workers: { max: 3 } }));
    const workers = (await expectStatus(200, call('GET', `/serverless/${endpoint.id}/workers`))).json;
    expect(workers.summary.total).toBeGreaterThan(0);
    expect((await expectStatus(200, call('GET', `/serverless/${endpoint.id}/releases`))).json.releases[0].diff).toContainEqual({ field: 'workers', old: { min: 1, max: 2, idleTimeout: 10 }, new: { min: 1, max: 3, idleTimeout: 10 } });
    expect(sseEvents((await expectStatus(200, call('GET', `/serverless/${endpoint.id}/workers/${workers.workers[0].id}/logs`, undefined, {}, 2))).text)).toHaveLength(2);

    const delegation = (await expectStatus(201, call('POST', '/registries/delegations', { resource: '123456789012.dkr.ecr.us-east-1.amazonaws.com/models:latest' }))).json;
    await expectStatus(200, call('GET', '/registries/delegations'));
    await expectStatus(204, call('DELETE', `/registries/delegations/${delegation.id}`));

    await emulator.clock.advance(3_600_000);
    for (const path of ['/billing', '/billing/pods', '/billing/serverless', '/billing/endpoints', '/billing/network-volumes', '/billing/clusters']) {
      const bill = (await expectStatus(200, call('GET', `${path}?bucketSize=hour`))).json;
      expect(bill.metadata.recordCount).toBe(bill.records.length);
    }

    await expectStatus(204, call('DELETE', `/pods/${pod.id}`));
    const second = (await expectStatus(201, call('POST', '/pods', { name: 'p2', image: 'me/app:1', cpu: { id: 'cpu3c', vcpuCount: 4 } }))).json;
    expect(second.cpu).toEqual({ id: 'cpu3c', vcpuCount: 4, memory: 8 });
    await expectStatus(204, call('POST', `/pods/${second.id}/action`, { action: 'terminate' }));
    await expectStatus(204, call('DELETE', `/clusters/${cluster.id}`));
    await expectStatus(204, call('DELETE', `/serverless/${endpoint.id}`));
    await expectStatus(204, call('DELETE', `/templates/${template.id}`));
    await expectStatus(204, call('DELETE', `/network-volumes/${volume.id}`));
    await expectStatus(204, call('DELETE', `/registries/${registry.id}`));

    expect(problems).toEqual([]);
    const all = [...contractOperations().values()].filter((op) => !CHECKED_ELSEWHERE.has(op)).sort();
    expect([...called].sort()).toEqual(all);
  });

  it('answers errors as problem+json with the statuses the contract declares', async () => {
    const { call, problems } = session();
    const unknown = await call('POST', '/pods', { name: 'p', image: 'img', gpu: { id: 'NVIDIA RTX A4000', vram: 16 }, dataCenterId: 'EU-RO-1' });
    expect(unknown.status).toBe(422);
    expect(unknown.headers.get('content-type')).toBe('application/problem+json');
    expect(unknown.json).toMatchObject({ title: 'Unprocessable Entity', status: 422 });
    expect(unknown.json.errors).toEqual(expect.arrayContaining(["$: additional properties 'dataCenterId' not allowed", "$.gpu: additional properties 'vram' not allowed"]));
    expect((await call('POST', '/pods', { name: 'p' })).json.errors).toEqual(["$: missing property 'image'"]);
    expect((await call('POST', '/network-volumes', { name: 'v', size: 5000, dataCenter: 'EU-RO-1' })).status).toBe(422);

    // Cross-field rules and no capacity are 400s.
    expect((await call('POST', '/pods', { name: 'p', image: 'img' })).status).toBe(400);
    expect((await call('POST', '/pods', { name: 'p', image: 'img', cpu: { id: 'cpu3c', vcpuCount: 6 } })).json.detail).toMatch(/power of two/);
    const full = await call('POST', '/pods', { name: 'p', image: 'img', gpu: { id: 'NVIDIA H100 80GB HBM3', count: 2 } });
    expect(full.status).toBe(400);
    expect(full.json.detail).toMatch(/no longer any instances available/);
    expect((await call('GET', '/catalog/gpus?include=AVAILABILITY')).status).toBe(400);

    const pod = (await call('POST', '/pods', { name: 'p', image: 'img', gpu: { id: 'NVIDIA RTX A4000' } })).json;
    const conflict = await call('POST', `/pods/${pod.id}/action`, { action: 'start' });
    expect(conflict.status).toBe(409);
    expect(conflict.json.detail).toMatch(/PROVISIONING.*stop, terminate/);
    expect((await call('POST', `/pods/${pod.id}/action`, { action: 'reset' })).status).toBe(422);
    expect((await call('GET', '/pods/nope')).status).toBe(404);
    expect((await call('PATCH', '/network-volumes/nope', { size: 20 })).status).toBe(404);

    const volume = (await call('POST', '/network-volumes', { name: 'v', size: 50, dataCenter: 'EU-RO-1' })).json;
    expect((await call('PATCH', `/network-volumes/${volume.id}`, { size: 40 })).status).toBe(400);
    expect((await call('GET', '/pods', undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect(problems).toEqual([]);
  });

  it('429s past the per-minute quota with Retry-After, and serves again in the next window', async () => {
    const { emulator, call, problems } = session({ restRateLimitPerMinute: 3 });
    for (let i = 0; i < 3; i++) expect((await call('GET', '/pods')).status).toBe(200);
    const limited = await call('GET', '/pods');
    expect(limited.status).toBe(429);
    expect(limited.json.detail).toMatch(/minute/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit')).toMatch(/^"minute";r=0;/);
    await emulator.clock.advance(Number(limited.headers.get('retry-after')) * 1000);
    expect((await call('GET', '/pods')).status).toBe(200);
    expect(problems).toEqual([]);
  });

  it('answers REST v1 with 410 Gone, unless legacyRestV1 keeps it', async () => {
    const retired = createEmulator();
    const headers = { authorization: `Bearer ${EMULATOR_API_KEY}` };
    const gone = await retired.fetch(new Request('http://emulator.invalid/v1/pods', { headers }));
    expect(gone.status).toBe(410);
    expect(gone.headers.get('content-type')).toBe('application/problem+json');
    expect(retired.clientOptions().restUrl).toBe('http://emulator.invalid/v2');
    const legacy = createEmulator({ legacyRestV1: true });
    expect((await legacy.fetch(new Request('http://emulator.invalid/v1/pods', { headers }))).status).toBe(200);
    expect(legacy.clientOptions().restUrl).toBe('http://emulator.invalid/v1');
    expect(legacy.clientOptions().serverlessUrl).toBe('http://emulator.invalid/queue/v2');
  });

  it('405s a method the contract does not serve on a known path, 404s an unknown path', async () => {
    const emulator = createEmulator();
    const headers = { authorization: `Bearer ${EMULATOR_API_KEY}` };
    const wrongMethod = await emulator.fetch(new Request('http://emulator.invalid/v2/pods', { method: 'PUT', headers }));
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
    expect(await wrongMethod.json()).toMatchObject({ title: 'Method Not Allowed', status: 405 });
    const unknown = await emulator.fetch(new Request('http://emulator.invalid/v2/pods/abc/reset', { method: 'POST', headers }));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('application/problem+json');
  });
});

import { describe, expect, it } from 'vitest';
import { answerProblems, readSse, sseEvents } from '../emulator/rest-v2-contract-check.js';
import { KEY_A, KEY_B, useEmulator } from './harness.js';

// REST v2 over loopback with plain fetch; the manual clock moves pods through start-up.
const ctx = useEmulator({ clock: 'manual', podStartupMs: 2_000 });
const cuda128Image = 'runpod/pytorch:2.8.0-py3.11-cuda12.8.1-cudnn-devel-ubuntu22.04';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked against the contract, then read loosely
async function v2(method: string, path: string, body?: unknown, options: { key?: string; headers?: Record<string, string>; events?: number } = {}): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const url = `${ctx.server.restV2Url}${path}`;
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${options.key ?? KEY_A}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...options.headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = options.events === undefined ? await res.text() : await readSse(res, options.events);
  expect(answerProblems(method, new URL(url).pathname, res.status, res.headers.get('content-type'), text)).toEqual([]);
  return { status: res.status, headers: res.headers, text, json: /json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : undefined };
}

const advance = (ms: number) => ctx.emulator.clock.advance(ms);

describe('REST v2 through the emulator, end to end', () => {
  it('walks a pod through create → RUNNING → stop → start → restart → terminate, with its logs', async () => {
    expect(ctx.server.restUrl).toBe(`${ctx.server.url}/v2`);
    const created = await v2('POST', '/pods', { name: 'walk', image: 'me/app:1', gpu: { id: 'NVIDIA RTX A4000' }, ports: ['22/tcp'] });
    expect(created.status).toBe(201);
    const pod = created.json;
    // No default volume and no default ports beyond what was asked; SECURE unless told otherwise.
    expect(pod).toMatchObject({ status: 'PROVISIONING', cloud: 'SECURE', mounts: {}, ports: ['22/tcp'], runtime: null });
    await advance(1_000);
    expect((await v2('GET', `/pods/${pod.id}`)).json.status).toBe('STARTING');
    await advance(1_000);
    const running = (await v2('GET', `/pods/${pod.id}`)).json;
    expect(running).toMatchObject({ status: 'RUNNING', actions: ['stop', 'restart', 'terminate'], runtime: { ports: [{ private: 22, type: 'tcp' }] } });
    expect(running.ssh.direct).toMatchObject({ username: 'root' });

    const refused = await v2('POST', `/pods/${pod.id}/action`, { action: 'start' });
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toMatch(/RUNNING/);

    const stopped = await v2('POST', `/pods/${pod.id}/action`, { action: 'stop' });
    expect(stopped.json).toMatchObject({ status: 'EXITED', actions: ['start', 'terminate'], runtime: null });
    expect(ctx.emulator.inspect.pod(pod.id)?.desiredStatus).toBe('EXITED');
    // A rename is only a label: the stopped pod stays stopped.
    expect((await v2('PATCH', `/pods/${pod.id}`, { name: 'renamed' })).json).toMatchObject({ name: 'renamed', status: 'EXITED' });
    expect((await v2('POST', `/pods/${pod.id}/action`, { action: 'start' })).json.status).toBe('STARTING');
    await advance(2_000);
    expect((await v2('POST', `/pods/${pod.id}/action`, { action: 'restart' })).json.status).toBe('STARTING');
    await advance(2_000);
    expect((await v2('GET', `/pods/${pod.id}`)).json.status).toBe('RUNNING');

    // A running pod's log stream stays open: read what is there, then hang up.
    const logs = await v2('GET', `/pods/${pod.id}/logs`, undefined, { events: 8 });
    expect(logs.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sseEvents(logs.text);
    expect(events.map((e) => e.data.line)).toEqual([
      'start container for me/app:1: begin',
      'container started (1 GPU)',
      expect.stringMatching(/^stop container: Stopped by user/),
      'start container for me/app:1: begin',
      'container started (1 GPU)',
      expect.stringMatching(/^stop container: Restarted by user/),
      'start container for me/app:1: begin',
      'container started (1 GPU)',
    ]);
    for (const e of events) expect(e.id).toMatch(new RegExp(`^${e.data.ts.replace(/[.]/g, '\\.')}/\\d{12}$`));
    expect(sseEvents((await v2('GET', `/pods/${pod.id}/logs?source=container&tail=2`, undefined, { events: 2 })).text).map((e) => e.data.source)).toEqual(['container', 'container']);

    // Stopping ends the stream, after the stop line; what the cursors select is then all there is.
    await v2('POST', `/pods/${pod.id}/action`, { action: 'stop' });
    expect(sseEvents((await v2('GET', `/pods/${pod.id}/logs?since=${events[4]!.data.ts}`)).text)).toHaveLength(5);
    const resumed = sseEvents((await v2('GET', `/pods/${pod.id}/logs?tail=1`, undefined, { headers: { 'last-event-id': events[4]!.id! } })).text);
    expect(resumed.map((e) => e.data.line)).toEqual([expect.stringMatching(/^stop container: Restarted/), 'start container for me/app:1: begin', 'container started (1 GPU)', expect.stringMatching(/^stop container/)]);
    expect((await v2('GET', `/pods/${pod.id}/logs?tail=0`)).text).toBe('');

    const terminated = await v2('POST', `/pods/${pod.id}/action`, { action: 'terminate' });
    expect(terminated.status).toBe(204);
    expect((await v2('GET', `/pods/${pod.id}`)).status).toBe(404);
  });

  it('a log stream follows new lines on the emulator clock, and ends when the pod stops', async () => {
    const pod = (await v2('POST', '/pods', { name: 'follow', image: 'me/app:1', gpu: { id: 'NVIDIA RTX A4000' } })).json;
    const res = await fetch(`${ctx.server.restV2Url}/pods/${pod.id}/logs`, { headers: { authorization: `Bearer ${KEY_A}` } });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    expect(sseEvents(text).map((e) => e.data.line)).toEqual(['start container for me/app:1: begin']);
    await advance(2_000);
    while (!text.includes('container started')) text += decoder.decode((await reader.read()).value);
    // The stop wakes the stream at once, with no clock movement; then it ends.
    await v2('POST', `/pods/${pod.id}/action`, { action: 'stop' });
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    expect(sseEvents(text).map((e) => e.data.line)).toEqual(['start container for me/app:1: begin', 'container started (1 GPU)', expect.stringMatching(/^stop container: Stopped by user/)]);
    await v2('DELETE', `/pods/${pod.id}`);
  });

  it('a CUDA mismatch ends EXITED, with the reason in the system log', async () => {
    const pod = (await v2('POST', '/pods', { name: 'old-driver', image: cuda128Image, gpu: { id: 'NVIDIA GeForce RTX 4090' }, dataCenterIds: ['EU-RO-1'] })).json;
    expect(pod.cudaVersion).toBe('12.4');
    await advance(2_000);
    expect((await v2('GET', `/pods/${pod.id}`)).json).toMatchObject({ status: 'EXITED', actions: ['start', 'terminate'] });
    const system = sseEvents((await v2('GET', `/pods/${pod.id}/logs?source=system`)).text).map((e) => e.data.line);
    expect(system.some((l) => /unsatisfied condition: cuda>=12\.8/.test(l))).toBe(true);
    // Asking for a newer CUDA places the pod where it can start.
    const fixed = (await v2('POST', '/pods', { name: 'new-driver', image: cuda128Image, gpu: { id: 'NVIDIA GeForce RTX 4090', minCudaVersion: '12.8' } })).json;
    expect(fixed.cudaVersion).toBe('12.8');
    await advance(2_000);
    expect((await v2('GET', `/pods/${fixed.id}`)).json.status).toBe('RUNNING');
    for (const id of [pod.id, fixed.id]) expect((await v2('DELETE', `/pods/${id}`)).status).toBe(204);
  });

  it('a locked pod and a cluster member refuse to be deleted alone (409)', async () => {
    const pod = (await v2('POST', '/pods', { name: 'keep', image: 'me/app:1', gpu: { id: 'NVIDIA RTX A4000' } })).json;
    expect((await v2('PATCH', `/pods/${pod.id}`, { locked: true })).json.locked).toBe(true);
    expect((await v2('DELETE', `/pods/${pod.id}`)).status).toBe(409);
    expect((await v2('PATCH', `/pods/${pod.id}`, { image: 'me/app:2' })).status).toBe(409);
    await v2('PATCH', `/pods/${pod.id}`, { locked: false });
    expect((await v2('DELETE', `/pods/${pod.id}`)).status).toBe(204);

    const cluster = (await v2('POST', '/clusters', { name: 'duo', type: 'RAY', compute: { gpuTypeId: 'NVIDIA L40S', gpuCountPerPod: 2, podCount: 2 } })).json;
    const [member] = (await v2('GET', `/clusters/${cluster.id}/pods`)).json.pods;
    expect((await v2('GET', '/pods')).json.pods.map((p: { id: string }) => p.id)).not.toContain(member.id);
    expect((await v2('GET', '/pods?includeClusterPods=true')).json.pods.map((p: { id: string }) => p.id)).toContain(member.id);
    expect((await v2('POST', `/pods/${member.id}/action`, { action: 'terminate' })).status).toBe(409);
    expect((await v2('DELETE', `/clusters/${cluster.id}`)).status).toBe(204);
    expect(ctx.emulator.inspect.pod(member.id)).toBeUndefined();
  });

  it('shares one state with GraphQL, per account', async () => {
    const rp = ctx.client();
    const viaGraphql = await rp.pods.deploy({ imageName: 'me/app:1', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 });
    expect((await v2('GET', '/pods')).json.pods.map((p: { id: string }) => p.id)).toContain(viaGraphql.id);
    const viaRest = (await v2('POST', '/pods', { name: 'from-rest', image: 'me/app:1', gpu: { id: 'NVIDIA RTX A4000' } })).json;
    expect((await rp.pods.get(viaRest.id))?.desiredStatus).toBe('RUNNING');
    await v2('POST', `/pods/${viaRest.id}/action`, { action: 'stop' });
    expect((await rp.pods.get(viaRest.id))?.desiredStatus).toBe('EXITED');
    expect((await v2('GET', `/pods/${viaRest.id}`, undefined, { key: KEY_B })).status).toBe(404);
    await rp.pods.terminate(viaGraphql.id);
    await v2('DELETE', `/pods/${viaRest.id}`);
  });

  it('templates, network volumes and registries; the catalog; billing', async () => {
    const registry = (await v2('POST', '/registries', { name: 'private', username: 'me', password: 'hunter2' })).json;
    expect(JSON.stringify((await v2('GET', '/registries')).json)).not.toContain('hunter2');
    const template = (await v2('POST', '/templates', { name: 'jupyter', image: 'me/jupyter:1', ports: ['8888/http'], registry: registry.id, mounts: { persistent: { size: 20, path: '/workspace' } } })).json;
    expect(template).toMatchObject({ public: false, serverless: false, category: 'NVIDIA', registry: registry.id });
    expect((await v2('POST', '/templates', { name: 'bad', image: 'x', isServerless: true })).json.errors).toEqual(["$: additional properties 'isServerless' not allowed"]);
    const volume = (await v2('POST', '/network-volumes', { name: 'data', size: 100, dataCenter: 'US-TX-3', type: 'HIGH_PERFORMANCE' })).json;
    expect(volume).toMatchObject({ size: 100, dataCenter: 'US-TX-3', type: 'HIGH_PERFORMANCE' });
    expect((await v2('PATCH', `/network-volumes/${volume.id}`, { size: 50 })).status).toBe(400);
    expect((await v2('GET', '/network-volumes')).json.networkVolumes).toHaveLength(1);

    const pod = (await v2('POST', '/pods', { name: 'from-template', templateId: template.id, gpu: { id: 'NVIDIA RTX A4000' } })).json;
    expect(pod).toMatchObject({ image: 'me/jupyter:1', ports: ['8888/http'], template: template.id, mounts: { persistent: { size: 20, path: '/workspace' } } });
    expect((await v2('DELETE', `/registries/${registry.id}`)).status).toBe(400);
    // A network volume pins the pod to its data centre.
    const mount = { network: [{ volumeId: volume.id, path: '/data' }] };
    expect((await v2('POST', '/pods', { name: 'far', image: 'me/app:1', gpu: { id: 'NVIDIA RTX A4000' }, dataCenterIds: ['EU-RO-1'], mounts: mount })).status).toBe(400);
    const near = (await v2('POST', '/pods', { name: 'near', image: 'me/app:1', gpu: { id: 'NVIDIA RTX A4000' }, cloud: 'SECURE', mounts: mount })).json;
    expect(near).toMatchObject({ dataCenterId: 'US-TX-3', mounts: mount });
    await v2('DELETE', `/pods/${near.id}`);

    const gpus = (await v2('GET', '/catalog/gpus?include=AVAILABILITY&product=POD&count=2')).json.gpus as Array<Record<string, unknown>>;
    const h100 = gpus.find((g) => g.id === 'NVIDIA H100 80GB HBM3')!;
    expect(h100).toMatchObject({ price: { secure: 2.99, community: 2.69 }, maxCount: { secure: 1, community: 0 }, availability: 'NONE' });
    expect(gpus.find((g) => g.id === 'NVIDIA GeForce RTX 4090')!.cudaVersions).toEqual([
      { version: '12.4', available: true },
      { version: '12.8', available: true },
    ]);
    expect((await v2('GET', '/catalog/gpus')).json.gpus[0]).not.toHaveProperty('availability');
    expect((await v2('GET', '/catalog/gpus?include=AVAILABILITY')).status).toBe(400);
    expect((await v2('GET', '/catalog/datacenters?regions=EUROPE')).json.dataCenters.map((d: { id: string }) => d.id).sort()).toEqual(['EU-RO-1', 'EU-SE-1']);
    expect((await v2('GET', '/catalog/cpus?vcpuCount=64')).json.cpus.map((c: { id: string }) => c.id)).toEqual(['cpu5c']);

    await advance(3_600_000);
    const bill = (await v2('GET', `/billing/pods?bucketSize=hour&podId=${pod.id}`)).json;
    expect(bill.metadata).toMatchObject({ uniquePodCount: 1, query: { bucketSize: 'hour', podId: pod.id } });
    expect(bill.metadata.totals.gpuAmount).toBeCloseTo(0.25, 3);
    expect(bill.metadata.totals.diskAmount).toBeGreaterThan(0);
    const volumes = (await v2('GET', '/billing/network-volumes?bucketSize=day')).json;
    expect(volumes.records[0]).toMatchObject({ networkVolumeId: volume.id, standardAmount: 0 });
    expect(volumes.records[0].highPerformanceAmount).toBeGreaterThan(0);
    const summary = (await v2('GET', '/billing?lastN=2&bucketSize=hour')).json;
    expect(summary.metadata.totals.podGpuAmount).toBeGreaterThan(0);
    expect((await v2('GET', '/billing?lastN=2&startTime=2026-11-01T00:00:00Z')).status).toBe(400);

    await v2('DELETE', `/pods/${pod.id}`);
    for (const path of [`/templates/${template.id}`, `/network-volumes/${volume.id}`, `/registries/${registry.id}`]) expect((await v2('DELETE', path)).status).toBe(204);
  });

  it('bills serverless jobs per endpoint, public ones apart, and injected faults on v2 paths are problems too', async () => {
    const headers = { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' };
    const endpoint = (await v2('POST', '/serverless', { name: 'billed', type: 'QUEUE', image: 'me/sleep:1', scaling: { type: 'REQUEST_COUNT', requestCount: 1 } })).json;
    const run = await fetch(`${ctx.server.serverlessUrl}/${endpoint.id}/run`, { method: 'POST', headers, body: JSON.stringify({ input: { ms: 10_000 } }) });
    const { id } = (await run.json()) as { id: string };
    // A cold start (the emulator's default, 500 ms), then 10 s of work: only the work is billed.
    await advance(10_500);
    expect(await (await fetch(`${ctx.server.serverlessUrl}/${endpoint.id}/status/${id}`, { headers })).json()).toMatchObject({ status: 'COMPLETED', delayTime: 500, executionTime: 10_000 });
    const bill = (await v2('GET', `/billing/serverless?bucketSize=hour&serverlessId=${endpoint.id}`)).json;
    expect(bill.records.map((r: { serverlessId: string }) => r.serverlessId)).toEqual([endpoint.id]);
    expect(bill.metadata).toMatchObject({ uniqueServerlessCount: 1, query: { serverlessId: endpoint.id } });
    expect(bill.metadata.totals.gpuAmount).toBeCloseTo(10 * 0.00031, 6);
    // The public endpoint `sleep` (a handler called by name) is billed under /billing/endpoints.
    const publicRun = await fetch(`${ctx.server.serverlessUrl}/sleep/run`, { method: 'POST', headers, body: JSON.stringify({ input: { ms: 2_000 } }) });
    await advance(2_000);
    expect(await (await fetch(`${ctx.server.serverlessUrl}/sleep/status/${((await publicRun.json()) as { id: string }).id}`, { headers })).json()).toMatchObject({ status: 'COMPLETED', delayTime: 0 });
    expect((await v2('GET', '/billing/endpoints?bucketSize=hour')).json.metadata.totals.totalAmount).toBeCloseTo(2 * 0.00031, 6);
    expect((await v2('GET', '/billing/serverless?bucketSize=hour')).json.metadata.totals.gpuAmount).toBeCloseTo(10 * 0.00031, 6);
    expect((await v2('GET', '/billing?bucketSize=hour')).json.metadata.totals).toMatchObject({ endpointAmount: expect.closeTo(2 * 0.00031, 6) });
    expect((await v2('DELETE', `/serverless/${endpoint.id}`)).status).toBe(204);

    ctx.emulator.faults.inject({ match: 'POST /v2/pods', fault: { type: 'status', status: 402 } });
    const broke = await v2('POST', '/pods', { name: 'p', image: 'img', gpu: { id: 'NVIDIA RTX A4000' } });
    expect(broke.status).toBe(402);
    expect(broke.headers.get('content-type')).toBe('application/problem+json');
    ctx.emulator.faults.inject({ match: 'POST /v2/pods', fault: { type: 'error-after-create' } });
    const before = ctx.emulator.inspect.podCount(KEY_A);
    const ambiguous = await v2('POST', '/pods', { name: 'p', image: 'img', gpu: { id: 'NVIDIA RTX A4000' } });
    expect(ambiguous.status).toBe(500);
    expect(ambiguous.json).toMatchObject({ title: 'Internal Server Error', status: 500 });
    // The pod was created all the same: v2 has no idempotency keys.
    expect(ctx.emulator.inspect.podCount(KEY_A)).toBe(before + 1);
    for (const pod of (await v2('GET', '/pods')).json.pods) await v2('DELETE', `/pods/${pod.id}`);
  });

  it('announces the quota on every authenticated answer, and 401s without a key', async () => {
    const answer = await v2('GET', '/account/ssh-keys');
    expect(answer.headers.get('ratelimit')).toMatch(/^"minute";r=\d+;t=\d+, "hour";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
    expect(answer.headers.get('ratelimit-policy')).toBe('"minute";q=6000;w=60, "hour";q=180000;w=3600, "day";q=1800000;w=86400');
    const anonymous = await fetch(`${ctx.server.restV2Url}/pods`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('ratelimit')).toBeNull();
    expect(await anonymous.json()).toMatchObject({ title: 'Unauthorized', status: 401 });
  });
});

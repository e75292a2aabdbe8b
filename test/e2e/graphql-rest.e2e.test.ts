import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  CapacityUnavailableError,
  GraphQLResponseError,
  NotFoundError,
  BadRequestError,
  parsePodEnv,
} from '../../src/index.js';
import { createRunpodRestV1Client } from '../../src/rest-v1/index.js';
import { captureError } from '../helpers.js';
import { KEY_A, KEY_B, useEmulator } from './harness.js';

const ctx = useEmulator({ podStartupMs: 150, legacyRestV1: true });
// These rules are checked through the legacy REST v1 client, which the emulator still serves on request.
const restV1 = (key = KEY_A) => createRunpodRestV1Client({ ...ctx.server.clientOptions(key), maxRetries: 2 });
const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';

describe('GraphQL against the emulator over loopback HTTP', () => {
  it('runs all operations with typed results', async () => {
    const rp = ctx.client();
    const offers = await rp.gpuTypes.offers({ gpuCount: 1, secureCloud: true });
    expect(offers.length).toBeGreaterThan(2);
    expect(offers.map((o) => o.pricePerHour)).toEqual([...offers.map((o) => o.pricePerHour)].sort((a, b) => a - b));
    const [a4090] = await rp.gpuTypes.list({ id: 'NVIDIA GeForce RTX 4090', gpuCount: 2 });
    expect(a4090).toMatchObject({ id: 'NVIDIA GeForce RTX 4090', memoryInGb: 24, lowestPrice: { stockStatus: expect.any(String) } });

    const pod = await rp.pods.deploy({ name: 'gql', imageName: image, gpuTypeId: 'NVIDIA GeForce RTX 4090', gpuCount: 1, cloudType: 'SECURE', ports: '8888/http,22/tcp', env: { A: '1', URL: 'x=y' } });
    expect(pod).toMatchObject({ name: 'gql', imageName: image, desiredStatus: 'RUNNING', gpuCount: 1, costPerHr: 0.69, runtime: null });
    expect(parsePodEnv(pod.env)).toEqual({ A: '1', URL: 'x=y', RUNPOD_GQL_CREATE_MARKER: expect.stringMatching(/^[0-9a-f]{32}$/) });

    const ready = await rp.pods.waitUntilReady(pod.id, { pollIntervalMs: 50 });
    expect(ready.runtime?.ports?.map((p) => p?.privatePort).sort()).toEqual([22, 8888]);
    expect((await rp.pods.list()).map((p) => p.id)).toContain(pod.id);
    expect(await rp.pods.stop(pod.id)).toEqual({ id: pod.id, desiredStatus: 'EXITED' });
    expect((await rp.pods.resume({ podId: pod.id, gpuCount: 1 })).desiredStatus).toBe('RUNNING');
    await rp.pods.terminate(pod.id);
    expect(await rp.pods.get(pod.id)).toBeNull();
  });

  it('answers 401 to an unknown key', async () => {
    const err = await captureError(ctx.client('rpa_not_a_real_key').pods.list());
    expect(err).toBeInstanceOf(AuthenticationError);
  });

  it('rejects what the schema rejects: an unknown input field is HTTP 400', async () => {
    const rp = ctx.client();
    const err = await captureError<GraphQLResponseError>(rp.pods.resume({ podId: 'p', gpuCount: 1, bogusField: true } as never));
    expect(err).toBeInstanceOf(GraphQLResponseError);
    expect(err.status).toBe(400);
  });

  it('answers no capacity with the platform message', async () => {
    const err = await captureError(ctx.client().pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA H100 80GB HBM3', gpuCount: 8 }));
    expect(err).toBeInstanceOf(CapacityUnavailableError);
    expect(err.message).toContain('There are no longer any instances available');
  });
});

describe('REST v1 against the emulator over loopback HTTP', () => {
  it('covers templates, network volumes, registry auths and endpoints', async () => {
    const rest = restV1();
    const template = await rest.templates.create({ name: 'tpl', imageName: image, ports: ['8888/http'], env: { T: '1' }, volumeInGb: 5 });
    expect(await rest.templates.get(template.id)).toMatchObject({ name: 'tpl', imageName: image, env: { T: '1' } });
    expect((await rest.templates.update(template.id, { readme: 'hello' })).readme).toBe('hello');
    expect((await rest.templates.update(template.id, { name: 'tpl2' }, { method: 'POST' })).name).toBe('tpl2');
    expect((await rest.templates.list({ includePublicTemplates: true })).map((t) => t.id)).toContain(template.id);

    const volume = await rest.networkVolumes.create({ name: 'data', size: 10, dataCenterId: 'EU-RO-1' });
    expect(await rest.networkVolumes.update(volume.id, { size: 20 })).toMatchObject({ size: 20 });
    expect(await rest.networkVolumes.update(volume.id, { name: 'data2' }, { method: 'POST' })).toMatchObject({ name: 'data2' });
    expect(await captureError(rest.networkVolumes.update(volume.id, { size: 5 }))).toBeInstanceOf(BadRequestError);
    expect((await rest.networkVolumes.list()).map((v) => v.id)).toContain(volume.id);
    expect(await rest.networkVolumes.get(volume.id)).toMatchObject({ name: 'data2', dataCenterId: 'EU-RO-1' });

    const auth = await rest.containerRegistryAuths.create({ name: 'ghcr', username: 'me', password: 'secret-pw' });
    expect(auth).toEqual({ id: auth.id, name: 'ghcr' });
    expect(await rest.containerRegistryAuths.get(auth.id)).toEqual({ id: auth.id, name: 'ghcr' });
    expect(await rest.containerRegistryAuths.list()).toContainEqual({ id: auth.id, name: 'ghcr' });

    const endpoint = await rest.endpoints.create({ templateId: template.id, name: 'ep', workersMax: 2 });
    expect(await rest.endpoints.get(endpoint.id, { includeTemplate: true })).toMatchObject({ name: 'ep', workersMax: 2 });
    expect((await rest.endpoints.update(endpoint.id, { workersMax: 4 })).workersMax).toBe(4);
    expect((await rest.endpoints.update(endpoint.id, { idleTimeout: 9 }, { method: 'POST' })).idleTimeout).toBe(9);
    expect((await rest.endpoints.list()).map((e) => e.id)).toContain(endpoint.id);

    await rest.endpoints.delete(endpoint.id);
    await rest.containerRegistryAuths.delete(auth.id);
    await rest.networkVolumes.delete(volume.id);
    await rest.templates.delete(template.id);
    expect(await captureError(rest.templates.get(template.id))).toBeInstanceOf(NotFoundError);
    expect(await captureError(rest.networkVolumes.get(volume.id))).toBeInstanceOf(NotFoundError);
  });

  it('runs the pod routes, and a pod from GraphQL is visible and editable through REST', async () => {
    const rp = ctx.client();
    const deployed = await rp.pods.deploy({ name: 'shared', imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 });
    const viaRest = await restV1().pods.get(deployed.id, { includeMachine: true });
    expect(viaRest).toMatchObject({ id: deployed.id, name: 'shared', image, desiredStatus: 'RUNNING' });
    expect(typeof viaRest.costPerHr).toBe('number');
    expect((await restV1().pods.update(deployed.id, { name: 'renamed' })).name).toBe('renamed');
    expect((await rp.pods.get(deployed.id))?.name).toBe('renamed');
    expect((await restV1().pods.update(deployed.id, { containerDiskInGb: 60 }, { method: 'POST' })).containerDiskInGb).toBe(60);
    await restV1().pods.stop(deployed.id);
    expect((await restV1().pods.list({ desiredStatus: 'EXITED' })).map((p) => p.id)).toContain(deployed.id);
    await restV1().pods.start(deployed.id);
    await restV1().pods.reset(deployed.id);
    await restV1().pods.restart(deployed.id);
    expect((await restV1().pods.list({ gpuTypeId: ['NVIDIA RTX A4000'], includeMachine: true })).map((p) => p.id)).toContain(deployed.id);
    await restV1().pods.delete(deployed.id);
    expect(await captureError(restV1().pods.get(deployed.id))).toBeInstanceOf(NotFoundError);

    const fromTemplate = await restV1().templates.create({ name: 'jupyter', imageName: image, ports: ['8888/http'], env: { J: '1' } });
    const pod = await restV1().pods.create({ name: 'from-template', templateId: fromTemplate.id, gpuTypeIds: ['NVIDIA RTX A4000'], gpuCount: 1 });
    expect(pod).toMatchObject({ image, ports: ['8888/http'], env: { J: '1' }, templateId: fromTemplate.id });
    await restV1().pods.delete(pod.id);
  });

  it('answers 400 {error, status} to bodies the contract rejects, which the client would not send', async () => {
    const res = await fetch(`${ctx.server.restUrl}/networkvolumes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'v', size: '10' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: 400, error: expect.stringContaining('size') });
    const missing = await fetch(`${ctx.server.restUrl}/templates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'no image' }),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: expect.stringContaining('imageName') });
  });

  it('keeps accounts apart: one key never sees or touches another key\'s resources', async () => {
    const a = ctx.client(KEY_A);
    const b = ctx.client(KEY_B);
    const pod = await a.pods.deploy({ name: 'private', imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 });
    const volume = await restV1(KEY_A).networkVolumes.create({ name: 'private', size: 1, dataCenterId: 'EU-RO-1' });
    expect(await b.pods.get(pod.id)).toBeNull();
    expect((await b.pods.list()).map((p) => p.id)).not.toContain(pod.id);
    expect(await captureError(restV1(KEY_B).pods.get(pod.id))).toBeInstanceOf(NotFoundError);
    expect(await captureError(restV1(KEY_B).pods.delete(pod.id))).toBeInstanceOf(NotFoundError);
    expect(await captureError(b.pods.stop(pod.id))).toBeInstanceOf(NotFoundError);
    const resume = await captureError<NotFoundError>(b.pods.resume({ podId: pod.id, gpuCount: 1 }));
    expect(resume).toBeInstanceOf(NotFoundError);
    expect(await captureError(b.pods.terminate(pod.id))).toBeInstanceOf(NotFoundError);
    expect(resume.message).toContain(`pod ${pod.id} not found`);
    expect(await captureError(restV1(KEY_B).networkVolumes.delete(volume.id))).toBeInstanceOf(NotFoundError);
    expect((await a.pods.get(pod.id))?.desiredStatus).toBe('RUNNING');
    expect(await restV1(KEY_B).billing.pods()).toEqual([]);
    await a.pods.terminate(pod.id);
  });
});

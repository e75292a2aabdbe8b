import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  CapacityUnavailableError,
  GraphQLResponseError,
  NotFoundError,
  parsePodEnv,
} from '../../src/index.js';
import { captureError } from '../helpers.js';
import { KEY_A, KEY_B, useEmulator } from './harness.js';

const ctx = useEmulator({ podStartupMs: 150 });
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

// REST v2's routes against the emulator: rest-v2.e2e.test.ts; the emulator's legacy v1 routes (legacyRestV1): test/emulator/guards.test.ts.
describe('both APIs against the emulator over loopback HTTP', () => {
  it('keeps accounts apart: one key never sees or touches another key\'s resources', async () => {
    const a = ctx.client(KEY_A);
    const b = ctx.client(KEY_B);
    const pod = await a.pods.deploy({ name: 'private', imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 });
    const volume = await a.rest.networkVolumes.create({ name: 'private', size: 10, dataCenter: 'EU-RO-1' });
    expect(await b.pods.get(pod.id)).toBeNull();
    expect((await b.pods.list()).map((p) => p.id)).not.toContain(pod.id);
    expect(await captureError(b.rest.pods.get(pod.id))).toBeInstanceOf(NotFoundError);
    expect(await captureError(b.rest.pods.delete(pod.id))).toBeInstanceOf(NotFoundError);
    expect(await captureError(b.pods.stop(pod.id))).toBeInstanceOf(NotFoundError);
    const resume = await captureError<NotFoundError>(b.pods.resume({ podId: pod.id, gpuCount: 1 }));
    expect(resume).toBeInstanceOf(NotFoundError);
    expect(await captureError(b.pods.terminate(pod.id))).toBeInstanceOf(NotFoundError);
    expect(resume.message).toContain(`pod ${pod.id} not found`);
    expect(await captureError(b.rest.networkVolumes.delete(volume.id))).toBeInstanceOf(NotFoundError);
    expect((await a.pods.get(pod.id))?.desiredStatus).toBe('RUNNING');
    expect((await b.rest.billing.pods()).records).toEqual([]);
    await a.pods.terminate(pod.id);
  });
});

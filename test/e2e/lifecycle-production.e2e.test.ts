import { describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError, type RetryEvent } from '../../src/index.js';
import { captureError } from '../helpers.js';
import { KEY_A, KEY_B, useEmulator } from './harness.js';

const ctx = useEmulator({ podStartupMs: 0 });
const image = 'runpod/base:1.0';

async function postGraphQL(body: object, headers: Record<string, string>, query = ''): Promise<Response> {
  return fetch(`${ctx.server.graphqlUrl}${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

describe('the emulator answers GraphQL as the platform does', () => {
  it('accepts the key as Authorization: Bearer as well as ?api_key=, and refuses neither with 401', async () => {
    const body = { query: '{ myself { id } }' };
    expect((await postGraphQL(body, { authorization: `Bearer ${KEY_A}` })).status).toBe(200);
    expect((await postGraphQL(body, {}, `?api_key=${KEY_A}`)).status).toBe(200);
    expect((await postGraphQL(body, {})).status).toBe(401);
    expect((await postGraphQL(body, { authorization: 'Bearer rpa_unknown' })).status).toBe(401);
  });

  it("answers HTTP 400 to resume's allowedCudaVersions, as the live PodResumeInput does", async () => {
    const query = 'mutation ResumePod($input: PodResumeInput!) { podResume(input: $input) { id } }';
    const res = await postGraphQL({ query, variables: { input: { podId: 'p', gpuCount: 1, allowedCudaVersions: ['12.8'] } } }, { authorization: `Bearer ${KEY_A}` });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('Field \\"allowedCudaVersions\\" is not defined by type \\"PodResumeInput\\"');
  });

  it('answers HTTP 400 to an unknown field of deployCpuPod', async () => {
    const query = 'mutation DeployCpuPod($input: deployCpuPodInput!) { deployCpuPod(input: $input) { id } }';
    const res = await postGraphQL({ query, variables: { input: { instanceId: 'cpu3c-2-4', imageName: image, gpuTypeId: 'x' } } }, { authorization: `Bearer ${KEY_A}` });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('gpuTypeId');
  });
});

describe('pods against the emulator', () => {
  it('refuses allowedCudaVersions on resume before sending, saying what works instead', async () => {
    const err = await captureError<ValidationError>(ctx.client().pods.resume({ podId: 'p', gpuCount: 1, allowedCudaVersions: ['12.8'] } as never));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe('input.allowedCudaVersions');
    expect(err.message).toMatch(/new pod with allowedCudaVersions on the same network volume/);
  });

  it('a GPU display name as the id is a ValidationError naming the id, and nothing is deployed', async () => {
    const rp = ctx.client();
    const err = await captureError<ValidationError>(rp.pods.deploy({ imageName: image, gpuTypeId: 'RTX 4090', gpuCount: 1 }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe('input.gpuTypeId');
    expect(err.message).toContain('did you mean "NVIDIA GeForce RTX 4090"?');
    const typo = await captureError<ValidationError>(rp.pods.deploy({ imageName: image, gpuTypeIdList: ['NVIDIA L40S', 'NVIDIA RTX A400'], gpuCount: 1 }));
    expect(typo.message).toContain('did you mean "NVIDIA RTX A4000"?');
    expect(ctx.emulator.inspect.podCount(KEY_A)).toBe(0);
  });

  it('CPU pods go through deployCpu; deploy with computeType CPU points there', async () => {
    const rp = ctx.client();
    // @ts-expect-error deploy is for GPU pods
    const refused = await captureError<ValidationError>(rp.pods.deploy({ imageName: image, computeType: 'CPU', gpuCount: 1, gpuTypeId: 'NVIDIA RTX A4000' }));
    expect(refused.field).toBe('input.computeType');
    expect(refused.message).toContain('pods.deployCpu');
    const pod = await rp.pods.deployCpu({ instanceId: 'cpu3c-2-4', imageName: image, name: 'cpu', env: { A: '1' } });
    expect(pod).toMatchObject({ name: 'cpu', gpuCount: 0, desiredStatus: 'RUNNING' });
    expect(pod.env).toContain('A=1');
    await rp.pods.terminate(pod.id);
  });

  it('terminate retried after a lost success is success, whether the answer was dropped or the generic error', async () => {
    const rp = ctx.client();
    for (const fault of [{ type: 'drop-after-create' }, { type: 'error-after-create' }] as const) {
      const pod = await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 });
      const rule = ctx.emulator.faults.inject({ match: 'graphql:TerminatePod', fault });
      await expect(rp.pods.terminate(pod.id)).resolves.toBeUndefined();
      expect(rule.hits()).toBe(1);
      expect(ctx.emulator.inspect.pod(pod.id)).toBeUndefined();
    }
  });

  it('a resume answered with the generic error after the pod started returns the running pod', async () => {
    const rp = ctx.client();
    const pod = await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 });
    await rp.pods.stop(pod.id);
    ctx.emulator.faults.inject({ match: 'graphql:ResumePod', fault: { type: 'error-after-create' } });
    expect(await rp.pods.resume({ podId: pod.id, gpuCount: 1 })).toMatchObject({ id: pod.id, desiredStatus: 'RUNNING', gpuCount: 1 });
    await rp.pods.terminate(pod.id);
  });

  it('stop, resume and terminate of a pod that does not exist are NotFoundError', async () => {
    const rp = ctx.client();
    expect(await captureError(rp.pods.stop('no-such-pod'))).toBeInstanceOf(NotFoundError);
    expect(await captureError(rp.pods.resume({ podId: 'no-such-pod', gpuCount: 1 }))).toBeInstanceOf(NotFoundError);
    expect(await captureError(rp.pods.terminate('no-such-pod'))).toBeInstanceOf(NotFoundError);
  });
});

describe('GraphQL rate limits', () => {
  const limited = useEmulator({ graphqlRateLimit: { requests: 3, intervalMs: 1_000 } });

  it('the emulator answers 429 with Retry-After beyond the limit', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 4; i++) {
      const res = await fetch(limited.server.graphqlUrl, { method: 'POST', headers: { authorization: `Bearer ${KEY_B}`, 'content-type': 'application/json' }, body: '{"query":"{ myself { id } }"}' });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get('retry-after');
    }
    expect(statuses).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('the client waits as told and succeeds', async () => {
    const events: RetryEvent[] = [];
    const rp = limited.client(KEY_A, { onRetry: (e) => events.push(e) });
    for (let i = 0; i < 8 && events.length === 0; i++) expect(await rp.pods.list()).toEqual([]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ operation: 'MyPods', retry: 1, reason: 429 });
    expect(events[0]!.delayMs).toBeLessThanOrEqual(1_000);
  });
});

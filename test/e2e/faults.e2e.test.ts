import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, RateLimitError, ServerError, TimeoutError, type RetryEvent } from '../../src/index.js';
import { captureError } from '../helpers.js';
import { KEY_A, useEmulator } from './harness.js';

const ctx = useEmulator({ podStartupMs: 0 });
const deployInput = { imageName: 'img:1', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 };

afterEach(async () => {
  ctx.emulator.faults.clear();
  const rp = ctx.client();
  for (const pod of await rp.pods.list()) await rp.pods.terminate(pod.id);
});

function retrying() {
  const events: RetryEvent[] = [];
  return { events, rp: ctx.client(KEY_A, { onRetry: (e) => events.push(e), maxRetries: 3 }) };
}

describe('each fault meets the right typed error or a successful retry', () => {
  it('latency past the attempt limit: a query times out once, then succeeds', async () => {
    const rule = ctx.emulator.faults.inject({ match: 'GET /v2/pods', fault: { type: 'latency', ms: 400 } });
    const events: RetryEvent[] = [];
    expect(await ctx.client(KEY_A, { onRetry: (e) => events.push(e), maxRetries: 3 }).rest.pods.list({}, { timeoutMs: 150 })).toEqual([]);
    expect(rule.hits()).toBe(1);
    expect(events.map((e) => e.reason)).toEqual(['timeout']);
  });

  it('latency on deploy: the attempt times out and is never resent; the pod it created late is found by its marker', async () => {
    const rule = ctx.emulator.faults.inject({ match: 'graphql:DeployPod', fault: { type: 'latency', ms: 400 } });
    const pod = await ctx.client(KEY_A, { maxRetries: 5 }).pods.deploy(deployInput, { timeoutMs: 150 });
    expect(rule.hits()).toBe(1);
    expect(ctx.emulator.inspect.podCount(KEY_A)).toBe(1);
    expect(ctx.emulator.inspect.pod(pod.id)).toBeDefined();
  });

  it('429 with Retry-After is honoured and the call succeeds', async () => {
    ctx.emulator.faults.inject({ match: 'graphql:MyPods', fault: { type: 'status', status: 429, retryAfterSeconds: 1 } });
    const { rp, events } = retrying();
    const started = Date.now();
    expect(await rp.pods.list()).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(events).toEqual([{ operation: 'MyPods', retry: 1, delayMs: 1000, reason: 429 }]);
  });

  it('429 that does not stop ends in RateLimitError', async () => {
    // /run itself keeps backing off through 429s (refused before queueing) up to its deadline;
    // a call governed by maxRetries shows the end of the road.
    ctx.emulator.faults.inject({ match: 'GET /queue/v2/echo/health', fault: { type: 'status', status: 429, retryAfterSeconds: 0 }, times: 10 });
    const err = await captureError<RateLimitError>(ctx.client(KEY_A, { maxRetries: 2 }).endpoint('echo').health());
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(0);
  });

  // A REST v2 create after a 5xx or a 500 that took effect: rest-v2.e2e.test.ts and pagination.e2e.test.ts (sent once, found by its marker).
  it('a 5xx on a query is retried', async () => {
    ctx.emulator.faults.inject({ match: 'graphql:GpuTypes', fault: { type: 'status', status: 503 } });
    const { rp } = retrying();
    expect((await rp.gpuTypes.offers()).length).toBeGreaterThan(0);
  });

  it('the generic error after the pod was created (GraphQL deploy): the pod is found and returned, exactly one exists', async () => {
    const rule = ctx.emulator.faults.inject({ match: 'graphql:DeployPod', fault: { type: 'error-after-create' } });
    const rp = ctx.client(KEY_A, { maxRetries: 5 });
    const pod = await rp.pods.deploy(deployInput);
    expect(rule.hits()).toBe(1);
    expect(ctx.emulator.inspect.podCount(KEY_A)).toBe(1);
    expect((await rp.pods.list()).map((p) => p.id)).toEqual([pod.id]);
  });

  it('error-after-create on GraphQL answers as the platform does: HTTP 200, the generic message, data null', async () => {
    ctx.emulator.faults.inject({ match: 'graphql:DeployPod', fault: { type: 'error-after-create' } });
    const query = 'mutation DeployPod($input: PodFindAndDeployOnDemandInput!) { podFindAndDeployOnDemand(input: $input) { id } }';
    const res = await fetch(ctx.server.graphqlUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, operationName: 'DeployPod', variables: { input: deployInput } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      errors: [{ message: 'Something went wrong. Please try again later or contact support.', path: ['podFindAndDeployOnDemand'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      data: { podFindAndDeployOnDemand: null },
    });
    expect(ctx.emulator.inspect.podCount(KEY_A)).toBe(1);
  });

  it('a dropped connection: a query is retried, /run is not', async () => {
    ctx.emulator.faults.inject({ match: 'graphql:GpuTypes', fault: { type: 'drop' } });
    const { rp, events } = retrying();
    expect((await rp.gpuTypes.list()).length).toBeGreaterThan(0);
    expect(events.map((e) => e.reason)).toEqual(['connection']);

    const rule = ctx.emulator.faults.inject({ match: 'POST /queue/v2/echo/run', fault: { type: 'drop' }, times: 3 });
    const err = await captureError<ConnectionError>(rp.endpoint('echo').run({}));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.notSent).toBe(false);
    expect(rule.hits()).toBe(1);
  });

  it('a malformed JSON body is a ServerError', async () => {
    ctx.emulator.faults.inject({ match: 'graphql:Pod', fault: { type: 'malformed-json' } });
    const err = await captureError(ctx.client().pods.get('anything'));
    expect(err).toBeInstanceOf(ServerError);
  });

  it('an HTML error page is a ServerError naming it, after the retries', async () => {
    ctx.emulator.faults.inject({ match: 'GET /v2/templates', fault: { type: 'html' }, times: 3 });
    const err = await captureError<ServerError>(ctx.client(KEY_A, { maxRetries: 2 }).rest.templates.list());
    expect(err).toBeInstanceOf(ServerError);
    expect(err.status).toBe(502);
    expect(err.message).toContain('text/html');
    expect(ctx.emulator.faults.pending()).toEqual([]);
  });
});

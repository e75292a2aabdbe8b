// Issue 43, cause 9: the smaller ones. The emulator answers non-object variables 400 as RunPod and
// the gateway do; a GET within the gateway's 102,400-byte limit is not refused 431 by Node's header
// limit; `charset="utf-8"` (quoted, as RFC 9110 allows) is UTF-8; an endpoint whose `gpu` is a
// string is a typed wrong-shape error, never a silent `gpuIds: null`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/index.js';
import { bearer, READ_TOKEN, startRig, type GatewayRig } from './harness.js';

describe('the smaller causes', () => {
  let rig: GatewayRig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(() => rig.close());

  it('the emulator answers variables: "x" with 400, as RunPod does', async () => {
    const { graphqlUrl, apiKey } = rig.emulator.clientOptions('rpa_gateway_upstream_KEY_0123456789');
    const answer = await fetch(graphqlUrl!, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify({ query: '{ myself { id } }', variables: 'x' }) });
    expect(answer.status).toBe(400);
    const gateway = await rig.post({ query: '{ myself { id } }', variables: 'x' }, bearer(READ_TOKEN));
    expect(gateway.status).toBe(400);
  });

  it('a 20 KB GET is answered by the gateway, not refused 431 by the listener', async () => {
    const query = `{ __typename ${' '.repeat(20_000)}}`;
    const answer = await fetch(`${rig.gateway.graphqlUrl}?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/json', ...bearer(READ_TOKEN) } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: unknown }).data).toEqual({ __typename: 'Query' });
  });

  it('charset="utf-8", quoted, is UTF-8', async () => {
    const answer = await rig.post({ query: '{ __typename }' }, { ...bearer(READ_TOKEN), 'content-type': 'application/json; charset="utf-8"' });
    expect(answer.status).toBe(200);
  });
});

describe('an endpoint whose gpu is a string', () => {
  it('is a typed wrong-shape error naming the field, not gpuIds: null', async () => {
    const token = 'gw-gpu-shape-read-token-0123456789';
    const endpoint = { id: 'e1', name: 'ep', gpu: 'NVIDIA RTX A4000', workers: { min: 0, max: 1 } };
    const gateway = createGateway({
      tokens: `read:${token}`,
      client: {
        apiKey: 'rpa_gpu_shape_upstream_KEY_0123456789',
        restUrl: 'http://127.0.0.1:9/v2',
        maxRetries: 0,
        rateLimits: false,
        fetch: async () => Response.json({ endpoints: [endpoint], serverless: [endpoint], pagination: { nextCursor: null, hasNextPage: false } }),
      },
    });
    const answer = await gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query: '{ myself { endpoints { id gpuIds } } }' }) }));
    const body = (await answer.json()) as { data?: unknown; errors?: Array<{ message: string; path?: unknown[]; extensions?: { code?: string } }> };
    expect(body.errors?.length).toBeGreaterThan(0);
    const error = body.errors!.find((e) => JSON.stringify(e.path ?? []).includes('gpuIds'));
    expect(error?.message).toMatch(/gpu/);
    expect(error?.extensions?.code).toBe('ServerError');
  });
});

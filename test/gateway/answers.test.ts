// The gateway's documented answers with every upstream: a failure that concerns the whole request
// (the caller's key refused, RunPod's rate limit, an ambiguous create) is answered by its HTTP
// status whether RunPod's GraphQL or the in-process executor over REST v2 ran the document; field
// errors carry what the caller acts on; an invalid document is 400; request ids are kept.
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { listen as listenEmulator } from '../../src/emulator/node.js';
import { createGateway, type GatewayOptions, type GatewayUpstream } from '../../src/gateway/index.js';
import { listen } from '../../src/gateway/node.js';
import { createRunpodClient } from '../../src/index.js';
import { bearer, UPSTREAM_KEY, WRITE_TOKEN } from './harness.js';

const DEPLOY = 'mutation Deploy($input: PodFindAndDeployOnDemandInput) { podFindAndDeployOnDemand(input: $input) { id name } }';
const DEPLOY_INPUT = { input: { name: 'amb', imageName: 'runpod/base', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, cloudType: 'SECURE' } };
// Shaped like a RunPod key, unknown to the emulator.
const UNKNOWN_KEY = 'rpa_UNKNOWNTOTHEEMULATOR0123456789ABCDEFGH';

interface Answer {
  status: number;
  headers: Headers;
  body: {
    data?: Record<string, unknown> | null;
    errors?: Array<{ message: string; path?: unknown[]; extensions?: Record<string, unknown> }>;
    extensions?: { requestIds?: { gateway: string; upstream: string[] } };
  };
}

const read = async (response: Promise<Response>): Promise<Answer> => {
  const r = await response;
  return { status: r.status, headers: r.headers, body: JSON.parse(await r.text()) as Answer['body'] };
};

/** An emulator (its faults at hand) and a gateway over loopback; `upstreamCalls` counts what the gateway sent. */
interface Rig {
  readonly emulator: Emulator;
  readonly upstreamCalls: string[];
  post(body: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

async function startRig(options: Partial<GatewayOptions> = {}): Promise<Rig> {
  const emulator = createEmulator({ apiKeys: [UPSTREAM_KEY], podStartupMs: 0 });
  const served = await listenEmulator(emulator, { host: '127.0.0.1' });
  const { apiKey: _key, ...urls } = served.clientOptions(UPSTREAM_KEY);
  const upstreamCalls: string[] = [];
  const gateway = await listen(
    createGateway({
      tokens: `write:${WRITE_TOKEN}`,
      ...options,
      client: {
        ...urls,
        ...(options.passThroughKeys ? {} : { apiKey: UPSTREAM_KEY }),
        maxRetries: 0,
        fetch: (input, init) => (upstreamCalls.push(String(input)), fetch(input, init)),
        ...options.client,
      },
    }),
  );
  return {
    emulator,
    upstreamCalls,
    post: (body, headers = {}) => fetch(gateway.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers }, body: JSON.stringify(body) }),
    async close() {
      await gateway.close();
      await served.close();
    },
  };
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Where each upstream's pod list is matched by the emulator's faults. */
const podsRoute: Record<'rest' | 'graphql', string> = { rest: 'GET /v2/pods', graphql: 'graphql:*' };

describe.each(['rest', 'graphql'] as const)('with --upstream %s', (upstream: GatewayUpstream & ('rest' | 'graphql')) => {
  it('a refused pass-through key is 401 with WWW-Authenticate, no data, and the key in no byte', async () => {
    rig = await startRig({ passThroughKeys: true, tokens: undefined, upstream });
    const r = await read(rig.post({ query: '{ myself { pods { id } } }' }, bearer(UNKNOWN_KEY)));
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(JSON.stringify(r.body) + JSON.stringify([...r.headers])).not.toContain(UNKNOWN_KEY);
  });

  it("RunPod's rate limit is 503 UPSTREAM_RATE_LIMITED with Retry-After, and retryAfterMs in the error", async () => {
    rig = await startRig({ upstream });
    rig.emulator.faults.inject({ match: podsRoute[upstream], fault: { type: 'status', status: 429, retryAfterSeconds: 7 } });
    const r = await read(rig.post({ query: '{ myself { pods { id } } }' }, bearer(WRITE_TOKEN)));
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', retryAfterMs: 7000 });
  });

  it('an invalid document is 400 with application/json as with the GraphQL media type, and nothing is sent', async () => {
    rig = await startRig({ upstream });
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      for (const query of ['{ myself { pods { id }', '{ myself { noSuchField } }']) {
        const r = await read(rig.post({ query }, { ...bearer(WRITE_TOKEN), accept }));
        expect([accept, query, r.status]).toEqual([accept, query, 400]);
        expect(r.body.errors?.length).toBeGreaterThan(0);
      }
      const badVariables = await read(rig.post({ query: 'query P($id: String!) { pod(input: { podId: $id }) { id } }', variables: { id: 5 } }, { ...bearer(WRITE_TOKEN), accept }));
      expect(badVariables.status).toBe(400);
    }
    expect(rig.upstreamCalls).toEqual([]);
  });

  it("every answer names the gateway's request id (x-request-id and extensions) and the upstream answers' ids", async () => {
    rig = await startRig({ upstream });
    const ok = await read(rig.post({ query: '{ myself { pods { id } } }' }, bearer(WRITE_TOKEN)));
    expect(ok.status).toBe(200);
    const ids = ok.body.extensions?.requestIds;
    expect(ids?.gateway).toMatch(/^gw_[0-9a-f-]{36}$/);
    expect(ok.headers.get('x-request-id')).toBe(ids?.gateway);
    // REST v2 answers carry x-request-id; the emulator's GraphQL carries none.
    if (upstream === 'rest') expect(ids?.upstream.length).toBeGreaterThan(0);
    const refused = await read(rig.post({ query: '{ myself { id } }' }));
    expect(refused.status).toBe(401);
    expect(refused.body.extensions?.requestIds?.gateway).toBe(refused.headers.get('x-request-id'));
    expect(refused.body.extensions?.requestIds?.gateway).not.toBe(ids?.gateway);
  });
});

describe('in process over REST v2 (the default upstream)', () => {
  it('an ambiguous create is 502 POSSIBLY_CREATED with its createMarker, and the upstream ids of the failures', async () => {
    rig = await startRig();
    rig.emulator.faults.inject({ match: 'POST /v2/pods', fault: { type: 'error-after-create', status: 500 } });
    // The lookups by marker fail too, so nothing can settle it.
    rig.emulator.faults.inject({ match: 'GET /v2/pods', fault: { type: 'status', status: 503 }, times: 3 });
    const r = await read(rig.post({ query: DEPLOY, variables: DEPLOY_INPUT }, bearer(WRITE_TOKEN)));
    expect(r.status).toBe(502);
    expect(r.body.data).toBeUndefined();
    const error = r.body.errors?.[0];
    expect(error?.extensions?.code).toBe('POSSIBLY_CREATED');
    expect(error?.extensions?.createMarker).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    expect(r.body.extensions?.requestIds?.upstream.length).toBeGreaterThan(0);
    // The pod exists, and carries the marker the caller was given.
    const pods = await createRunpodClient({ ...rig.emulator.clientOptions(UPSTREAM_KEY), rateLimits: false, maxRetries: 5 }).rest.pods.list();
    expect(JSON.stringify(pods)).toContain(String(error?.extensions?.createMarker));
  }, 30_000);

  it('what was read is never reported as failed: one field rate-limited, another read, is 200 with the data and retryAfterMs', async () => {
    rig = await startRig();
    rig.emulator.faults.inject({ match: 'GET /v2/pods', fault: { type: 'status', status: 429, retryAfterSeconds: 3 } });
    const r = await read(rig.post({ query: '{ gpuTypes { id } myself { pods { id } } }' }, bearer(WRITE_TOKEN)));
    expect(r.status).toBe(200);
    expect((r.body.data?.gpuTypes as unknown[]).length).toBeGreaterThan(0);
    const error = r.body.errors?.find((e) => e.extensions?.code === 'RateLimitError');
    expect(error?.extensions).toMatchObject({ retryAfterMs: 3000 });
    expect(error?.path).toEqual(['myself', 'pods']);
  });

  it("the gateway's own key refused is 502 (no caller can fix it), not 401", async () => {
    rig = await startRig({ client: { apiKey: 'rpa_GATEWAYKEYTHEEMULATORDOESNOTKNOW0123' } });
    const r = await read(rig.post({ query: '{ myself { pods { id } } }' }, bearer(WRITE_TOKEN)));
    expect(r.status).toBe(502);
    expect(r.headers.get('www-authenticate')).toBeNull();
    expect(r.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_AuthenticationError');
  });
});

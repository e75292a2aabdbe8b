import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/index.js';
import { listen } from '../../src/gateway/node.js';
import { spellingsOf } from '../fuzz/harness.js';
import { bearer, READ_TOKEN, startRig, UPSTREAM_KEY, WRITE_TOKEN, type GatewayRig } from './harness.js';

const DEPLOY = 'mutation Deploy($input: PodFindAndDeployOnDemandInput) { podFindAndDeployOnDemand(input: $input) { id name } }';
const DEPLOY_INPUT = { input: { name: 'gw', imageName: 'runpod/base', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, cloudType: 'SECURE' } };

describe('the gateway over loopback, against the emulator', () => {
  let rig: GatewayRig;
  const seen: Array<{ status: number; headers: string; body: string }> = [];
  /** Every answer, kept so the last test can look for the upstream key in all of them. */
  const keep = async (response: Promise<Response>) => {
    const r = await response;
    const body = await r.text();
    seen.push({ status: r.status, headers: JSON.stringify([...r.headers]), body });
    return { status: r.status, headers: r.headers, body, json: () => JSON.parse(body) as { data?: any; errors?: Array<{ message: string; extensions?: { code?: string } }> } };
  };

  beforeAll(async () => {
    // The audit sends its requests at once, all with one token: past the default 4 in flight, 429.
    rig = await startRig({ corsOrigins: ['http://app.example.test'], limits: { maxInFlight: 64 } });
  });
  afterAll(() => rig?.close());

  it('passes every MUST of graphql-http\'s server audit (and reports the SHOULDs)', async () => {
    const results = await auditServer({ url: rig.gateway.graphqlUrl, fetchFn: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...bearer(READ_TOKEN) } }) });
    const failedMust = results.filter((r) => r.name.startsWith('MUST') && r.status !== 'ok');
    expect(failedMust.map((r) => `${r.id} ${r.name}: ${'reason' in r ? r.reason : ''}`)).toEqual([]);
    expect(results.filter((r) => r.name.startsWith('MUST')).length).toBeGreaterThan(10);
    const warned = results.filter((r) => r.status !== 'ok').map((r) => `${r.id} ${r.name}`);
    // On purpose: an invalid document is 400 with JSON too, as RunPod's GraphQL answers it
    // (the spec's 200 is for legacy callers that read no status).
    expect(warned.sort()).toEqual([
      '572B SHOULD use 200 status code on document parsing failure when accepting application/json',
      '7B9B SHOULD use a status code of 200 on variable coercion failure when accepting application/json',
      'FDE2 SHOULD use 200 status code on document validation failure when accepting application/json',
    ]);
  });

  it('answers a query with the upstream data in application/graphql-response+json', async () => {
    const r = await keep(rig.post({ query: '{ gpuTypes { id displayName } }' }, bearer(READ_TOKEN)));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(r.json().data.gpuTypes.length).toBeGreaterThan(3);
  });

  it('serves GET for queries and refuses a mutation over GET with 405', async () => {
    const get = (query: string) => keep(fetch(`${rig.gateway.graphqlUrl}?${new URLSearchParams({ query })}`, { headers: bearer(WRITE_TOKEN) }));
    const ok = await get('{ myself { pods { id } } }');
    expect(ok.status).toBe(200);
    expect(Array.isArray(ok.json().data.myself.pods)).toBe(true);
    const before = rig.upstreamCalls.length;
    const refused = await get(DEPLOY);
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('POST');
    expect(rig.upstreamCalls.length).toBe(before);
  });

  it('401 with WWW-Authenticate: Bearer for a missing or unknown token, 403 for a mutation with a read token; nothing sent upstream', async () => {
    const before = rig.upstreamCalls.length;
    const missing = await keep(rig.post({ query: '{ myself { id } }' }));
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(missing.json().errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const unknown = await keep(rig.post({ query: '{ myself { id } }' }, bearer('not-a-known-token-at-all')));
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const forbidden = await keep(rig.post({ query: DEPLOY, variables: DEPLOY_INPUT }, bearer(READ_TOKEN)));
    expect(forbidden.status).toBe(403);
    expect(forbidden.json().errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(rig.upstreamCalls.length).toBe(before);
  });

  it('runs a mutation with a write token, over REST v2 by default, creating one pod', async () => {
    const r = await keep(rig.post({ query: DEPLOY, variables: DEPLOY_INPUT }, bearer(WRITE_TOKEN)));
    expect(r.status).toBe(200);
    expect(r.json().data.podFindAndDeployOnDemand.name).toBe('gw');
    expect(rig.upstreamCalls.filter((c) => c === 'POST /v2/pods')).toHaveLength(1);
    expect(rig.upstreamCalls.filter((c) => c.endsWith('/graphql'))).toEqual([]);
    const pods = await keep(rig.post({ query: '{ myself { pods { id name } } }' }, bearer(READ_TOKEN)));
    expect(pods.json().data.myself.pods.filter((p: { name: string }) => p.name === 'gw')).toHaveLength(1);
  });

  it('CORS: an allowed origin gets its headers and a preflight; another origin is refused', async () => {
    const pre = await fetch(rig.gateway.graphqlUrl, { method: 'OPTIONS', headers: { origin: 'http://app.example.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('http://app.example.test');
    expect(pre.headers.get('access-control-allow-headers')).toContain('authorization');
    const allowed = await keep(rig.post({ query: '{ gpuTypes { id } }' }, { ...bearer(READ_TOKEN), origin: 'http://app.example.test' }));
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://app.example.test');
    const deniedPre = await fetch(rig.gateway.graphqlUrl, { method: 'OPTIONS', headers: { origin: 'http://evil.example.test', 'access-control-request-method': 'POST' } });
    expect(deniedPre.headers.get('access-control-allow-origin')).toBeNull();
    const before = rig.upstreamCalls.length;
    const denied = await keep(rig.post({ query: '{ gpuTypes { id } }' }, { ...bearer(READ_TOKEN), origin: 'http://evil.example.test' }));
    expect(denied.status).toBe(403);
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();
    expect(rig.upstreamCalls.length).toBe(before);
  });

  it('refuses too deep, too many aliases and too large a body, each with a GraphQL error and nothing sent', async () => {
    const before = rig.upstreamCalls.length;
    const deep = await keep(rig.post({ query: '{ myself { pods { machine { gpuTypeId } runtime { ports { ip } } } } }' }, bearer(READ_TOKEN)));
    expect(deep.status).toBe(200);
    const tooDeep = 'query { ' + 'myself { pods { runtime { ports { ip } } } }'.replace('ip', 'ip') + ' }';
    const small = await startRig({ limits: { maxDepth: 3, maxAliases: 2, maxBodyBytes: 300 } });
    try {
      const d = await keep(small.post({ query: tooDeep }, bearer(READ_TOKEN)));
      expect([d.status, d.json().errors?.[0]?.extensions?.code]).toEqual([400, 'DEPTH_LIMIT']);
      const a = await keep(small.post({ query: '{ a: gpuTypes { id } b: gpuTypes { id } c: gpuTypes { id } }' }, bearer(READ_TOKEN)));
      expect([a.status, a.json().errors?.[0]?.extensions?.code]).toEqual([400, 'ALIAS_LIMIT']);
      const big = await keep(small.post({ query: `{ gpuTypes { id } } # ${'x'.repeat(400)}` }, bearer(READ_TOKEN)));
      expect([big.status, big.json().errors?.[0]?.extensions?.code]).toEqual([413, 'BODY_TOO_LARGE']);
      expect(small.upstreamCalls).toEqual([]);
    } finally {
      await small.close();
    }
    expect(rig.upstreamCalls.length - before).toBe(1);
  });

  it('holds a per-token rate: past it, 429 with Retry-After and a GraphQL error', async () => {
    // Charged in upstream calls: `{ gpuTypes { id } }` reads the catalog twice (secure and community).
    const limited = await startRig({ cache: false, limits: { rate: { requests: 6, intervalMs: 60_000 } } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await keep(limited.post({ query: '{ gpuTypes { id } }' }, bearer(READ_TOKEN)))).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const other = await keep(limited.post({ query: '{ gpuTypes { id } }' }, bearer(WRITE_TOKEN)));
      expect(other.status).toBe(200);
      const refused = await keep(limited.post({ query: '{ gpuTypes { id } }' }, bearer(READ_TOKEN)));
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.json().errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      const sent = limited.upstreamCalls.length;
      await keep(limited.post({ query: '{ gpuTypes { id } }' }, bearer(READ_TOKEN)));
      expect(limited.upstreamCalls.length).toBe(sent);
    } finally {
      await limited.close();
    }
  });

  it("holds a caller's rate for a first burst that arrives at once (one bucket per caller, whatever the order)", async () => {
    const limited = await startRig({ limits: { rate: { requests: 3, intervalMs: 60_000 } } });
    try {
      const burst = await Promise.all(Array.from({ length: 6 }, () => keep(limited.post({ query: '{ gpuTypes { id } }' }, bearer(READ_TOKEN)))));
      expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429, 429]);
      const again = await Promise.all(Array.from({ length: 2 }, () => keep(limited.post({ query: '{ gpuTypes { id } }' }, bearer(READ_TOKEN)))));
      expect(again.map((r) => r.status)).toEqual([429, 429]);
    } finally {
      await limited.close();
    }
  });

  it('/healthz and /readyz answer 200', async () => {
    expect((await fetch(`${rig.gateway.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${rig.gateway.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${rig.gateway.url}/other`)).status).toBe(404);
  });

  it('the upstream key is in no byte of any answer, in any spelling the redactor knows (upstream errors included)', async () => {
    // An upstream that echoes the key back in every way it can.
    const echo = await startRig({
      client: {
        fetch: async (_input, init) => {
          const key = new Headers(init?.headers).get('authorization')?.slice(7) ?? UPSTREAM_KEY;
          return new Response(JSON.stringify({ errors: spellingsOf(key).map((s) => ({ message: `bad key ${s}`, extensions: { code: 'X', s } })), data: { myself: { id: key } } }), { status: 200, headers: { 'content-type': 'application/json' } });
        },
        graphqlAuth: 'header',
      },
    });
    try {
      await keep(echo.post({ query: '{ myself { id } }' }, bearer(READ_TOKEN)));
      await keep(echo.post({ query: '{ myself { id email } }' }, bearer(WRITE_TOKEN)));
    } finally {
      await echo.close();
    }
    expect(seen.length).toBeGreaterThan(15);
    const texts = seen.map((s) => `${s.status}\n${s.headers}\n${s.body}`).join('\n');
    for (const spelling of spellingsOf(UPSTREAM_KEY)) expect(texts).not.toContain(spelling);
    for (const token of [READ_TOKEN, WRITE_TOKEN]) for (const spelling of spellingsOf(token)) expect(texts).not.toContain(spelling);
  });
});

describe('persisted documents only', () => {
  let rig: GatewayRig;
  const persisted = { offers: 'query Offers { gpuTypes { id displayName } }', mine: 'query Mine { myself { pods { id } } }' };
  beforeAll(async () => {
    rig = await startRig({ persisted });
  });
  afterAll(() => rig?.close());

  it('runs a document by id and by Apollo\'s sha256Hash, and refuses any text', async () => {
    const byId = await rig.post({ documentId: 'offers' }, bearer(READ_TOKEN));
    expect(byId.status).toBe(200);
    expect(((await byId.json()) as { data: { gpuTypes: unknown[] } }).data.gpuTypes.length).toBeGreaterThan(3);
    const hash = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(persisted.mine))).toString('hex');
    const byHash = await rig.post({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }, bearer(READ_TOKEN));
    expect(byHash.status).toBe(200);
    const before = rig.upstreamCalls.length;
    const text = await rig.post({ query: persisted.offers }, bearer(READ_TOKEN));
    expect(text.status).toBe(400);
    expect(((await text.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('PERSISTED_QUERY_ONLY');
    const unknown = await rig.post({ documentId: 'nope' }, bearer(READ_TOKEN));
    expect(unknown.status).toBe(400);
    expect(rig.upstreamCalls.length).toBe(before);
  });
});

describe('pass-through keys', () => {
  let rig: GatewayRig;
  beforeAll(async () => {
    // Drop-in for an existing GraphQL caller: RunPod's GraphQL upstream, as its scripts expect.
    rig = await startRig({ passThroughKeys: true, tokens: undefined, upstream: 'graphql' });
  });
  afterAll(() => rig?.close());

  it('uses the caller\'s own key (Bearer or ?api_key=), needs no token, and answers 401 without a key', async () => {
    const viaBearer = await rig.post({ query: '{ myself { id } }' }, bearer('rpa_caller_own_key_0123456789'));
    expect(viaBearer.status).toBe(200);
    const own = ((await viaBearer.json()) as { data: { myself: { id: string } } }).data.myself.id;
    const viaQuery = await fetch(`${rig.gateway.graphqlUrl}?api_key=${encodeURIComponent(UPSTREAM_KEY)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ myself { id } }' }) });
    expect(viaQuery.status).toBe(200);
    // Two keys, two accounts: each caller saw its own.
    expect(((await viaQuery.json()) as { data: { myself: { id: string } } }).data.myself.id).not.toBe(own);
    const before = rig.upstreamCalls.length;
    const none = await rig.post({ query: '{ myself { id } }' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await rig.post({ query: '{ myself { id } }' }, bearer('rpa_not_a_key_of_the_emulator'));
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('rpa_not_a_key_of_the_emulator');
    expect(rig.upstreamCalls.length - before).toBe(1);
  });
});

describe('starting', () => {
  it('refuses to start with no token, unless anonymous on loopback', async () => {
    expect(() => createGateway({ tokens: '', client: { apiKey: UPSTREAM_KEY } })).toThrow(ValidationError);
    expect(() => createGateway({ tokens: 'read:short', client: { apiKey: UPSTREAM_KEY } })).toThrow(/at least 16/);
    expect(() => createGateway({ tokens: 'admin:0123456789abcdef0123', client: { apiKey: UPSTREAM_KEY } })).toThrow(/entry 1/);
    const anonymous = createGateway({ tokens: '', allowAnonymous: true, client: { apiKey: UPSTREAM_KEY } });
    expect(anonymous.anonymous).toBe(true);
    await expect(listen(anonymous, { host: '0.0.0.0' })).rejects.toThrow(/loopback/);
    const local = await listen(anonymous, { host: '127.0.0.1' });
    await local.close();
  });

  it('refuses to start without an upstream key outside pass-through, and with one inside it', () => {
    expect(() => createGateway({ tokens: `read:${READ_TOKEN}`, client: { apiKey: '' } })).toThrow(/RUNPOD_API_KEY/);
    expect(() => createGateway({ passThroughKeys: true, client: { apiKey: UPSTREAM_KEY } })).toThrow(/holds no key/);
  });
});

// Issue 42 item 4 (public queries without a key) and issue 44 item 5 (coalescing and a response
// cache), frictions 10 and 11: counted in upstream calls at the gateway's fetch seam, against the
// emulator over loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryResponseCacheStore, type CacheEvent, type ResponseCacheStore } from '../../src/gateway/response-cache.js';
import { bearer, READ_TOKEN, startRig, UPSTREAM_KEY, WRITE_TOKEN, type GatewayRig } from './harness.js';

/** A public price page's document: every view of it cost RunPod two catalog calls (friction 10). */
const PRICE_PAGE = '{ gpuTypes { id displayName securePrice communityPrice lowestPrice(input: { gpuCount: 1 }) { stockStatus uninterruptablePrice } } }';
/** A live view's dashboard document: four upstream calls per refresh (friction 11). */
const DASHBOARD = '{ myself { pods { id name desiredStatus } networkVolumes { id } } gpuTypes { id } }';
const OWN_KEY = 'rpa_caller_own_key_0123456789';
const CATALOG_KEY = UPSTREAM_KEY;

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as { data?: any; errors?: Array<{ extensions?: { code?: string } }> } });

/** A store that remembers every key and value written to it, over the memory one. */
function spyingStore(): ResponseCacheStore & { writes: Array<{ key: string; value: string }> } {
  const inner = memoryResponseCacheStore();
  const writes: Array<{ key: string; value: string }> = [];
  return {
    writes,
    lookup: (key, generation) => inner.lookup(key, generation),
    store: (key, generation, value, ttlMs) => {
      writes.push({ key, value });
      return inner.store(key, generation, value, ttlMs);
    },
    bump: (generation) => inner.bump(generation),
  };
}

describe('keyless catalog reads (issue 42 item 4)', () => {
  let rig: GatewayRig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(() => rig?.close());

  it('token mode: a keyless document of catalog fields only is answered with the gateway\'s own key; anything else is 401 as before, nothing sent', async () => {
    const page = await json(await rig.post({ query: PRICE_PAGE }));
    expect(page.status).toBe(200);
    expect(page.body.data.gpuTypes.length).toBeGreaterThan(2);
    expect(page.body.data.gpuTypes[0]).toMatchObject({ id: expect.any(String), lowestPrice: { uninterruptablePrice: expect.any(Number) } });
    const centres = await json(await rig.post({ query: 'query Where { dataCenters { id name } }' }));
    expect(centres.status).toBe(200);
    const before = rig.upstreamCalls.length;
    for (const query of ['{ myself { id } }', '{ gpuTypes { id } myself { id } }', 'mutation { podTerminate(input: { podId: "x" }) }', 'fragment F on Query { pod(input: { podId: "x" }) { id } } { gpuTypes { id } ...F }']) {
      const refused = await rig.post({ query });
      expect({ query, status: refused.status }).toEqual({ query, status: 401 });
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await refused.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
    }
    expect(rig.upstreamCalls.length).toBe(before);
  });

  it('pass-through mode: answered with the operator\'s catalog key; without one, 401 as before', async () => {
    const withKey = await startRig({ passThroughKeys: true, tokens: undefined, upstream: 'graphql', catalogKey: CATALOG_KEY });
    const without = await startRig({ passThroughKeys: true, tokens: undefined, upstream: 'graphql' });
    try {
      const page = await withKey.post({ query: PRICE_PAGE });
      const text = await page.text();
      expect(page.status).toBe(200);
      expect(text).not.toContain(CATALOG_KEY);
      expect((await withKey.post({ query: '{ myself { id } }' })).status).toBe(401);
      // A caller's own key still reads its own account.
      expect((await json(await withKey.post({ query: '{ myself { id } }' }, bearer(OWN_KEY)))).body.data.myself.id).toEqual(expect.any(String));
      expect((await without.post({ query: PRICE_PAGE })).status).toBe(401);
      expect(without.upstreamCalls).toEqual([]);
    } finally {
      await withKey.close();
      await without.close();
    }
  });

  it('keyless: false answers every request without a token 401', async () => {
    const closed = await startRig({ keyless: false });
    try {
      expect((await closed.post({ query: PRICE_PAGE })).status).toBe(401);
      expect(closed.upstreamCalls).toEqual([]);
    } finally {
      await closed.close();
    }
  });
});

describe('coalescing and the response cache (issue 44 item 5, frictions 10 and 11)', () => {
  it('friction 10: a public price page costs one upstream read per TTL, whatever its traffic (50 views, keyless and by token)', async () => {
    const events: CacheEvent[] = [];
    const rig = await startRig({ cache: { catalogTtlMs: 60_000 }, onCache: (event) => events.push(event) });
    try {
      const views = await Promise.all(Array.from({ length: 25 }, (_, i) => rig.post({ query: PRICE_PAGE }, i % 5 === 0 ? bearer(READ_TOKEN) : {})));
      for (let i = 0; i < 25; i++) views.push(await rig.post({ query: PRICE_PAGE }, i % 2 ? bearer(WRITE_TOKEN) : {}));
      const bodies = await Promise.all(views.map(async (v) => [v.status, JSON.stringify(((await v.json()) as { data: unknown }).data)] as const));
      expect(new Set(bodies.map(([status]) => status))).toEqual(new Set([200]));
      expect(new Set(bodies.map(([, data]) => data)).size).toBe(1);
      // One run of the document: RunPod's catalog read for each cloud, once.
      expect(rig.upstreamCalls).toEqual(['GET /v2/catalog/gpus', 'GET /v2/catalog/gpus']);
      expect(events.filter((e) => e.outcome === 'miss')).toHaveLength(1);
      expect(events.filter((e) => e.outcome !== 'miss')).toHaveLength(49);
      expect(new Set(events.map((e) => e.kind))).toEqual(new Set(['catalog']));
    } finally {
      await rig.close();
    }
  });

  it('past the TTL, the next view reads again', async () => {
    const rig = await startRig({ cache: { catalogTtlMs: 150 } });
    try {
      await (await rig.post({ query: PRICE_PAGE })).text();
      await (await rig.post({ query: PRICE_PAGE })).text();
      expect(rig.upstreamCalls).toHaveLength(2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await (await rig.post({ query: PRICE_PAGE })).text();
      expect(rig.upstreamCalls).toHaveLength(4);
    } finally {
      await rig.close();
    }
  });

  it('friction 11: ten tabs refreshing one dashboard at once cost one run (4 upstream calls, not 40), and a refresh within the TTL costs none', async () => {
    // The default limits: the caller-limits stage admits each document before the cache stage answers
    // it, and past --max-in-flight 4 the other six tabs wait in line for a slot (the queue), not 429.
    const rig = await startRig();
    try {
      const refresh = () => Promise.all(Array.from({ length: 10 }, () => rig.post({ query: DASHBOARD }, bearer(READ_TOKEN)).then(json)));
      const first = await refresh();
      expect(first.map((a) => a.status)).toEqual(Array(10).fill(200));
      expect(rig.upstreamCalls).toHaveLength(4);
      await refresh();
      expect(rig.upstreamCalls).toHaveLength(4);
    } finally {
      await rig.close();
    }
  });

  it('account reads are per caller only: another token runs its own, and a mutation clears the account\'s cached reads', async () => {
    const rig = await startRig();
    try {
      const pods = async (token: string) => ((await json(await rig.post({ query: '{ myself { pods { id } } }' }, bearer(token)))).body.data.myself.pods as unknown[]).length;
      expect(await pods(READ_TOKEN)).toBe(0);
      const afterRead = rig.upstreamCalls.length;
      expect(await pods(READ_TOKEN)).toBe(0);
      expect(rig.upstreamCalls.length).toBe(afterRead);
      expect(await pods(WRITE_TOKEN)).toBe(0);
      expect(rig.upstreamCalls.length).toBe(afterRead + 1);
      const deploy = await json(
        await rig.post(
          { query: 'mutation Deploy($input: PodFindAndDeployOnDemandInput) { podFindAndDeployOnDemand(input: $input) { id } }', variables: { input: { gpuCount: 1, gpuTypeId: 'NVIDIA GeForce RTX 4090', imageName: 'runpod/base:0.0.0', cloudType: 'SECURE', containerDiskInGb: 10 } } },
          bearer(WRITE_TOKEN),
        ),
      );
      expect(deploy.status).toBe(200);
      // Both tokens act for the gateway's one account: the read token sees the new pod at once.
      expect(await pods(READ_TOKEN)).toBe(1);
    } finally {
      await rig.close();
    }
  });

  it('a cached answer never holds account data or a credential: catalog entries hold only catalog roots, keys are digests', async () => {
    const store = spyingStore();
    const rig = await startRig({ passThroughKeys: true, tokens: undefined, upstream: 'graphql', catalogKey: CATALOG_KEY, cache: { store } });
    try {
      const own = (await json(await rig.post({ query: '{ myself { id } }' }, bearer(OWN_KEY)))).body.data.myself.id as string;
      const other = (await json(await rig.post({ query: '{ myself { id } }' }, bearer(UPSTREAM_KEY)))).body.data.myself.id as string;
      expect(own).not.toBe(other);
      await (await rig.post({ query: PRICE_PAGE })).text();
      await (await rig.post({ query: PRICE_PAGE }, bearer(OWN_KEY))).text();
      await (await rig.post({ query: DASHBOARD }, bearer(OWN_KEY))).text();
      // Each key still reads only its own account, cached or not.
      expect((await json(await rig.post({ query: '{ myself { id } }' }, bearer(UPSTREAM_KEY)))).body.data.myself.id).toBe(other);
      expect((await json(await rig.post({ query: '{ myself { id } }' }, bearer(OWN_KEY)))).body.data.myself.id).toBe(own);
      expect(store.writes.length).toBeGreaterThanOrEqual(4);
      const catalog = store.writes.filter((w) => w.key.startsWith('catalog:'));
      expect(catalog).toHaveLength(1);
      for (const { key, value } of store.writes) {
        for (const secret of [OWN_KEY, UPSTREAM_KEY, encodeURIComponent(OWN_KEY), 'myself { id }']) {
          expect(key).not.toContain(secret);
          expect(value).not.toContain(OWN_KEY);
          expect(value).not.toContain(UPSTREAM_KEY);
        }
        expect(key).toMatch(/^(catalog|account:[0-9a-f]{32}):[0-9a-f]{32}$/);
      }
      for (const { value } of catalog) {
        expect(Object.keys(JSON.parse(value).answer.body.data)).toEqual(['gpuTypes']);
        expect(value).not.toContain(own);
        expect(value).not.toContain(other);
      }
    } finally {
      await rig.close();
    }
  });

  it('mutations are never cached or coalesced: two identical creates make two pods', async () => {
    const rig = await startRig();
    try {
      const deploy = () =>
        rig.post(
          { query: 'mutation Deploy($input: PodFindAndDeployOnDemandInput) { podFindAndDeployOnDemand(input: $input) { id } }', variables: { input: { gpuCount: 1, gpuTypeId: 'NVIDIA GeForce RTX 4090', imageName: 'runpod/base:0.0.0', cloudType: 'SECURE', containerDiskInGb: 10 } } },
          bearer(WRITE_TOKEN),
        ).then(json);
      const [a, b] = await Promise.all([deploy(), deploy()]);
      expect(a.body.data.podFindAndDeployOnDemand.id).not.toBe(b.body.data.podFindAndDeployOnDemand.id);
    } finally {
      await rig.close();
    }
  });
});

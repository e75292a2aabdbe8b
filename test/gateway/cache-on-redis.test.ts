// Frictions 10 and 11 across gateways: two gateways on one real Redis (redis-server on 127.0.0.1,
// started and stopped by PID) share their cached answers and their runs of the same read, counted
// in upstream calls at one emulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen as listenEmulator } from '../../src/emulator/node.js';
import { createGateway } from '../../src/gateway/index.js';
import { listen, type ListeningGateway } from '../../src/gateway/node.js';
import { createRedisResponseCacheStore, type RedisResponseCacheStore } from '../../src/pacing/redis-response-cache.js';
import { redisServerPath, startRedisServer, type RedisServer } from '../pacing/redis-server.js';
import { bearer, READ_TOKEN, UPSTREAM_KEY, WRITE_TOKEN } from './harness.js';

const PRICE_PAGE = '{ gpuTypes { id displayName securePrice communityPrice lowestPrice(input: { gpuCount: 1 }) { stockStatus uninterruptablePrice } } }';
const DASHBOARD = '{ myself { pods { id name desiredStatus } networkVolumes { id } } gpuTypes { id } }';

describe.runIf(redisServerPath || process.env.CI)('two gateways on one Redis share the response cache', () => {
  let redis: RedisServer;
  let emulator: ListeningEmulator;
  const upstreamCalls: string[] = [];
  const gateways: ListeningGateway[] = [];
  const stores: RedisResponseCacheStore[] = [];
  const warnings: string[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    emulator = await listenEmulator(createEmulator({ apiKeys: [UPSTREAM_KEY] }), { host: '127.0.0.1' });
    const { apiKey: _key, ...urls } = emulator.clientOptions(UPSTREAM_KEY);
    for (let i = 0; i < 2; i++) {
      const store = createRedisResponseCacheStore({ redis: redis.url, onWarning: (message) => warnings.push(message) });
      stores.push(store);
      const gateway = createGateway({
        tokens: `read:${READ_TOKEN},write:${WRITE_TOKEN}`,
        cache: { store },
        // Ten tabs at once need ten slots: the caller-limits stage admits each before the cache answers it.
        limits: { maxInFlight: 10 },
        client: {
          ...urls,
          apiKey: UPSTREAM_KEY,
          maxRetries: 0,
          fetch: (input, init) => {
            upstreamCalls.push(`${init?.method ?? 'GET'} ${new URL(String(input instanceof Request ? input.url : input)).pathname}`);
            return fetch(input, init);
          },
        },
      });
      gateways.push(await listen(gateway));
    }
  }, 30_000);

  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    for (const store of stores) await store.close();
    await emulator?.close();
    await redis?.stop();
  });

  const post = (gateway: ListeningGateway, query: string, headers: Record<string, string> = {}) =>
    fetch(gateway.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) }).then(async (r) => ({ status: r.status, text: await r.text() }));

  it('friction 10: a price page viewed 40 times through both gateways, at once and one by one, costs one run (2 catalog calls)', async () => {
    upstreamCalls.length = 0;
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => post(gateways[i % 2]!, PRICE_PAGE)));
    const serial = [];
    for (let i = 0; i < 20; i++) serial.push(await post(gateways[i % 2]!, PRICE_PAGE, i % 3 ? {} : bearer(READ_TOKEN)));
    expect([...burst, ...serial].map((a) => a.status)).toEqual(Array(40).fill(200));
    expect(upstreamCalls).toEqual(['GET /v2/catalog/gpus', 'GET /v2/catalog/gpus']);
    expect(warnings).toEqual([]);
  }, 30_000);

  it('friction 11: ten tabs on two gateways refreshing one dashboard at once cost one run (4 calls, not 40); within the TTL, again none', async () => {
    upstreamCalls.length = 0;
    const refresh = () => Promise.all(Array.from({ length: 10 }, (_, i) => post(gateways[i % 2]!, DASHBOARD, bearer(READ_TOKEN))));
    expect((await refresh()).map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(upstreamCalls).toHaveLength(4);
    await refresh();
    expect(upstreamCalls).toHaveLength(4);
    expect(warnings).toEqual([]);
  }, 30_000);

  it('a mutation through one gateway clears the account\'s cached reads on the other', async () => {
    const count = async (gateway: ListeningGateway) => (JSON.parse((await post(gateway, '{ myself { pods { id } } }', bearer(READ_TOKEN))).text).data.myself.pods as unknown[]).length;
    const before = await count(gateways[1]!);
    const deploy = await fetch(gateways[0]!.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(WRITE_TOKEN) },
      body: JSON.stringify({ query: 'mutation { podFindAndDeployOnDemand(input: { gpuCount: 1, gpuTypeId: "NVIDIA GeForce RTX 4090", imageName: "runpod/base:0.0.0", cloudType: SECURE, containerDiskInGb: 10 }) { id } }' }),
    });
    expect(deploy.status).toBe(200);
    await deploy.text();
    expect(await count(gateways[1]!)).toBe(before + 1);
  }, 30_000);

  it('with Redis gone, each gateway runs every read itself (said once), and answers as before', async () => {
    await redis.stop();
    upstreamCalls.length = 0;
    const answers = [await post(gateways[0]!, '{ dataCenters { id } }'), await post(gateways[1]!, '{ dataCenters { id } }')];
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(upstreamCalls).toHaveLength(2);
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.every((w) => /Redis response cache unavailable/.test(w))).toBe(true);
    await redis.restart();
  }, 30_000);
});

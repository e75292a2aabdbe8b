// Two gateway processes on one Redis, fed round-robin, against an emulator that answers 429 past
// RunPod's GraphQL rate: the shared pacing keeps the upstream under its limit (0 answers of 429),
// and each token's rate holds across both processes together.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { redisServerPath, startRedisServer, type RedisServer } from '../pacing/redis-server.js';
import { bearer, UPSTREAM_KEY } from './harness.js';
import { startGatewayProcess, type GatewayProcess } from './process.js';

const TOKEN_A = 'two-instances-token-A-0123456789';
const TOKEN_B = 'two-instances-token-B-0123456789';
const PER_TOKEN = 70;
const SENT_PER_TOKEN = 80;

describe.runIf(redisServerPath || process.env.CI)('two gateway processes on one Redis', () => {
  let redis: RedisServer;
  let emulator: ListeningEmulator;
  let upstream429 = 0;
  let upstreamCalls = 0;
  const arrivals: Array<[number, number]> = [];
  const gateways: GatewayProcess[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    // The clients pace GraphQL at RunPod's 100 requests per 10 s per key. The emulator refuses past
    // 100 per 8 s, counted from each window's first arrival: 2 s of room for arrival skew on a
    // loaded machine, while two processes pacing alone (200 per 10 s) would still meet 429s.
    const em = createEmulator({ apiKeys: [UPSTREAM_KEY, 'rpa_warm_up_key_0123456789'], graphqlRateLimit: { requests: 100, intervalMs: 8_000 } });
    const served = em.fetch.bind(em);
    em.fetch = async (request, env) => {
      const response = await served(request, env);
      if (new URL(request.url).pathname === '/graphql') {
        upstreamCalls++;
        arrivals.push([Date.now(), response.status]);
        if (response.status === 429) upstream429++;
      }
      return response;
    };
    emulator = await listen(em, { host: '127.0.0.1' });
    const o = emulator.clientOptions(UPSTREAM_KEY);
    const env = { RUNPOD_API_KEY: UPSTREAM_KEY, RUNPOD_GRAPHQL_URL: o.graphqlUrl!, RUNPOD_REST_URL: o.restUrl!, RUNPOD_GATEWAY_TOKENS: `read:${TOKEN_A},read:${TOKEN_B}` };
    const args = ['--port', '0', '--upstream', 'graphql', '--redis', redis.url, '--rate-per-minute', String(PER_TOKEN), '--max-in-flight', String(SENT_PER_TOKEN), '--no-cache'];
    gateways.push(await startGatewayProcess(args, env), await startGatewayProcess(args, env));
    // The emulator's first GraphQL answer builds its schema: warmed with another account, so the
    // arrival times it counts are not skewed by its own start-up (the pacer allows 2% for skew).
    await fetch(`${o.graphqlUrl}?api_key=rpa_warm_up_key_0123456789`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ gpuTypes { id } }' }) }).then((r) => r.text());
    upstreamCalls = 0;
  }, 60_000);

  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop();
    await emulator?.close();
    await redis?.stop();
  });

  it(`${2 * SENT_PER_TOKEN} requests round-robin: 0 upstream answers of 429, and ${PER_TOKEN} accepted per token across both`, async () => {
    const statuses: Record<string, number[]> = { [TOKEN_A]: [], [TOKEN_B]: [] };
    const sends: Array<Promise<void>> = [];
    for (let i = 0; i < 2 * SENT_PER_TOKEN; i++) {
      const token = i % 4 < 2 ? TOKEN_A : TOKEN_B;
      const gateway = gateways[i % 2]!;
      sends.push(
        fetch(gateway.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token) }, body: JSON.stringify({ query: '{ gpuTypes { id } }' }) }).then(async (r) => {
          await r.text();
          statuses[token]!.push(r.status);
        }),
      );
    }
    await Promise.all(sends);
    // Redis answered throughout (a store that turns local paces each process alone, and says so).
    expect(gateways.map((g) => g.stderr())).toEqual(['', '']);
    for (const token of [TOKEN_A, TOKEN_B]) {
      const list = statuses[token]!;
      expect(list.filter((s) => s === 200)).toHaveLength(PER_TOKEN);
      expect(list.filter((s) => s === 429)).toHaveLength(SENT_PER_TOKEN - PER_TOKEN);
    }
    // 140 accepted, over the upstream's 100 per 10 s: the two processes paced together.
    expect({ upstream429, upstreamCalls }).toEqual({ upstream429: 0, upstreamCalls: 2 * PER_TOKEN });
  }, 90_000);
});

// The Redis pacing store against a real `redis-server`, started here on 127.0.0.1 and stopped
// afterwards. Without `redis-server` on PATH these tests are reported as skipped.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { createRedisPacingStore } from '../../src/pacing/redis.js';
import { TEST_API_KEY } from '../helpers.js';
import { freePort, redisServerPath, startRedisServer, type RedisServer } from './redis-server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const child = fileURLToPath(new URL('./redis-child.ts', import.meta.url));

/** A serverless stand-in that records when each request arrived and how many were in flight. */
async function countingServer(holdMs: number) {
  const arrivals: number[] = [];
  const hanging: ServerResponse[] = [];
  let inFlight = 0;
  let peak = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    if (req.url?.includes('/hang')) {
      hanging.push(res);
      return;
    }
    arrivals.push(performance.now());
    peak = Math.max(peak, ++inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'job-1', status: 'IN_QUEUE' }));
    }, holdMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  return {
    url,
    arrivals,
    hanging,
    peak: () => peak,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The most of `times` within any `windowMs`. */
function mostIn(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

function runChild(input: Record<string, unknown>) {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, JSON.stringify(input)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const result = new Promise<{ done: number; failed: number; firstFailure?: string; sentAt: number[] }>((resolve, reject) =>
    proc.once('exit', (code, signal) => {
      const line = stdout.trim().split('\n').pop();
      if (code === 0 && line) resolve(JSON.parse(line) as { done: number; failed: number; sentAt: number[] });
      else reject(new Error(`child exited with ${code ?? signal}: ${stderr.slice(0, 500)}`));
    }),
  );
  return { proc, result, stderr: () => stderr };
}

const waitFor = async (check: () => boolean, ms: number) => {
  const until = performance.now() + ms;
  while (!check()) {
    if (performance.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe.skipIf(!redisServerPath)('Redis pacing store (redis-server on 127.0.0.1)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('several processes share one bucket and never exceed it together', async () => {
    const server = await countingServer(100);
    try {
      const rateLimits = { 'serverless:*:status': { requests: 6, intervalMs: 2000, concurrency: 3 } };
      const children = Array.from({ length: 3 }, () =>
        runChild({ serverlessUrl: server.url, redisUrl: redis.url, apiKey: TEST_API_KEY, calls: 8, leaseMs: 5000, rateLimits, jobId: 'job-1' }),
      );
      const results = await Promise.all(children.map((c) => c.result));
      expect(results.map((r) => r.done)).toEqual([8, 8, 8]);
      expect(server.arrivals).toHaveLength(24);
      // Alone, each process would send 6 at once and 3 at a time: together 18 and 9.
      expect(server.peak()).toBeLessThanOrEqual(3);
      // Counted when each process handed the request to fetch. Turns are granted on Redis's clock;
      // a loaded machine delays some processes' sends after their turn (by over 100 ms at a load
      // of 20 on 2 cores), so the window checked here is 400 ms short of the bucket's 2 s (alone,
      // they would send 18 in it).
      const sent = results.flatMap((r) => r.sentAt);
      expect(sent).toHaveLength(24);
      expect(mostIn(sent, 1600)).toBeLessThanOrEqual(6);
      // And the bucket did hold them back: 24 sends at 6 per 2 s take 6 s at least.
      expect(Math.max(...sent) - Math.min(...sent)).toBeGreaterThanOrEqual(5800);
      // No Redis warning: they paced through Redis all along.
      expect(children.map((c) => c.stderr())).toEqual(['', '', '']);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a process that dies holding slots releases them after their lease', async () => {
    const server = await countingServer(10);
    const leaseMs = 1500;
    const rateLimits = { 'serverless:*:status': { concurrency: 2 } };
    const store = createRedisPacingStore({ redis: redis.url, leaseMs });
    try {
      const holder = runChild({ serverlessUrl: server.url, redisUrl: redis.url, apiKey: TEST_API_KEY, calls: 2, leaseMs, rateLimits, jobId: 'hang' });
      holder.result.catch(() => undefined);
      await waitFor(() => server.hanging.length === 2, 15_000);
      holder.proc.kill('SIGKILL');
      const killedAt = performance.now();
      const rp = createRunpodClient({ apiKey: TEST_API_KEY, serverlessUrl: server.url, rateLimits, pacingStore: store });
      await rp.endpoint('ep-1').status('job-1');
      const waited = performance.now() - killedAt;
      // Held until the dead process's lease ran out (it renews a third of the way in), not for ever.
      expect(waited).toBeGreaterThanOrEqual(leaseMs / 3);
      expect(waited).toBeLessThan(leaseMs + 2000);
      expect(store.mode).toBe('redis');
    } finally {
      await store.close();
      await server.close();
    }
  }, 30_000);

  it('Redis restarted mid-run: no call lost, no hang, one warning, and back on Redis afterwards', async () => {
    const server = await countingServer(5);
    const warnings: string[] = [];
    const store = createRedisPacingStore({ redis: redis.url, commandTimeoutMs: 300, retryMs: 200, onWarning: (m) => warnings.push(m) });
    try {
      const rp = createRunpodClient({ apiKey: TEST_API_KEY, serverlessUrl: server.url, rateLimits: { 'serverless:*:status': { requests: 40, intervalMs: 1000, concurrency: 5 } }, pacingStore: store });
      const ep = rp.endpoint('ep-1');
      const all = Promise.allSettled(Array.from({ length: 160 }, () => ep.status('job-1')));
      await new Promise((r) => setTimeout(r, 600));
      await redis.stop();
      await new Promise((r) => setTimeout(r, 1000));
      await redis.restart();
      const settled = await all;
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(160);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/pacing each process on its own/);
      await waitFor(() => store.mode === 'redis', 5000);
      // Paced through Redis again: a call goes through and the bucket is back in Redis.
      await ep.status('job-1');
      expect(server.arrivals).toHaveLength(161);
    } finally {
      await store.close();
      await server.close();
    }
  }, 30_000);

  it('without Redis at all, calls go through, paced locally, after one warning', async () => {
    const server = await countingServer(5);
    const warnings: string[] = [];
    const store = createRedisPacingStore({ redis: `redis://127.0.0.1:${await freePort()}`, commandTimeoutMs: 200, onWarning: (m) => warnings.push(m) });
    try {
      const rp = createRunpodClient({ apiKey: TEST_API_KEY, serverlessUrl: server.url, rateLimits: { 'serverless:*:status': { requests: 5, intervalMs: 500, concurrency: 2 } }, pacingStore: store });
      const started = performance.now();
      const results = await Promise.all(Array.from({ length: 12 }, () => rp.endpoint('ep-1').status('job-1')));
      expect(results).toHaveLength(12);
      expect(warnings).toHaveLength(1);
      expect(store.mode).toBe('local');
      // Still paced (locally): 12 calls at 5 per 510 ms need at least two more windows.
      expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
      expect(server.peak()).toBeLessThanOrEqual(2);
    } finally {
      await store.close();
      await server.close();
    }
  }, 30_000);

  it('the API key never appears in Redis, in keys or values, in any common encoding', async () => {
    const server = await countingServer(1);
    const store = createRedisPacingStore({ redis: redis.url });
    const reader = new Redis(redis.url);
    try {
      const rp = createRunpodClient({ apiKey: TEST_API_KEY, serverlessUrl: server.url, rateLimits: { 'serverless:*:status': { requests: 100, intervalMs: 10_000, concurrency: 2 } }, pacingStore: store });
      await Promise.all(Array.from({ length: 5 }, () => rp.endpoint('ep-1').status('job-1')));
      rp.endpoint('ep-1');
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await reader.scan(cursor, 'COUNT', 1000);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== '0');
      expect(keys.some((k) => k.includes('serverless:ep-1:status'))).toBe(true);
      const dump: string[] = [...keys];
      for (const key of keys) {
        const type = await reader.type(key);
        if (type === 'string') dump.push(String(await reader.get(key)));
        else if (type === 'list') dump.push(...(await reader.lrange(key, 0, -1)));
        else if (type === 'hash') dump.push(...Object.entries(await reader.hgetall(key)).flat());
        else if (type === 'zset') dump.push(...(await reader.zrange(key, '0', '-1', 'WITHSCORES')));
        else dump.push(`unexpected ${type}`);
      }
      const text = dump.join('\n');
      const secret = TEST_API_KEY;
      for (const spelling of [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('hex'), secret.slice(4, 20)]) {
        expect(text).not.toContain(spelling);
      }
      expect(text).not.toContain('unexpected');
      // Named by a digest of the key: 32 hex digits, as a hash tag.
      expect(keys.every((k) => /^runpod-gql:pacing:\{[0-9a-f]{32}\}:/.test(k))).toBe(true);
    } finally {
      reader.disconnect();
      await store.close();
      await server.close();
    }
  });
});

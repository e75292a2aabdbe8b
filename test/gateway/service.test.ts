// Issue 44, items 1–3 and frictions 1–7: the gateway run as a service. A real `runpod-gql gateway`
// process, real signals, a document in flight, a config file, the access log, /metrics, /readyz.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisServerPath } from '../pacing/redis-server.js';
import { bearer, READ_TOKEN, UPSTREAM_KEY, WRITE_TOKEN } from './harness.js';
import { refusedGateway, startGatewayProcess } from './process.js';

/** A RunPod GraphQL on loopback whose answers wait until `release()`; `status` says what it answers. */
function heldGraphql() {
  const waiting: Array<() => void> = [];
  let status = 200;
  let arrived = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived++;
      const answer = () => {
        if (status === 401) {
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'unauthorized' }] }));
        } else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { myself: { id: 'u1', pods: [] } } }));
      };
      if (hold) waiting.push(answer);
      else answer();
    });
  });
  let hold = true;
  return {
    server,
    waiting,
    get arrived() {
      return arrived;
    },
    set hold(value: boolean) {
      hold = value;
    },
    set status(value: number) {
      status = value;
    },
    release: () => waiting.splice(0).forEach((go) => go()),
    async start(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const until = async (check: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

const ask = (url: string, token: string, query = '{ myself { id } }', headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token), ...headers }, body: JSON.stringify({ query }) });

describe('the gateway as a service (a real process)', () => {
  const upstream = heldGraphql();
  let env: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'gwops-'));
  beforeAll(async () => {
    const graphqlUrl = await upstream.start();
    env = { RUNPOD_API_KEY: UPSTREAM_KEY, RUNPOD_GRAPHQL_URL: graphqlUrl, RUNPOD_REST_URL: 'http://127.0.0.1:9/v2', RUNPOD_GATEWAY_TOKENS: `read:${READ_TOKEN}` };
  });
  afterAll(() => upstream.stop());

  it('friction 1: SIGTERM turns /readyz 503 at once, the document in flight is answered, then exit 0', async () => {
    upstream.hold = true;
    const gw = await startGatewayProcess(['--port', '0', '--upstream', 'graphql', '--drain-ms', '10000'], env);
    const base = gw.graphqlUrl.replace('/graphql', '');
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const before = upstream.arrived;
    const inFlight = ask(gw.graphqlUrl, READ_TOKEN);
    await until(() => upstream.arrived > before);
    gw.child.kill('SIGTERM');
    await until(() => gw.stderr().includes('draining'));
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toBe('draining');
    upstream.release();
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ data: { myself: { id: 'u1' } } });
    expect(await gw.exited()).toBe(0);
    expect(gw.stderr()).toContain('every document in flight was answered');
  });

  it('friction 1: past --drain-ms the document is cut, and the process still exits 0', async () => {
    upstream.hold = true;
    const gw = await startGatewayProcess(['--port', '0', '--upstream', 'graphql', '--drain-ms', '300'], env);
    const before = upstream.arrived;
    const inFlight = ask(gw.graphqlUrl, READ_TOKEN).then((r) => r.status, () => 'cut');
    await until(() => upstream.arrived > before);
    gw.child.kill('SIGTERM');
    expect(await gw.exited()).toBe(0);
    expect(await inFlight).toBe('cut');
    expect(gw.stderr()).toContain('1 requests were cut');
    upstream.release();
  });

  it('friction 2 and item 3: SIGHUP re-reads the config file: a new token works, the old one is gone, the document in flight is answered; a wrong file keeps the old settings and says why', async () => {
    upstream.hold = false;
    const config = join(dir, 'gateway.toml');
    const first = 'ci-token-first-0123456789abcdef';
    const second = 'ci-token-second-0123456789abcdef';
    writeFileSync(config, `upstream = "graphql"\nport = 0\n[[token]]\nscope = "write"\nname = "ci"\ntoken = "${first}"\nmax-in-flight = 8\n`);
    const gw = await startGatewayProcess(['--config', config], { ...env, RUNPOD_GATEWAY_TOKENS: '' });
    try {
      expect((await ask(gw.graphqlUrl, first)).status).toBe(200);
      upstream.hold = true;
      const before = upstream.arrived;
      // Another document than the first (which the response cache now holds for this caller), so it goes upstream.
      const inFlight = ask(gw.graphqlUrl, first, 'query InFlight { myself { id } }');
      await until(() => upstream.arrived > before);
      writeFileSync(config, `upstream = "graphql"\nport = 0\n[[token]]\nscope = "write"\nname = "ci"\ntoken = "${second}"\n`);
      gw.child.kill('SIGHUP');
      await until(() => gw.stderr().includes('reloaded'));
      upstream.release();
      expect((await inFlight).status).toBe(200);
      upstream.hold = false;
      expect((await ask(gw.graphqlUrl, second)).status).toBe(200);
      expect((await ask(gw.graphqlUrl, first)).status).toBe(401);
      // A wrong reload: one token under two scopes. Refused, naming both tables; the old settings stay.
      writeFileSync(config, `upstream = "graphql"\n[[token]]\nscope = "read"\ntoken = "${first}"\n[[token]]\nscope = "write"\ntoken = "${first}"\n`);
      gw.child.kill('SIGHUP');
      await until(() => gw.stderr().includes('reload refused'));
      expect(gw.stderr()).toMatch(/reload refused, the previous settings stay: .*\[\[token\]\] 2.*\[\[token\]\] 1/);
      expect(gw.stderr()).not.toContain(first);
      expect((await ask(gw.graphqlUrl, second)).status).toBe(200);
      expect(gw.child.exitCode).toBeNull();
    } finally {
      expect(await gw.stop()).toBe(0);
    }
  });

  it('frictions 3 and 4: one JSON access line per request (request id from X-Request-Id when trusted, the scope, never the token) and Prometheus /metrics', async () => {
    upstream.hold = false;
    const gw = await startGatewayProcess(['--port', '0', '--upstream', 'graphql', '--trust-request-id'], env);
    try {
      const answered = await ask(gw.graphqlUrl, READ_TOKEN, 'query Board { myself { id } }', { 'x-request-id': 'proxy-req-42' });
      expect(answered.headers.get('x-request-id')).toBe('proxy-req-42');
      expect((await ask(gw.graphqlUrl, 'not-a-known-token-0123456789')).status).toBe(401);
      const lines = await new Promise<string[]>((resolve) => {
        const check = () => {
          const got = gw.stdout().split('\n').slice(1).filter((l) => l.startsWith('{'));
          if (got.length >= 2) resolve(got);
          else setTimeout(check, 10);
        };
        check();
      });
      const record = JSON.parse(lines[0]!);
      expect(record).toMatchObject({ requestId: 'proxy-req-42', operation: 'Board', scope: 'read', caller: 'read', status: 200, upstreamCalls: 1, cache: 'miss' });
      expect(typeof record.durationMs).toBe('number');
      expect(JSON.parse(lines[1]!)).toMatchObject({ status: 401, scope: null });
      expect(gw.stdout()).not.toContain(READ_TOKEN);
      expect(gw.stdout()).not.toContain('not-a-known-token');
      const metrics = await (await fetch(gw.graphqlUrl.replace('/graphql', '/metrics'))).text();
      expect(metrics).toMatch(/runpod_gql_gateway_requests_total\{status="200",operation="Board"\} 1/);
      expect(metrics).toMatch(/runpod_gql_gateway_upstream_calls_total\{status="200"\} 1/);
      expect(metrics).toContain('runpod_gql_gateway_request_duration_seconds_bucket');
      expect(metrics).toContain('runpod_gql_gateway_documents_in_flight 0');
      expect(metrics).toContain('runpod_gql_gateway_cache_total{result="hit"} 0');
      expect(metrics).toContain('runpod_gql_gateway_cache_total{result="miss"} 1');
      expect(metrics).toContain('runpod_gql_gateway_condition{condition="upstream_key_accepted"} 1');
      expect(metrics).not.toContain(READ_TOKEN);
    } finally {
      await gw.stop();
    }
  });

  it('friction 6: an upstream key RunPod refuses turns /readyz 503, with one log line when it starts and one when it ends', async () => {
    upstream.hold = false;
    upstream.status = 401;
    const gw = await startGatewayProcess(['--port', '0', '--upstream', 'graphql'], env);
    const base = gw.graphqlUrl.replace('/graphql', '');
    try {
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      expect((await ask(gw.graphqlUrl, READ_TOKEN)).status).toBe(502);
      expect((await ask(gw.graphqlUrl, READ_TOKEN)).status).toBe(502);
      const refused = await fetch(`${base}/readyz`);
      expect(refused.status).toBe(503);
      expect(await refused.text()).toBe('upstream key refused');
      await until(() => gw.stderr().includes('refused'));
      expect(gw.stderr().match(/refused the gateway's upstream key/g)).toHaveLength(1);
      expect(gw.stderr()).toContain('RUNPOD_API_KEY');
      expect(gw.stderr()).not.toContain(UPSTREAM_KEY);
      upstream.status = 200;
      expect((await ask(gw.graphqlUrl, READ_TOKEN)).status).toBe(200);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      await until(() => gw.stderr().includes('accepts the gateway'));
    } finally {
      upstream.status = 200;
      await gw.stop();
    }
  });

  it.runIf(redisServerPath || process.env.CI)('friction 7: --redis pointing at nothing is said at start, and /readyz names it (200, degraded: the gateway still serves)', async () => {
    upstream.hold = false;
    const gw = await startGatewayProcess(['--port', '0', '--upstream', 'graphql', '--redis', 'redis://127.0.0.1:9'], env);
    try {
      expect(gw.stderr()).toMatch(/Redis pacing store unavailable/);
      const ready = await fetch(gw.graphqlUrl.replace('/graphql', '/readyz'));
      expect(ready.status).toBe(200);
      expect(await ready.text()).toMatch(/degraded: Redis unreachable/);
      expect((await ask(gw.graphqlUrl, READ_TOKEN)).status).toBe(200);
    } finally {
      await gw.stop();
    }
  });

  it('item 3: a config file key is overridden by its flag, and a wrong key is named as the file wrote it', async () => {
    const config = join(dir, 'wrong.toml');
    writeFileSync(config, 'max-in-flight = 0\n');
    const wrong = await refusedGateway(['--config', config], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`${config}: max-in-flight`);
    // The flag overrides the file's key: the same file with --max-in-flight 2 starts.
    const gw = await startGatewayProcess(['--config', config, '--max-in-flight', '2', '--port', '0', '--upstream', 'graphql'], env);
    await gw.stop();
    writeFileSync(config, 'max-inflight = 3\n');
    const unknown = await refusedGateway(['--config', config], env);
    expect(unknown.stderr).toMatch(/max-inflight.*is not a setting of the gateway/);
  });

  it('friction 13: --persisted is repeatable and merges files; one id with two texts is refused at start, naming both files', async () => {
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    const c = join(dir, 'c.json');
    writeFileSync(a, JSON.stringify({ One: '{ myself { id } }' }));
    writeFileSync(b, JSON.stringify({ Two: 'query Two { myself { id } }', One: '{ myself { id } }' }));
    writeFileSync(c, JSON.stringify({ One: 'query Other { myself { id } }' }));
    upstream.hold = false;
    const gw = await startGatewayProcess(['--port', '0', '--upstream', 'graphql', '--persisted', a, '--persisted', b], env);
    try {
      for (const documentId of ['One', 'Two']) {
        const r = await fetch(gw.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(READ_TOKEN) }, body: JSON.stringify({ documentId }) });
        expect(r.status).toBe(200);
      }
    } finally {
      await gw.stop();
    }
    const clash = await refusedGateway(['--port', '0', '--persisted', a, '--persisted', c], env);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('--persisted');
    expect(clash.stderr).toContain(`${a} and ${c} both hold document "One"`);
  });

  it('friction 14: one token under two scopes is refused at start, naming both entries', async () => {
    const refused = await refusedGateway(['--port', '0'], { ...env, RUNPOD_GATEWAY_TOKENS: `read:${WRITE_TOKEN},write:${WRITE_TOKEN}` });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('RUNPOD_GATEWAY_TOKENS entry 2');
    expect(refused.stderr).toContain('RUNPOD_GATEWAY_TOKENS entry 1');
    expect(refused.stderr).not.toContain(WRITE_TOKEN);
  });
});

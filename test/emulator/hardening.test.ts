import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClock } from '../../src/emulator/clock.js';
import { createEmulator, EMULATOR_API_KEY, IN_PROCESS_BASE, type Emulator } from '../../src/emulator/create-emulator.js';
import { DocumentCache, MAX_CACHED_QUERIES, MAX_CACHED_QUERIES_CHARS, MAX_CACHED_QUERY_CHARS } from '../../src/emulator/graphql-handler.js';
import { listen } from '../../src/emulator/node.js';

const auth = { authorization: `Bearer ${EMULATOR_API_KEY}` };

/** A raw HTTP/1.1 GET with the Host header as given (fetch would set its own). */
function rawGet(port: number, path: string, host: string | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...auth };
    if (host !== undefined) headers.host = host;
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers, setHost: host === undefined ? false : undefined }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const disposers: Array<() => unknown> = [];
afterEach(async () => {
  for (const dispose of disposers.splice(0)) await dispose();
  vi.restoreAllMocks();
});

function emulator(options: Parameters<typeof createEmulator>[0] = {}): Emulator {
  const created = createEmulator(options);
  disposers.push(() => created.dispose());
  return created;
}

describe('emulator Host check (DNS rebinding)', () => {
  it('in-process: loopback names and emulator.invalid are answered, other names get 403', async () => {
    const e = emulator();
    for (const host of ['emulator.invalid', 'localhost', 'LOCALHOST:8787', '127.0.0.1', '127.3.2.1:9', '[::1]:8787']) {
      const res = await e.fetch(new Request(`http://${host}/v2/pods`, { headers: auth }));
      expect(res.status, host).toBe(200);
    }
    for (const host of ['evil.example', 'localhost.evil.example', '127.0.0.1.nip.io', 'emulator.invalid.evil.example', '10.0.0.5:8787', 'localhost.']) {
      const res = await e.fetch(new Request(`http://${host}/v2/pods`, { headers: auth }));
      expect(res.status, host).toBe(403);
      expect(await res.text()).toMatch(/is not allowed: the emulator answers loopback names only \(add it to the allowedHosts option\)/);
    }
    // A Host header that disagrees with an allowed URL is refused too, and so is a preflight.
    expect((await e.fetch(new Request(`${IN_PROCESS_BASE}/v2/pods`, { headers: { ...auth, host: 'evil.example' } }))).status).toBe(403);
    const preflight = await e.fetch(new Request('http://evil.example:8787/graphql', { method: 'OPTIONS', headers: { origin: 'http://evil.example:8787', 'access-control-request-method': 'POST' } }));
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('over the Node listener: the Host header decides; allowedHosts adds names, or "*" lets any through', async () => {
    const served = await listen(createEmulator(), { port: 0 });
    disposers.push(() => served.close());
    const port = Number(new URL(served.url).port);
    expect((await rawGet(port, '/v2/pods', `127.0.0.1:${port}`)).status).toBe(200);
    expect((await rawGet(port, '/v2/pods', `localhost:${port}`)).status).toBe(200);
    const rebound = await rawGet(port, '/v2/pods', `attacker.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain('"Host \\"attacker.example\\" is not allowed');
    expect((await rawGet(port, '/graphql', `attacker.example:${port}`)).status).toBe(403);

    const named = await listen(createEmulator({ allowedHosts: ['Emulator'] }), { port: 0 });
    disposers.push(() => named.close());
    const namedPort = Number(new URL(named.url).port);
    expect((await rawGet(namedPort, '/v2/pods', `emulator:${namedPort}`)).status).toBe(200);
    expect((await rawGet(namedPort, '/v2/pods', `127.0.0.1:${namedPort}`)).status).toBe(200);
    expect((await rawGet(namedPort, '/v2/pods', `other:${namedPort}`)).status).toBe(403);

    const open = emulator({ allowedHosts: '*' });
    expect((await open.fetch(new Request('https://my-worker.example.workers.dev/v2/pods', { headers: auth }))).status).toBe(200);
  });
});

describe('emulator paths that do not decode', () => {
  it('answers 400 (a problem on /v2), where it answered 500', async () => {
    const e = emulator();
    e.loadBalanced.define({ id: 'lb1', coldStartMs: 0, routes: { 'GET /items/:id': (_req, ctx) => ({ id: ctx.params.id }) } });
    for (const path of ['/lb/lb1/items/%FF', '/lb/%FF', '/v2/pods/%FF', '/v2/pods/%E0%A4%A', '/queue/v2/%C0%AF/run', '/graphql%ff', '/%']) {
      const res = await e.fetch(new Request(`${IN_PROCESS_BASE}${path}`, { headers: auth }));
      expect(res.status, path).toBe(400);
      const body = (await res.json()) as { detail?: string; error?: string };
      expect(body.detail ?? body.error).toMatch(/is not valid percent-encoded UTF-8/);
      if (path.startsWith('/v2/')) expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
    const fine = await e.fetch(new Request(`${IN_PROCESS_BASE}/lb/lb1/items/caf%C3%A9`, { headers: auth }));
    expect(await fine.json()).toEqual({ id: 'café' });
  });
});

describe('emulator timers stay bounded', () => {
  it('a real-clock sleep of 2^31 ms or more waits in long steps, not a 1 ms spin', async () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const clock = createClock('real');
    const stop = new AbortController();
    for (const ms of [2 ** 31, 2 ** 40, Infinity]) clock.sleep(ms, stop.signal).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 60));
    const delays = spy.mock.calls.map((call) => call[1] as number);
    stop.abort();
    // Three sleeps plus this test's own wait: a spin would have made dozens of 1 ms timers.
    expect(delays.filter((d) => d === 2_147_483_647)).toHaveLength(3);
    expect(delays.length).toBeLessThanOrEqual(6);
  });

  it('a sleep job of 2^33 ms leaves the served emulator idle', async () => {
    const e = emulator({ serverlessLimits: false });
    const queued = await e.fetch(new Request(`${IN_PROCESS_BASE}/queue/v2/sleep/run`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ input: { ms: 2 ** 33 } }) }));
    expect(queued.status).toBe(200);
    const spy = vi.spyOn(globalThis, 'setTimeout');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Node runs a delay of 2^31 ms or more after 1 ms: a spin would show as a timer per millisecond.
    expect(spy.mock.calls.length).toBeLessThanOrEqual(5);
  });
});

describe('emulator GraphQL document cache', () => {
  it('is bounded by entry size, total size and count, least recently used out first', () => {
    const cache = new DocumentCache();
    const doc = { kind: 'Document', definitions: [] } as never;
    cache.set(`query Big { ${'x '.repeat(MAX_CACHED_QUERY_CHARS)} }`, doc);
    expect(cache.size).toBe(0);
    const queries = Array.from({ length: 200 }, (_, i) => `query Q${i} { ${'f '.repeat(4_000)} }`);
    for (const q of queries) cache.set(q, doc);
    expect(cache.totalChars).toBeLessThanOrEqual(MAX_CACHED_QUERIES_CHARS);
    expect(cache.get(queries[199]!)).toBe(doc);
    expect(cache.get(queries[0]!)).toBeUndefined();
    // A hit is kept over older entries.
    const keep = queries[199]!;
    for (let i = 0; i < 100; i++) cache.set(`query R${i} { ${'g '.repeat(4_000)} }`, doc);
    expect(cache.get(keep)).toBeUndefined(); // 100 × 8 KB pushed it out eventually…
    const small = new DocumentCache();
    for (let i = 0; i < MAX_CACHED_QUERIES + 100; i++) small.set(`{ a${i} }`, doc);
    expect(small.size).toBe(MAX_CACHED_QUERIES);
    expect(small.get('{ a0 }')).toBeUndefined();
    small.get('{ a100 }');
    small.set('{ new }', doc);
    expect(small.get('{ a100 }')).toBe(doc); // …but a recent hit survives the next eviction.
    expect(small.get('{ a101 }')).toBeUndefined();
  });

  it('large queries still run, each parsed anew', async () => {
    const e = emulator();
    const query = `query Me { myself { id ${' '.repeat(MAX_CACHED_QUERY_CHARS)} } }`;
    for (let i = 0; i < 3; i++) {
      const res = await e.fetch(new Request(`${IN_PROCESS_BASE}/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query: `${query}${' '.repeat(i)}` }) }));
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { myself: { id: string } } }).data.myself.id).toEqual(expect.any(String));
    }
  });
});

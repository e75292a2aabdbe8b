// Issue 37, cause 2: DNS rebinding. A page whose name is re-pointed at 127.0.0.1 sends its own name
// in Host and Origin; the gateway answers loopback names and its listen host only (plus
// --allowed-host), never takes "same origin" from the request, and refuses absolute-form targets
// naming another host, as the emulator does.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/index.js';
import { parseGatewayArgs } from '../../src/gateway/node.js';
import { bearer, startRig, UPSTREAM_KEY, type GatewayRig } from './harness.js';

/** One raw HTTP/1.1 request, so Host and the request target are exactly what a rebinding page (or a proxy) sends. */
function raw(url: string, options: { path: string; host: string; origin?: string; method?: string; body?: string }): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        hostname,
        port,
        method: options.method ?? 'POST',
        path: options.path,
        setHost: false,
        headers: { host: options.host, 'content-type': 'application/json', ...(options.origin ? { origin: options.origin } : {}) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(options.body ?? JSON.stringify({ query: '{ myself { pods { id env } } }' }));
  });
}

describe('an anonymous loopback gateway against DNS rebinding', () => {
  let rig: GatewayRig;
  let port: string;
  beforeAll(async () => {
    rig = await startRig({ tokens: undefined, allowAnonymous: true });
    port = new URL(rig.gateway.url).port;
  });
  afterAll(() => rig?.close());

  it("refuses a page's own name in Host (403, nothing sent upstream), and answers loopback names", async () => {
    const before = rig.upstreamCalls.length;
    const rebound = await raw(rig.gateway.url, { path: '/graphql', host: `evil.example:${port}`, origin: `http://evil.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).errors[0].extensions.code).toBe('HOST_NOT_ALLOWED');
    expect(rig.upstreamCalls.length).toBe(before);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) expect((await raw(rig.gateway.url, { path: '/graphql', host })).status).toBe(200);
  });

  it('refuses an absolute-form target that names another host, whatever Host says', async () => {
    const before = rig.upstreamCalls.length;
    const absolute = await raw(rig.gateway.url, { path: `http://evil.example:${port}/graphql`, host: `127.0.0.1:${port}` });
    expect(absolute.status).toBe(403);
    expect(rig.upstreamCalls.length).toBe(before);
    expect((await raw(rig.gateway.url, { path: `http://127.0.0.1:${port}/graphql`, host: `127.0.0.1:${port}` })).status).toBe(200);
  });

  it('takes "same origin" from the address it listens on, never from the request', async () => {
    const own = await raw(rig.gateway.url, { path: '/graphql', host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` });
    expect(own.status).toBe(200);
    expect(own.headers['access-control-allow-origin']).toBe(`http://localhost:${port}`);
    // A page on another port of this machine is another origin.
    const otherPort = await raw(rig.gateway.url, { path: '/graphql', host: `127.0.0.1:${port}`, origin: 'http://127.0.0.1:1' });
    expect(otherPort.status).toBe(403);
  });

  it('answers /healthz and /readyz whatever the Host (probes name the pod by its address)', async () => {
    expect((await raw(rig.gateway.url, { path: '/healthz', host: 'evil.example', method: 'GET', body: '' })).status).toBe(200);
  });
});

describe('a gateway served by a fetch runtime (no listener)', () => {
  const gateway = createGateway({ tokens: undefined, allowAnonymous: true, client: { apiKey: UPSTREAM_KEY, restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql', fetch: () => Promise.reject(new Error('nothing may be sent')) } });
  const post = (url: string, origin?: string) =>
    gateway.fetch(new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) }, body: '{"query":"{ myself { id } }"}' }));

  it('refuses a URL whose host is not loopback, even when Origin matches it (the old same-origin rule)', async () => {
    const response = await post('http://evil.example/graphql', 'http://evil.example');
    expect(response.status).toBe(403);
    expect(((await response.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('HOST_NOT_ALLOWED');
  });

  it('serves the names in allowedHosts (a proxy), without taking their pages as its own', async () => {
    const named = createGateway({ tokens: 'read:named-gateway-token-0123456789', allowedHosts: ['gw.example.com'], client: { apiKey: UPSTREAM_KEY, restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql', fetch: () => Promise.reject(new Error('unreachable')) } });
    const ask = (origin?: string) =>
      named.fetch(new Request('https://gw.example.com/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...bearer('named-gateway-token-0123456789'), ...(origin ? { origin } : {}) }, body: '{"query":"{ nope }"}' }));
    expect((await ask()).status).toBe(400); // served: an invalid document is 400, not a Host refusal (403)
    expect((await ask('https://gw.example.com')).status).toBe(403);
    expect(() => createGateway({ allowedHosts: ['https://gw.example.com'], tokens: 'read:named-gateway-token-0123456789', client: { apiKey: UPSTREAM_KEY } })).toThrow(ValidationError);
    expect(() => createGateway({ allowedHosts: ['gw.example.com:443'], tokens: 'read:named-gateway-token-0123456789', client: { apiKey: UPSTREAM_KEY } })).toThrow(/allowedHosts/);
  });

  it('--allowed-host is repeatable', () => {
    expect(parseGatewayArgs(['--allowed-host', 'a.example', '--allowed-host', 'b.example']).allowedHosts).toEqual(['a.example', 'b.example']);
    expect(parseGatewayArgs([]).allowedHosts).toEqual([]);
  });
});

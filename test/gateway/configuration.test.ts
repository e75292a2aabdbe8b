// Issue 44, item 6 and frictions 12, 14, 15: configuration that cannot fail quietly. A page behind
// the operator's proxy is same-origin; refusals name the flag or variable the operator set.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/index.js';
import { GATEWAY_USAGE, main, parseGatewayArgs, startGateway } from '../../src/gateway/node.js';
import { bearer, READ_TOKEN, startRig, UPSTREAM_KEY, type GatewayRig } from './harness.js';

/** One raw request with the Host and Origin a browser sends through a proxy that keeps Host (nginx, vite preview). */
function throughProxy(url: string, host: string, origin: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname, port, method: 'POST', path: '/graphql', setHost: false, headers: { host, origin, 'content-type': 'application/json', ...bearer(READ_TOKEN) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ query: '{ gpuTypes { id } }' }));
  });
}

describe('friction 12: a page behind the operator\'s proxy is same-origin', () => {
  let rig: GatewayRig;
  let http: GatewayRig;
  beforeAll(async () => {
    rig = await startRig({ allowedHosts: ['gw.example.com'] });
    http = await startRig({ allowedHosts: ['gw.example.com'], publicScheme: 'http' });
  });
  afterAll(async () => {
    await rig?.close();
    await http?.close();
  });

  it('a page on https://NAME (an --allowed-host name) calling NAME/graphql through the proxy is served, with its CORS header', async () => {
    const page = await throughProxy(rig.gateway.url, 'gw.example.com', 'https://gw.example.com');
    expect(page.status).toBe(200);
    expect(page.headers['access-control-allow-origin']).toBe('https://gw.example.com');
    // The scheme is the operator's, never the request's: an http page on that name is another origin.
    expect((await throughProxy(rig.gateway.url, 'gw.example.com', 'http://gw.example.com')).status).toBe(403);
    // With --public-scheme http, the http page is the one.
    expect((await throughProxy(http.gateway.url, 'gw.example.com', 'http://gw.example.com')).status).toBe(200);
    // Another page on the web is still refused.
    expect((await throughProxy(rig.gateway.url, 'gw.example.com', 'https://evil.example')).status).toBe(403);
  });

  it("behind vite preview's proxy (Host localhost:4173, the page's own origin) the page is served; another local port is not", async () => {
    expect((await throughProxy(rig.gateway.url, 'localhost:4173', 'http://localhost:4173')).status).toBe(200);
    expect((await throughProxy(rig.gateway.url, 'localhost:4173', 'http://localhost:3000')).status).toBe(403);
  });
});

describe('friction 14: one token under two scopes is refused, naming both entries', () => {
  it('in RUNPOD_GATEWAY_TOKENS and in a token list', () => {
    const token = 'two-scopes-token-0123456789abc';
    expect(() => createGateway({ tokens: `read:${token},write:${token}`, client: { apiKey: UPSTREAM_KEY } })).toThrow(/RUNPOD_GATEWAY_TOKENS entry 2: holds the same token as RUNPOD_GATEWAY_TOKENS entry 1 \(read and write\)/);
    expect(() => createGateway({ tokens: [{ scope: 'catalog', token }, { scope: 'write', token }], client: { apiKey: UPSTREAM_KEY } })).toThrow(/tokens\[1\].*tokens\[0\]/);
    try {
      createGateway({ tokens: `read:${token},write:${token}`, client: { apiKey: UPSTREAM_KEY } });
    } catch (err) {
      expect(String((err as Error).message)).not.toContain(token);
    }
  });
});

describe('friction 15: refusals an operator can act on', () => {
  it('--allowed-host http://name says what to write instead, in flag terms', async () => {
    const env = { RUNPOD_API_KEY: UPSTREAM_KEY, RUNPOD_GATEWAY_TOKENS: `read:${READ_TOKEN}` };
    await expect(startGateway(parseGatewayArgs(['--port', '0', '--allowed-host', 'http://gw.example.com']), env)).rejects.toThrow('--allowed-host: takes a host name, not a URL: write gw.example.com, and declare the scheme pages use with --public-scheme http');
    await expect(startGateway(parseGatewayArgs(['--port', '0', '--allowed-host', 'https://gw.example.com']), env)).rejects.toThrow(/--allowed-host: takes a host name, not a URL: write gw\.example\.com \(pages on it are https by default\)/);
  });

  it('--help lists every scope', async () => {
    for (const scope of ['catalog', 'read', 'write']) expect(GATEWAY_USAGE).toMatch(new RegExp(`\\b${scope} \\(`));
    const printed: string[] = [];
    const log = console.log;
    console.log = (line: string) => void printed.push(line);
    try {
      expect(await main(['--help'])).toBe(0);
    } finally {
      console.log = log;
    }
    expect(printed.join('\n')).toContain('catalog (the GPU');
  });

  it('every refusal names its flag, never a library option', () => {
    expect(() => parseGatewayArgs(['--public-scheme', 'ftp'])).toThrow('--public-scheme: must be https or http');
    expect(() => parseGatewayArgs(['--access-log', 'yes'])).toThrow('--access-log');
    expect(() => parseGatewayArgs(['--queue-wait-ms', '-1'])).toThrow(ValidationError);
    expect(() => parseGatewayArgs(['--gateways', '0'])).toThrow('--gateways');
  });

  it('no "possible memory leak" listener warning under 429s: 40 documents of one caller past its limit and its queue', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    // No cache: each document runs upstream (a cached answer frees its slot at once, and none would wait past the queue).
    const rig = await startRig({ limits: { maxInFlight: 1, queueWaitMs: 50, maxQueued: 64 }, cache: false });
    try {
      const controller = new AbortController();
      const statuses = await Promise.all(
        Array.from({ length: 40 }, () =>
          fetch(rig.gateway.graphqlUrl, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json', ...bearer(READ_TOKEN) }, body: JSON.stringify({ query: '{ myself { pods { id } } }' }) }).then((r) => r.status),
        ),
      );
      expect(statuses).toContain(429);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(warnings.filter((name) => name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await rig.close();
    }
  });
});

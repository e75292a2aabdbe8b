// A page on one origin calling a gateway on another, in headless Chromium: a refused origin is
// logged once by the gateway with the flag that allows it, and the page's client says CORS and
// does not retry; an allowed origin (written with the address bar's trailing slash) works, with the
// client's `headers` option allowed by `corsHeaders`.
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen as listenEmulator } from '../../src/emulator/node.js';
import { createGateway, type GatewayOptions } from '../../src/gateway/index.js';
import { listen, type ListeningGateway } from '../../src/gateway/node.js';
import type { RunpodLogger } from '../../src/index.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM) || Boolean(process.env.CI);
const UPSTREAM_KEY = 'rpa_cors_page_upstream_0123456789abcdef';
const READ_TOKEN = 'cors-page-read-token-0123456789';

interface Outcome {
  ok: boolean;
  offers?: number;
  name?: string;
  message?: string;
}

describe.runIf(available)('a page on another origin than the gateway, in headless Chromium', () => {
  let emulator: ListeningEmulator;
  let server: ReturnType<typeof createAdaptorServer>;
  let pageOrigin: string;
  let browser: Browser;
  let tab: Page;
  const gateways: ListeningGateway[] = [];

  /** A gateway on its own port (so its own origin), counting the methods it was sent and keeping its warnings. */
  async function gateway(options: Partial<GatewayOptions>) {
    const methods: string[] = [];
    const warnings: string[] = [];
    const logger: RunpodLogger = { error: () => {}, warn: (line: string) => warnings.push(line), info: () => {}, debug: () => {} };
    const { apiKey: _k, ...urls } = emulator.clientOptions(UPSTREAM_KEY);
    const handler = createGateway({ tokens: `read:${READ_TOKEN}`, ...options, client: { ...urls, apiKey: UPSTREAM_KEY, logger } });
    const served = await listen({ ...handler, fetch: (request: Request) => (methods.push(request.method), handler.fetch(request)) });
    gateways.push(served);
    return { url: served.graphqlUrl, methods, warnings };
  }

  const attempt = (graphqlUrl: string, headers?: Record<string, string>) =>
    tab.evaluate(
      ([url, token, h]) => (globalThis as unknown as { attempt: (u: string, t: string, h?: Record<string, string>) => Promise<Outcome> }).attempt(url, token, h),
      [graphqlUrl, READ_TOKEN, headers] as const,
    );

  beforeAll(async () => {
    emulator = await listenEmulator(createEmulator({ apiKeys: [UPSTREAM_KEY] }), { host: '127.0.0.1' });
    const bundle = await build({ entryPoints: [fileURLToPath(new URL('./cors-page.ts', import.meta.url))], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
    const js = bundle.outputFiles[0]!.text;
    server = createAdaptorServer({
      hostname: '127.0.0.1',
      fetch: (request: Request) =>
        new URL(request.url).pathname === '/cors-page.js'
          ? new Response(js, { headers: { 'content-type': 'text/javascript' } })
          : new Response('<!doctype html><p id="status">loading</p><script type="module" src="./cors-page.js"></script>', { headers: { 'content-type': 'text/html' } }),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    tab = await browser.newPage();
    await tab.goto(`${pageOrigin}/`);
    await tab.waitForFunction(() => document.getElementById('status')?.textContent === 'ready', undefined, { timeout: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const g of gateways) await g.close();
    (server as { closeAllConnections?: () => void } | undefined)?.closeAllConnections?.();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await emulator?.close();
  });

  it('a refused origin: the client names CORS and the flag, sends one preflight (no retry); the gateway logs the origin once, with --cors-origin', async () => {
    const closed = await gateway({});
    const first = await attempt(closed.url);
    expect(first.ok).toBe(false);
    expect(first.name).toBe('ConnectionError');
    expect(first.message).toMatch(/CORS/);
    expect(first.message).toContain(`--cors-origin ${pageOrigin}`);
    expect(closed.methods).toEqual(['OPTIONS']);
    await attempt(closed.url);
    expect(closed.methods).toEqual(['OPTIONS', 'OPTIONS']);
    expect(closed.warnings).toHaveLength(1);
    expect(closed.warnings[0]).toContain(`--cors-origin "${pageOrigin}"`);
    expect(closed.warnings[0]).not.toMatch(/corsOrigins/);
  }, 30_000);

  it("an origin allowed as copied from the address bar (trailing /) works, and the client's headers option with --cors-header", async () => {
    const open = await gateway({ corsOrigins: [`${pageOrigin}/`], corsHeaders: ['X-App-Version'] });
    const plain = await attempt(open.url);
    expect(plain).toMatchObject({ ok: true });
    expect(plain.offers).toBeGreaterThan(3);
    expect(await attempt(open.url, { 'x-app-version': '1.2.0', 'x-request-id': 'page-trace-1' })).toMatchObject({ ok: true });
    // Without --cors-header, a header of the app's own is refused by the browser, as CORS.
    const strict = await gateway({ corsOrigins: [pageOrigin] });
    const refused = await attempt(strict.url, { 'x-app-version': '1.2.0' });
    expect(refused).toMatchObject({ ok: false, name: 'ConnectionError' });
    // The client names the header and the flag that allows it (issue 44, friction 19).
    expect(refused.message).toContain(`--cors-origin ${pageOrigin} --cors-header x-app-version`);
    expect(refused.message).toContain('the headers this client adds (x-app-version)');
    expect(strict.warnings).toEqual([]);
  }, 30_000);
});

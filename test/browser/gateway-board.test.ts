// The frontend the gateway exists for, in headless Chromium: a page typed with the generated
// documents shows GPU offers and the caller's pods through a gateway (persisted documents only, a
// read token) on its own origin. The page holds no RunPod key.
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { GpuTypesDocument } from '../../src/graphql/index.js';
import { PodNamesDocument } from './pod-names.js';
import { createRunpodClient } from '../../src/index.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM) || Boolean(process.env.CI);
const UPSTREAM_KEY = 'rpa_browser_board_upstream_0123456789';
const READ_TOKEN = 'browser-board-read-token-0123456789';

const sha256 = async (text: string) => Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('hex');

describe.runIf(available)('a page through the gateway in headless Chromium', () => {
  let emulator: ListeningEmulator;
  let server: ReturnType<typeof createAdaptorServer>;
  let pageUrl: string;
  let browser: Browser;
  let js: string;
  const upstreamAuth: string[] = [];

  beforeAll(async () => {
    emulator = await listen(createEmulator({ apiKeys: [UPSTREAM_KEY] }), { host: '127.0.0.1' });
    const { apiKey: _k, ...urls } = emulator.clientOptions(UPSTREAM_KEY);
    await createRunpodClient({ ...urls, apiKey: UPSTREAM_KEY }).pods.deploy({ name: 'board-pod', imageName: 'runpod/base', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 });
    // codegen's persisted-documents shape: id (here the SHA-256 of the text) → text.
    const persisted: Record<string, string> = {};
    for (const doc of [GpuTypesDocument, PodNamesDocument]) persisted[await sha256(doc.toString())] = doc.toString();
    // Made once the app's origin is known: the gateway never takes "same origin" from a request.
    let gateway: Gateway | undefined;
    const bundle = await build({ entryPoints: [fileURLToPath(new URL('./gateway-board.ts', import.meta.url))], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
    js = bundle.outputFiles[0]!.text;
    const html = readFileSync(new URL('./gateway-board.html', import.meta.url), 'utf8');
    // The app's own server: the page, its script and the gateway on one origin (a relative /graphql).
    server = createAdaptorServer({
      hostname: '127.0.0.1',
      fetch: (request: Request) => {
        const { pathname } = new URL(request.url);
        if (pathname === '/graphql') return gateway!.fetch(request);
        if (pathname === '/gateway-board.js') return new Response(js, { headers: { 'content-type': 'text/javascript' } });
        return new Response(html, { headers: { 'content-type': 'text/html' } });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const pageOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    gateway = createGateway({
      tokens: `read:${READ_TOKEN}`,
      persisted,
      corsOrigins: [pageOrigin],
      client: { ...urls, apiKey: UPSTREAM_KEY, fetch: (input, init) => (upstreamAuth.push(new Headers(init?.headers).get('authorization') ?? ''), fetch(input, init)) },
    });
    pageUrl = `${pageOrigin}/?token=${READ_TOKEN}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    (server as { closeAllConnections?: () => void } | undefined)?.closeAllConnections?.();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await emulator?.close();
  });

  it('shows the offers and the caller\'s pods; the page and its script hold no RunPod key; the key guard fires', async () => {
    const tab = await browser.newPage();
    const failures: string[] = [];
    tab.on('pageerror', (err) => failures.push(err.message));
    await tab.goto(pageUrl);
    await tab.waitForFunction(() => /offers|error/.test(document.getElementById('status')?.textContent ?? ''), undefined, { timeout: 20_000 });
    const status = await tab.textContent('#status');
    expect(status).toMatch(/^\d+ offers, 1 pods$/);
    const offers = await tab.$$eval('#offers tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '')));
    expect(offers.length).toBeGreaterThan(3);
    expect(offers.every(([, vram, price]) => /^\d+ GB$/.test(vram!) && Number(price) > 0)).toBe(true);
    const pods = await tab.$$eval('#pods tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '')));
    expect(pods).toEqual([['board-pod', 'RUNNING']]);
    expect(await tab.textContent('#guard')).toMatch(/runpod-gql gateway/);
    expect(failures).toEqual([]);
    // No RunPod key in anything the browser received; the upstream saw only the gateway's key.
    expect(js + (await tab.content())).not.toContain(UPSTREAM_KEY);
    expect(new Set(upstreamAuth)).toEqual(new Set([`Bearer ${UPSTREAM_KEY}`]));
  }, 40_000);
});

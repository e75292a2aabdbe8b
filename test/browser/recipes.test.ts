// Issue 44 item 7: the README's recipes for TanStack Query and urql over the page fetcher, built
// with Vite as an app builds them and run in headless Chromium against a `--persisted` gateway on
// the page's own origin. The page loads at most 2 KB gz of runpod-gql, and sends documents by id.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createAdaptorServer } from '@hono/node-server';
import { chromium, type Browser } from 'playwright-core';
import { build, type Rollup } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { runClientPreset } from '../graphql/codegen-preset.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM) || Boolean(process.env.CI);
const root = fileURLToPath(new URL('../../', import.meta.url));
const recipes = fileURLToPath(new URL('./recipes/', import.meta.url));
const UPSTREAM_KEY = 'rpa_recipes_upstream_0123456789abcdef';
const READ_TOKEN = 'recipes-read-token-0123456789abcdef';

describe.runIf(available)('the TanStack Query and urql recipes, built with Vite, in headless Chromium', () => {
  const work = join(root, 'test', 'artifacts', 'recipes');
  let emulator: ListeningEmulator;
  let server: ReturnType<typeof createAdaptorServer>;
  let browser: Browser;
  let pageUrl: string;
  let ownBytes = 0;
  let ownModules: string[] = [];
  const bodies: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    // The app's own documents, from codegen's client preset (persisted documents on).
    const preset = await runClientPreset(join(work, 'gql'));
    const packaged = JSON.parse(readFileSync(join(root, 'persisted-documents.json'), 'utf8')) as Record<string, string>;
    // The page as an app builds it; the package as installed (its built entries, by their export names).
    const output = (await build({
      root: recipes,
      configFile: false,
      logLevel: 'silent',
      // runpod-gql in a chunk of its own, so what the page loads of it is one minified file to weigh.
      build: { outDir: join(work, 'dist'), emptyOutDir: true, rollupOptions: { output: { manualChunks: (id: string) => (id.startsWith(join(root, 'dist')) ? 'runpod-gql' : undefined) } } },
      resolve: {
        alias: [
          { find: /^runpod-gql\/graphql\/fetch$/, replacement: join(root, 'dist/graphql/gateway-fetch.js') },
          { find: /^runpod-gql\/graphql$/, replacement: join(root, 'dist/graphql/index.js') },
          { find: /^app-gql\/(.*)$/, replacement: join(work, 'gql', '$1') },
        ],
      },
    })) as Rollup.RollupOutput;
    // What of runpod-gql the page loads: its chunk, minified as Vite ships it, and nothing of it elsewhere.
    const chunks = output.output.filter((o): o is Rollup.OutputChunk => o.type === 'chunk');
    const ownChunk = chunks.find((chunk) => chunk.name === 'runpod-gql')!;
    expect(Object.keys(ownChunk.modules).every((id) => id.startsWith(join(root, 'dist')))).toBe(true);
    expect(chunks.filter((chunk) => chunk !== ownChunk).flatMap((chunk) => Object.keys(chunk.modules)).filter((id) => id.startsWith(join(root, 'dist')))).toEqual([]);
    ownBytes = gzipSync(ownChunk.code, { level: 9 }).length;
    ownModules = Object.keys(ownChunk.modules).map((id) => id.slice(root.length));
    const files = new Map(output.output.map((o) => [`/${o.fileName}`, o.type === 'chunk' ? o.code : o.source]));
    let gateway: Gateway | undefined;
    server = createAdaptorServer({
      hostname: '127.0.0.1',
      fetch: async (request: Request) => {
        const { pathname } = new URL(request.url);
        if (pathname === '/graphql') {
          bodies.push((await request.clone().json()) as Record<string, unknown>);
          return gateway!.fetch(request);
        }
        const file = files.get(pathname === '/' ? '/index.html' : pathname);
        if (file === undefined) return new Response('not found', { status: 404 });
        return new Response(typeof file === 'string' ? file : Buffer.from(file), { headers: { 'content-type': pathname.endsWith('.js') ? 'text/javascript' : 'text/html' } });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    emulator = await listen(createEmulator({ apiKeys: [UPSTREAM_KEY] }), { host: '127.0.0.1' });
    const { apiKey: _k, ...urls } = emulator.clientOptions(UPSTREAM_KEY);
    gateway = createGateway({ tokens: `read:${READ_TOKEN}`, persisted: { ...packaged, ...preset.persisted }, corsOrigins: [origin], client: { ...urls, apiKey: UPSTREAM_KEY } });
    pageUrl = `${origin}/?token=${READ_TOKEN}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    (server as { closeAllConnections?: () => void } | undefined)?.closeAllConnections?.();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await emulator?.close();
  });

  it('both recipes show their data; every document went by id; the page loads at most 2 KB gz of runpod-gql', async () => {
    const tab = await browser.newPage();
    const failures: string[] = [];
    tab.on('pageerror', (err) => failures.push(err.message));
    await tab.goto(pageUrl);
    await tab.waitForFunction(() => document.getElementById('status')?.textContent !== 'loading', undefined, { timeout: 20_000 });
    expect(await tab.textContent('#status')).toBe('done');
    expect(await tab.textContent('#tanstack')).toMatch(/^([4-9]|\d\d+) offers$/);
    expect(await tab.textContent('#urql')).toMatch(/^([4-9]|\d\d+) gpus$/);
    expect(failures).toEqual([]);
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body).not.toHaveProperty('query');
      expect(typeof body.documentId).toBe('string');
    }
    console.log(`the recipe page loads ${ownBytes} B gz of runpod-gql: ${ownModules.join(', ')}`);
    expect(ownBytes).toBeGreaterThan(500);
    expect(ownBytes).toBeLessThanOrEqual(2048);
  }, 40_000);
});

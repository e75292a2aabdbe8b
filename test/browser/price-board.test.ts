import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, EMULATOR_API_KEY, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';

const CHROMIUM = '/usr/bin/chromium';
const root = fileURLToPath(new URL('../../', import.meta.url));
// CI installs Debian's chromium (.ci/run); a machine without it skips this file unless CI is set.
const available = existsSync(CHROMIUM) || Boolean(process.env.CI);

describe.runIf(available)('the browser bundle in headless Chromium', () => {
  let emulator: ListeningEmulator;
  let page: Server;
  let pageUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    emulator = await listen(createEmulator(), { host: '127.0.0.1' });
    const bundle = await build({ entryPoints: [`${root}dist/index.js`], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
    const js = bundle.outputFiles[0]!.text;
    const html = readFileSync(new URL('./price-board.html', import.meta.url), 'utf8');
    // A second origin: the page calls the emulator cross-origin, so CORS is exercised for real.
    page = createServer((req, res) => {
      if (req.url?.startsWith('/runpod-gql.browser.js')) res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
      else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const query = new URLSearchParams({ apiKey: EMULATOR_API_KEY, graphqlUrl: emulator.graphqlUrl });
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/?${query}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve()));
    await emulator?.close();
  });

  it('renders the GPU price board from the emulator, sorted by price', async () => {
    const tab = await browser.newPage();
    const failures: string[] = [];
    tab.on('pageerror', (err) => failures.push(err.message));
    await tab.goto(pageUrl);
    await tab.waitForSelector('#board:not([hidden]) tbody tr', { timeout: 15_000 });
    const rows = await tab.$$eval('#board tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '')));
    expect(rows.length).toBeGreaterThan(3);
    expect(rows[0]).toEqual(['RTX A4000', '16 GB', '0.17', 'High']);
    const prices = rows.map((r) => Number(r[2]));
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(await tab.textContent('#status')).toBe(`${rows.length} offers in stock, cheapest first`);
    expect(failures).toEqual([]);
    mkdirSync(`${root}test/artifacts`, { recursive: true });
    await tab.screenshot({ path: `${root}test/artifacts/price-board.png`, fullPage: true });
  }, 30_000);
});

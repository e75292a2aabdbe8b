import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunpodClient, NotFoundError } from '../../src/index.js';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { captureError } from '../helpers.js';
import { KEY_A, KEY_B } from './harness.js';

/** Waits (on I/O, not on a timer under test) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`never happened: ${what}`);
}

interface Delivery {
  method: string;
  contentType: string | undefined;
  body: unknown;
}

/** A webhook receiver on 127.0.0.1 answering the given statuses in turn (200 after them). */
async function webhookReceiver(statuses: number[]) {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      deliveries.push({ method: req.method ?? '', contentType: req.headers['content-type'], body: JSON.parse(text) });
      res.statusCode = statuses[deliveries.length - 1] ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, deliveries, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('serverless over loopback, on the manual clock', () => {
  const emulator = createEmulator({ clock: 'manual', apiKeys: [KEY_A, KEY_B] });
  let server: ListeningEmulator;
  beforeAll(async () => {
    emulator.handlers.register('llm', (input) => ({ reply: `hi ${(input as { name: string }).name}` }));
    server = await listen(emulator, { port: 0, host: '127.0.0.1' });
  });
  afterAll(() => server.close());
  const client = (key = KEY_A) => createRunpodClient({ ...server.clientOptions(key), maxRetries: 0 });

  it('POSTs the webhook to a loopback receiver, twice more 10 s apart on the emulator clock until it gets 200', async () => {
    const receiver = await webhookReceiver([500, 502, 200]);
    try {
      const ep = client().endpoint('sleep');
      const job = await ep.run({ ms: 1_000, output: 'done' }, { webhook: receiver.url });
      await emulator.clock.advance(1_000);
      await until(() => receiver.deliveries.length === 1, 'first delivery');
      const status = await job.status();
      expect(receiver.deliveries[0]).toEqual({ method: 'POST', contentType: 'application/json', body: JSON.parse(JSON.stringify(status)) });
      await emulator.clock.advance(10_000);
      await until(() => receiver.deliveries.length === 2, 'second delivery');
      await emulator.clock.advance(10_000);
      await until(() => receiver.deliveries.length === 3, 'third delivery');
      await emulator.clock.advance(60_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(receiver.deliveries).toHaveLength(3);
      expect(new Set(receiver.deliveries.map((d) => JSON.stringify(d.body))).size).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it('account B cannot see, cancel or purge account A’s jobs on a built-in endpoint', async () => {
    const job = await client(KEY_A).endpoint('sleep').run({ ms: 60_000 });
    const other = client(KEY_B).endpoint('sleep');
    expect(await captureError(other.status(job.id))).toBeInstanceOf(NotFoundError);
    expect(await captureError(other.cancel(job.id))).toBeInstanceOf(NotFoundError);
    expect(await other.purgeQueue()).toEqual({ removed: 0, status: 'completed' });
    expect((await job.status()).status).toBe('IN_PROGRESS');
    await job.cancel();
  });

  it('a registered handler is an endpoint under its name, for every account', async () => {
    for (const key of [KEY_A, KEY_B]) {
      const done = await client(key).endpoint<{ name: string }, { reply: string }>('llm').runSync({ name: 'ada' });
      expect(done.output).toEqual({ reply: 'hi ada' });
    }
  });

  it('a chunked upload over the 10 MB /run limit gets 413', async () => {
    const url = new URL(`${server.serverlessUrl}/echo/run`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"input":"');
      const piece = 'x'.repeat(256 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 11 * 1024 * 1024) {
          sent += piece.length;
          if (!req.write(piece)) return void req.once('drain', pump);
        }
        req.end('"}');
      };
      pump();
    });
    expect(status).toBe(413);
  });

  it('a cold load-balanced request is held about 2 minutes, then gets 400 "no workers available"', async () => {
    emulator.loadBalanced.define({ id: 'lb-cold', coldStartMs: 10 * 60_000, routes: { 'GET /ping': () => ({ pong: true }) } });
    const template = server.clientOptions().loadBalancedUrl;
    expect(template).toBe(`${server.url}/lb/{endpointId}`);
    const start = emulator.clock.now();
    let answer: { status: number; body: unknown } | undefined;
    let answeredAt = 0;
    void fetch(`${template.replace('{endpointId}', 'lb-cold')}/ping`, { headers: { authorization: `Bearer ${KEY_A}` } }).then(async (res) => {
      answeredAt = emulator.clock.now();
      answer = { status: res.status, body: await res.json() };
    });
    for (let step = 0; step < 200 && !answer; step++) {
      await emulator.clock.advance(1_000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await until(() => answer !== undefined, 'the answer');
    expect(answer).toEqual({ status: 400, body: { error: 'no workers available' } });
    expect(answeredAt - start).toBeGreaterThanOrEqual(120_000);
    expect(answeredAt - start).toBeLessThan(130_000);
  });

  it('a warm load-balanced endpoint answers with X-Runpod-Worker-Id over loopback', async () => {
    emulator.loadBalanced.define({ id: 'lb-warm', coldStartMs: 0, workers: 2, routes: { 'GET /who': (_req, ctx) => ({ worker: ctx.workerId }) } });
    const url = `${server.clientOptions().loadBalancedUrl.replace('{endpointId}', 'lb-warm')}/who`;
    const first = await fetch(url, { headers: { authorization: `Bearer ${KEY_A}` } });
    const worker = first.headers.get('x-runpod-worker-id');
    expect(await first.json()).toEqual({ worker });
    const pinned = await fetch(url, { headers: { authorization: `Bearer ${KEY_A}`, 'x-runpod-worker-id': `strict ${worker}` } });
    expect(pinned.headers.get('x-runpod-worker-id')).toBe(worker);
  });
});

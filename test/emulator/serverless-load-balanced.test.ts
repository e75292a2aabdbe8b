import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { createEmulator, IN_PROCESS_BASE, type LoadBalancedDefinition } from '../../src/emulator/index.js';
import { KEY_A, settle } from './serverless-wire.js';

const MINUTE = 60_000;

function lbEmulator(definition: Omit<LoadBalancedDefinition, 'id'> & { id?: string }) {
  const emulator = createEmulator({ clock: 'manual', apiKeys: [KEY_A] });
  const id = definition.id ?? 'lb-test';
  emulator.loadBalanced.define({ ...definition, id });
  const { fetch, loadBalancedUrl } = emulator.clientOptions();
  const base = loadBalancedUrl.replace('{endpointId}', id);
  const call = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${KEY_A}`);
    const response = await fetch!(`${base}${path}`, { ...init, headers });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, worker: response.headers.get('x-runpod-worker-id') };
  };
  return { emulator, call };
}

describe('load-balanced endpoints on the emulator clock', () => {
  it('clientOptions() gives the address template with {endpointId}', () => {
    expect(createEmulator().clientOptions().loadBalancedUrl).toBe(`${IN_PROCESS_BASE}/lb/{endpointId}`);
  });

  it('a cold start holds the request until a worker is ready, then serves it', async () => {
    const { emulator, call } = lbEmulator({ coldStartMs: 30_000, routes: { 'GET /ping': () => ({ pong: true }) } });
    let answered = false;
    const held = call('/ping').finally(() => (answered = true));
    await settle();
    await emulator.clock.advance(29_999);
    await settle();
    expect(answered).toBe(false);
    await emulator.clock.advance(1);
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ pong: true });
    expect(answer.worker).toMatch(/^[a-z0-9]{14}$/);
  });

  it('after holding 2 minutes with no worker ready: 400 "no workers available"', async () => {
    const { emulator, call } = lbEmulator({ coldStartMs: 5 * MINUTE, routes: { 'GET /ping': () => ({ pong: true }) } });
    let answered = false;
    const held = call('/ping').finally(() => (answered = true));
    await settle();
    await emulator.clock.advance(2 * MINUTE - 1);
    await settle();
    expect(answered).toBe(false);
    await emulator.clock.advance(1);
    expect(await held).toMatchObject({ status: 400, body: { error: 'no workers available' } });
    await emulator.clock.advance(3 * MINUTE);
    expect(await call('/ping')).toMatchObject({ status: 200, body: { pong: true } });
  });

  it('workers idle past idleTimeoutMs are gone: the next request is held through a cold start again', async () => {
    const { emulator, call } = lbEmulator({ coldStartMs: 10_000, idleTimeoutMs: MINUTE, routes: { 'GET /ping': () => ({ pong: true }) } });
    const first = call('/ping');
    await settle();
    await emulator.clock.advance(10_000);
    expect((await first).status).toBe(200);
    await emulator.clock.advance(MINUTE);
    expect((await call('/ping')).status).toBe(200);
    await emulator.clock.advance(MINUTE + 1);
    let answered = false;
    const cold = call('/ping').finally(() => (answered = true));
    await settle();
    await emulator.clock.advance(9_999);
    await settle();
    expect(answered).toBe(false);
    await emulator.clock.advance(1);
    expect((await cold).status).toBe(200);
  });

  it('524 once processing passes 5.5 minutes; the route sees its signal fire', async () => {
    let aborted = false;
    const { emulator, call } = lbEmulator({
      coldStartMs: 0,
      routes: {
        'POST /generate': async (_req, ctx) => {
          ctx.signal.addEventListener('abort', () => (aborted = true));
          await ctx.sleep(10 * MINUTE);
          return { late: true };
        },
        'POST /quick': async (_req, ctx) => {
          await ctx.sleep(5.5 * MINUTE - 1);
          return { inTime: true };
        },
      },
    });
    const slow = call('/generate', { method: 'POST' });
    const quick = call('/quick', { method: 'POST' });
    await settle();
    await emulator.clock.advance(5.5 * MINUTE);
    expect(await quick).toMatchObject({ status: 200, body: { inTime: true } });
    const answer = await slow;
    expect(answer.status).toBe(524);
    expect(answer.worker).toBeTruthy();
    expect(aborted).toBe(true);
  });

  it('answers carry X-Runpod-Worker-Id; a request can pin a worker with that header', async () => {
    const { call } = lbEmulator({ coldStartMs: 0, workers: 3, routes: { 'GET /who': (_req, ctx) => ({ worker: ctx.workerId }) } });
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push((await call('/who')).worker);
    expect(new Set(seen).size).toBe(3);
    const pinned = seen[1]!;
    for (const header of [pinned, `strict ${pinned}`, `strict-resume ${pinned}`]) {
      for (let i = 0; i < 3; i++) {
        const answer = await call('/who', { headers: { 'x-runpod-worker-id': header } });
        expect(answer.worker).toBe(pinned);
        expect(answer.body).toEqual({ worker: pinned });
      }
    }
    expect(seen).toContain((await call('/who', { headers: { 'x-runpod-worker-id': 'gone0000000000' } })).worker);
    expect(await call('/who', { headers: { 'x-runpod-worker-id': 'strict gone0000000000' } })).toMatchObject({ status: 400 });
  });

  it('an endpoint id that also appears in its routes’ paths is cut off once', async () => {
    const { call } = lbEmulator({ id: 'lb', coldStartMs: 0, routes: { 'GET /lb/:x': (_req, ctx) => ({ x: ctx.params.x }) } });
    expect(await call('/lb/lb')).toMatchObject({ status: 200, body: { x: 'lb' } });
  });

  it('rp.loadBalanced(id) reaches the in-process emulator', async () => {
    const emulator = createEmulator({ clock: 'manual', apiKeys: [KEY_A] });
    emulator.loadBalanced.define({ id: 'abc123', coldStartMs: 0, routes: { 'POST /v1/echo': async (req) => ({ got: await req.json() }) } });
    const rp = createRunpodClient(emulator.clientOptions());
    expect(await rp.loadBalanced('abc123').post('/v1/echo', { json: { n: 1 }, retryNonIdempotent: true })).toEqual({ got: { n: 1 } });
  });
});

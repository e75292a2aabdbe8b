// The emulator's memory is bounded by time and by count, checked by counting what it holds (never
// by timing or heap figures; those are the bench's): no sleep leaves anything registered on a
// long-lived signal, finished results are capped in number, and once results expire nothing of the
// jobs stays (the bill keeps one row per endpoint, worker and hour, not one per job).
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createEmulatorClock } from '../../src/emulator/clock.js';
import { createEmulator, EMULATOR_API_KEY, IN_PROCESS_BASE } from '../../src/emulator/index.js';
import { Platform } from '../../src/emulator/platform.js';
import { handlerEndpoint, ServerlessQueue } from '../../src/emulator/queue.js';

/** What stays registered on `signal`: its abort listeners, and the signals AbortSignal.any made from it (Node keeps those in a symbol-keyed set). */
function registeredOn(signal: AbortSignal): number {
  const dependants = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals');
  const set = dependants ? (signal as unknown as Record<symbol, Set<unknown> | undefined>)[dependants] : undefined;
  return getEventListeners(signal, 'abort').length + (set?.size ?? 0);
}

const auth = { authorization: `Bearer ${EMULATOR_API_KEY}`, 'content-type': 'application/json' };
const queueUrl = `${IN_PROCESS_BASE}/queue/v2`;
const MINUTE = 60_000;

describe('emulator memory: bounded by time and by count', () => {
  for (const mode of ['real', 'manual'] as const) {
    it(`${mode} clock: 500 sleeps on one long-lived signal, ended or aborted, leave nothing registered on it`, async () => {
      const clock = createEmulatorClock(mode);
      const longLived = new AbortController();
      try {
        const sleeps = Array.from({ length: 500 }, (_, i) => {
          if (i % 5 !== 4) return clock.sleep(0, longLived.signal);
          // Every fifth one is cut short by its own signal, the other way a sleep ends.
          const own = new AbortController();
          const slept = clock.sleep(60_000, own.signal);
          own.abort();
          return slept.catch(() => undefined);
        });
        if (mode === 'manual') await clock.advance(0);
        await Promise.all(sleeps);
        expect(registeredOn(longLived.signal)).toBe(0);
        expect(clock.pendingSleeps).toBe(0);
      } finally {
        clock.dispose();
      }
    });
  }

  it('finished results are capped by count: past maxRetainedResults the oldest go first (404), the newest stay', async () => {
    const emulator = createEmulator({ clock: 'manual', maxRetainedResults: 5 });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await emulator.fetch(new Request(`${queueUrl}/echo/run`, { method: 'POST', headers: auth, body: JSON.stringify({ input: i }) }));
        ids.push(((await res.json()) as { id: string }).id);
        await emulator.clock.advance(0);
      }
      expect(emulator.inspect.held().jobs).toBe(5);
      const statuses = await Promise.all(ids.map(async (id) => (await emulator.fetch(new Request(`${queueUrl}/echo/status/${id}`, { headers: auth }))).status));
      expect(statuses).toEqual([404, 404, 404, 200, 200, 200, 200, 200]);
    } finally {
      emulator.dispose();
    }
  });

  it('refuses a maxRetainedResults that is not a whole number ≥ 1', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => createEmulator({ maxRetainedResults: bad })).toThrow(/maxRetainedResults/);
  });

  it('once every result has expired, nothing of 300 jobs stays: no job, no sleep, no hold; the bill keeps a row per endpoint and hour', async () => {
    const clock = createEmulatorClock('manual');
    const platform = new Platform({ clock });
    const account = platform.addAccount('rpa_bounds');
    const queue = new ServerlessQueue({ clock, lifetime: platform.lifetime });
    const endpoint = handlerEndpoint('sleep', clock.now());
    try {
      for (let i = 0; i < 300; i++) queue.submit(account, endpoint, { input: { ms: 1_000 } }, i % 2 === 0);
      await clock.advance(1_000);
      expect(queue.size).toBe(300);
      // 300 jobs ran at once on up to 100 warm workers, one second each.
      await clock.advance(10_000);
      expect(account.endpointCharges.length).toBeLessThanOrEqual(100);
      expect(account.endpointCharges.reduce((ms, c) => ms + c.timeBilledMs, 0)).toBe(300 * 1_000);
      await clock.advance(31 * MINUTE);
      expect(queue.size).toBe(0);
      expect(clock.pendingSleeps).toBe(0);
      expect(platform.lifetime.heldCount).toBe(0);
    } finally {
      queue.dispose();
      clock.dispose();
    }
  });

  it('mixed calls (run, status, health, GraphQL pods and offers, REST v2 pods): once results expire, no job, sleep or hold stays', async () => {
    const emulator = createEmulator({ clock: 'manual', serverlessLimits: false });
    const call = async (path: string, init: RequestInit = {}) => {
      const res = await emulator.fetch(new Request(`${IN_PROCESS_BASE}${path}`, { headers: auth, ...init }));
      expect(res.status, path).toBeLessThan(400);
      return res.json() as Promise<{ id?: string }>;
    };
    try {
      for (let i = 0; i < 60; i++) {
        const { id } = await call('/queue/v2/echo/run', { method: 'POST', body: JSON.stringify({ input: { i } }) });
        await call(`/queue/v2/echo/status/${id}`);
        await call('/queue/v2/echo/health');
        await call('/graphql', { method: 'POST', body: JSON.stringify({ query: 'query { myself { pods { id } } }' }) });
        await call('/graphql', { method: 'POST', body: JSON.stringify({ query: 'query O($i: GpuLowestPriceInput!) { gpuTypes { id lowestPrice(input: $i) { stockStatus } } }', variables: { i: { gpuCount: 1 } } }) });
        await call('/v2/pods');
      }
      await emulator.clock.advance(0);
      expect(emulator.inspect.held().jobs).toBe(60);
      await emulator.clock.advance(31 * MINUTE);
      expect(emulator.inspect.held()).toEqual({ requests: 0, sleeps: 0, jobs: 0 });
    } finally {
      emulator.dispose();
    }
  });

  it('a job that ends aborts its handler\'s signal with one shared reason, not a DOMException per job (Node keeps each in a table that stays grown)', async () => {
    const emulator = createEmulator({ clock: 'manual' });
    const signals: AbortSignal[] = [];
    emulator.handlers.register('keeps-signal', (_input, ctx) => {
      signals.push(ctx.signal);
      return 'done';
    });
    try {
      for (let i = 0; i < 3; i++) await emulator.fetch(new Request(`${queueUrl}/keeps-signal/run`, { method: 'POST', headers: auth, body: JSON.stringify({ input: {} }) }));
      await emulator.clock.advance(1_000);
      expect(signals).toHaveLength(3);
      expect(signals.every((s) => s.aborted)).toBe(true);
      expect(signals[0]!.reason).toBeInstanceOf(DOMException);
      expect((signals[0]!.reason as DOMException).name).toBe('AbortError');
      expect(new Set(signals.map((s) => s.reason)).size).toBe(1);
    } finally {
      emulator.dispose();
    }
  });
});

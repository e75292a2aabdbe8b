import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, RateLimitError } from '../../src/errors.js';
import { createHttpCoreFromOptions, type HttpRequest } from '../../src/transport/http-core.js';
import { createPacer, memoryPacingStore, QueuedCall, resolveRateLimit, type PacingLimit, type PacingStore } from '../../src/transport/pacing.js';
import { captureError, json, recordingFetch, statusRequest, TEST_API_KEY } from '../helpers.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());


/** A fetch whose answers are released by the test, one by one. */
function heldFetch() {
  const pending: Array<(res: Response) => void> = [];
  const recorder = recordingFetch(() => new Promise<Response>((resolve) => pending.push(resolve)));
  return { ...recorder, answerNext: () => pending.shift()?.(json({ id: 'job-1', status: 'IN_QUEUE' })), pending };
}

describe('rate-limit settings', () => {
  it('uses the documented per-route figures, and the client overrides by key prefix', () => {
    expect(resolveRateLimit('serverless:ep-1:run', undefined)).toEqual({ requests: 1000, intervalMs: 10_000, concurrency: 200 });
    expect(resolveRateLimit('serverless:ep-1:status', undefined)).toEqual({ requests: 2000, intervalMs: 10_000, concurrency: 400 });
    expect(resolveRateLimit('serverless:ep-1:cancel', undefined)).toEqual({ requests: 100, intervalMs: 10_000, concurrency: 20 });
    expect(resolveRateLimit('serverless:ep-1:purge-queue', undefined).requests).toBe(2);
    const scaled = { 'serverless:ep-1': { requests: 5000 }, 'serverless:ep-1:cancel': { concurrency: 50 } };
    expect(resolveRateLimit('serverless:ep-1:run', scaled)).toEqual({ requests: 5000, intervalMs: 10_000, concurrency: 200 });
    expect(resolveRateLimit('serverless:ep-1:cancel', scaled)).toEqual({ requests: 100, intervalMs: 10_000, concurrency: 50 });
    expect(resolveRateLimit('serverless:ep-2:run', scaled).requests).toBe(1000);
  });

  it('rateLimits: false sends everything at once', async () => {
    const pacer = createPacer(false);
    const releases = await Promise.all(Array.from({ length: 1000 }, () => pacer.acquire('serverless:ep-1:purge-queue')));
    expect(releases).toHaveLength(1000);
  });
});

describe('the bucket', () => {
  it('never lets more than `requests` through in any window of intervalMs, each counted from when its attempt ended', async () => {
    const pacer = createPacer({ 'serverless:ep-1:status': { requests: 3, intervalMs: 1000, concurrency: 100 } });
    const times: number[] = [];
    const start = Date.now();
    const all = Promise.all(
      Array.from({ length: 7 }, () => pacer.acquire('serverless:ep-1:status').then((release) => (times.push(Date.now() - start), release()))),
    );
    await vi.advanceTimersByTimeAsync(5000);
    await all;
    // Ended at once: a window after the end is a window after the send.
    expect(times).toEqual([0, 0, 0, 1000, 1000, 1000, 2000]);
  });

  it('a send still in flight holds its place in the window until its answer, so a late arrival never makes the next window hold one too many', async () => {
    // Issue 38: a burst's first requests wait for new connections, and reached the server after
    // later ones; dated by their grant (2 % margin), the next window's sends arrived within one
    // window of them and met 429 (98–148 of 3,000 `/run` on a loaded machine).
    const pacer = createPacer({ 'serverless:ep-1:run': { requests: 2, intervalMs: 1000, concurrency: 100 } });
    const start = Date.now();
    const times: number[] = [];
    const first = await pacer.acquire('serverless:ep-1:run');
    const second = await pacer.acquire('serverless:ep-1:run');
    const more = Promise.all([0, 1].map(() => pacer.acquire('serverless:ep-1:run').then((release) => (times.push(Date.now() - start), release()))));
    // The first answer is back at 300 ms, the second at 1,500 ms (it may have arrived just before).
    await vi.advanceTimersByTimeAsync(300);
    first();
    await vi.advanceTimersByTimeAsync(1200);
    second();
    await vi.advanceTimersByTimeAsync(3000);
    await more;
    // The third goes a window after the first answer. The fourth goes a window after the third
    // end (the third's, at 1,300 ms): by then two of the three before it had ended, so at most one
    // of them (the second) can still fall in the server's window. Dated by grant, both went at 1,020 ms.
    expect(times).toEqual([1300, 2300]);
  });

  it('caps requests in flight, and a finished one lets the next start', async () => {
    const pacer = createPacer({ 'serverless:ep-1:status': { concurrency: 2 } });
    const started: number[] = [];
    const releases: Array<() => void> = [];
    for (let i = 0; i < 4; i++) void pacer.acquire('serverless:ep-1:status').then((r) => (started.push(i), releases.push(r)));
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual([0, 1]);
    releases[0]!();
    releases[0]!();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual([0, 1, 2]);
  });

  it('a waiter whose signal fires leaves the queue with AbortError', async () => {
    const pacer = createPacer({ k: { concurrency: 1 } });
    const first = await pacer.acquire('k');
    const controller = new AbortController();
    const waiting = pacer.acquire('k', controller.signal);
    const after = pacer.acquire('k');
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    first();
    await expect(after).resolves.toBeTypeOf('function');
  });

  it('a second signal (a gate\'s) ends the wait too, and both are let go of whichever fires', async () => {
    const pacer = createPacer({ k: { concurrency: 1 } });
    const first = await pacer.acquire('k');
    const caller = new AbortController();
    const gate = new AbortController();
    const listening = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;
    const waiting = pacer.acquire('k', caller.signal, gate.signal);
    expect([listening(caller.signal), listening(gate.signal)]).toEqual([1, 1]);
    gate.abort(new Error('retired'));
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError', cause: new Error('retired') });
    // The caller's signal outlives the wait: its listener must not.
    expect([listening(caller.signal), listening(gate.signal)]).toEqual([0, 0]);
    first();
  });

  it('a turn granted at once costs no listener; tryTake takes it without a promise, and only when nobody waits', async () => {
    const pacer = createPacer({ k: { concurrency: 1 } });
    const caller = new AbortController();
    const gate = new AbortController();
    const release = await pacer.acquire('k', caller.signal, gate.signal);
    expect([getEventListeners(caller.signal, 'abort').length, getEventListeners(gate.signal, 'abort').length]).toEqual([0, 0]);
    expect(pacer.tryTake('k')).toBeUndefined();
    const queued = pacer.acquire('k');
    release();
    // A freed turn goes to the one who waited, not to a later tryTake.
    expect(pacer.tryTake('k')).toBeUndefined();
    const next = await queued;
    next();
    const taken = pacer.tryTake('k');
    expect(taken).toBeTypeOf('function');
    expect(pacer.tryTake('k')).toBeUndefined();
    taken!();
    expect(createPacer(false).tryTake('k')).toBeTypeOf('function');
    expect(createPacer({}, { store: memoryPacingStore, scope: Promise.resolve('s') }).tryTake('k')).toBeUndefined();
  });
});

describe('buckets of many keys', () => {
  // A client that calls many endpoints makes buckets for each; one of 10,000 sends keeps 80 KB of send times.
  const wide = { 'serverless:*:run': { requests: 10_000, intervalMs: 1000, concurrency: 10 } };
  const touch = async (pacer: ReturnType<typeof createPacer>, key: string) => (await pacer.acquire(key))();

  it('drops the buckets that no longer limit anything, so they do not pile up for the client\'s life', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const pacer = createPacer(wide);
    const held = () => {
      gc();
      return process.memoryUsage().arrayBuffers;
    };
    const before = held();
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 300; i++) await touch(pacer, `serverless:ep-${round}-${i}:run`);
      await vi.advanceTimersByTimeAsync(2000);
    }
    // 3,000 buckets of 80 KB would be 240 MB; the idle ones go whenever the map has doubled.
    const grown = held() - before;
    // The pacer is still in use, so what it holds is counted.
    await touch(pacer, 'serverless:last:run');
    expect(grown).toBeLessThan(100 * 2 ** 20);
  });

  it('keeps a bucket while a recent send, a pause or a call in flight still limits it', async () => {
    // `status` is limited by rate (one per 10 s), `stream` only by what is in flight (one).
    const pacer = createPacer({ ...wide, 'serverless:*:status': { requests: 1, intervalMs: 10_000 }, 'serverless:*:stream': { requests: Infinity, intervalMs: 1, concurrency: 1 } });
    await touch(pacer, 'serverless:sent:status');
    pacer.pause('serverless:paused:status', 30_000);
    const inFlight = await pacer.acquire('serverless:busy:stream');
    await vi.advanceTimersByTimeAsync(1000);
    // Enough other buckets, all idle by now, for the pacer to sweep.
    for (let i = 0; i < 300; i++) await touch(pacer, `serverless:ep-${i}:run`);
    await vi.advanceTimersByTimeAsync(2000);
    for (let i = 0; i < 300; i++) await touch(pacer, `serverless:more-${i}:run`);
    const started = Date.now();
    const waited: Record<string, number> = {};
    const next = (key: string) => pacer.acquire(key).then((release) => ((waited[key.split(':')[1]!] = Date.now() - started), release()));
    const all = Promise.all([next('serverless:sent:status'), next('serverless:paused:status'), next('serverless:busy:stream')]);
    await vi.advanceTimersByTimeAsync(5000);
    inFlight();
    await vi.advanceTimersByTimeAsync(30_000);
    await all;
    // Dropped and made anew, each would have answered at once.
    expect(waited.sent).toBeGreaterThanOrEqual(10_000 - 3000);
    expect(waited.paused).toBeGreaterThanOrEqual(30_000 - 3000);
    expect(waited.busy).toBeGreaterThanOrEqual(5000);
  });
});

describe('queued calls held as records', () => {
  it('start at once when the bucket allows, else in order of arrival; an aborted one is abandoned and never started', async () => {
    const pacer = createPacer({ k: { concurrency: 1 } });
    const events: string[] = [];
    const releases: Array<() => void> = [];
    class Recorded extends QueuedCall {
      constructor(
        readonly name: string,
        signal?: AbortSignal,
      ) {
        super(signal);
      }
      start(release: () => void): void {
        events.push(`start ${this.name}`);
        releases.push(release);
      }
      abandon(error: AbortError): void {
        events.push(`abandon ${this.name}: ${error.name}`);
      }
    }
    const call = (name: string, signal?: AbortSignal) => new Recorded(name, signal);
    pacer.enqueue('k', call('a'));
    expect(events).toEqual(['start a']);
    const controller = new AbortController();
    pacer.enqueue('k', call('b', controller.signal));
    pacer.enqueue('k', call('c'));
    controller.abort();
    expect(events).toEqual(['start a', 'abandon b: AbortError']);
    releases[0]!();
    expect(events).toEqual(['start a', 'abandon b: AbortError', 'start c']);
    // Not paced (no key): started at once, whatever is queued.
    pacer.enqueue(undefined, call('d'));
    expect(events.at(-1)).toBe('start d');
  });
});

describe('pacing in the core', () => {
  it('a request waiting for its turn does not time out: the timer starts when it is sent', async () => {
    const { fetch, calls, answerNext } = heldFetch();
    const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, fetch, rateLimits: { 'serverless:ep-1:status': { concurrency: 1 } } });
    const first = core.requestJson(statusRequest({ timeoutMs: 1000 }));
    const second = core.requestJson(statusRequest({ timeoutMs: 1000 }));
    await vi.advanceTimersByTimeAsync(900);
    expect(calls).toHaveLength(1);
    answerNext();
    await first;
    await vi.advanceTimersByTimeAsync(900);
    // Waited 900 ms for its turn and 900 ms in flight: more than 1000 ms in all, yet not timed out.
    expect(calls).toHaveLength(2);
    answerNext();
    expect(await second).toEqual({ id: 'job-1', status: 'IN_QUEUE' });
  });

  it('the caller can abort a request that is still waiting for its turn', async () => {
    const { fetch, calls } = heldFetch();
    const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, fetch, rateLimits: { 'serverless:ep-1:status': { concurrency: 1 } } });
    void core.requestJson(statusRequest()).catch(() => undefined);
    const controller = new AbortController();
    const waiting = core.requestJson(statusRequest({ signal: controller.signal }));
    controller.abort();
    const err = await captureError(waiting);
    expect(err).toBeInstanceOf(AbortError);
    expect(err.request?.operation).toBe('status');
    expect(calls).toHaveLength(1);
  });

  it('caps a fan-out at the concurrency limit without any 429', async () => {
    let inFlight = 0;
    let peak = 0;
    const { fetch, calls } = recordingFetch(async () => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((r) => setTimeout(r, 50));
      inFlight--;
      return json({ id: 'job-1', status: 'IN_QUEUE' });
    });
    const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, fetch });
    const all = Promise.all(Array.from({ length: 1000 }, () => core.requestJson(statusRequest())));
    await vi.advanceTimersByTimeAsync(10_000);
    await all;
    expect(calls).toHaveLength(1000);
    expect(peak).toBe(400);
  });

  it('a 429 pauses the whole bucket for Retry-After, so other callers wait too', async () => {
    const sentAt: number[] = [];
    const start = Date.now();
    const { fetch } = recordingFetch((_c, i) => {
      sentAt.push(Date.now() - start);
      return i === 0 ? json({ error: 'slow down' }, { status: 429, headers: { 'retry-after': '2' } }) : json({ id: 'job-1', status: 'IN_QUEUE' });
    });
    const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, fetch });
    const first = core.requestJson(statusRequest());
    await vi.advanceTimersByTimeAsync(0);
    const others = Promise.all([core.requestJson(statusRequest()), core.requestJson(statusRequest())]);
    await vi.advanceTimersByTimeAsync(3000);
    await Promise.all([first, others]);
    expect(sentAt[0]).toBe(0);
    expect(Math.min(...sentAt.slice(1))).toBeGreaterThanOrEqual(2000);
  });

  it('REST: an exhausted RateLimit window pauses the bucket until it resets', async () => {
    const sentAt: number[] = [];
    const start = Date.now();
    const { fetch } = recordingFetch(() => {
      sentAt.push(Date.now() - start);
      return json([], { headers: { ratelimit: '"minute";r=0;t=5', 'ratelimit-policy': '"minute";q=200;w=60' } });
    });
    const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, fetch });
    const req: HttpRequest = { method: 'GET', url: 'https://api.runpod.io/v2/pods', auth: 'bearer', operation: 'GET /pods', idempotent: true, rateLimitKey: 'rest' };
    await core.requestJson(req);
    const second = core.requestJson(req);
    await vi.advanceTimersByTimeAsync(6000);
    await second;
    expect(sentAt).toEqual([0, 5000]);
  });

  it('a pause never holds calls longer than a minute, whatever the server announces', async () => {
    const sentAt: number[] = [];
    const start = Date.now();
    const { fetch } = recordingFetch(() => {
      sentAt.push(Date.now() - start);
      return json([], { headers: { ratelimit: '"hour";r=0;t=1800' } });
    });
    const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, fetch });
    const req: HttpRequest = { method: 'GET', url: 'https://api.runpod.io/v2/pods', auth: 'bearer', operation: 'GET /pods', idempotent: true, rateLimitKey: 'rest' };
    await core.requestJson(req);
    const second = core.requestJson(req);
    await vi.advanceTimersByTimeAsync(61_000);
    await second;
    expect(sentAt).toEqual([0, 60_000]);
  });

  it('with retryUntil, a 429 is retried with backoff until the deadline, not just maxRetries', async () => {
    const { fetch, calls } = recordingFetch(() => json({}, { status: 429, headers: { 'retry-after': '0' } }));
    const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, fetch, maxRetries: 1 });
    const failing = core.requestJson(statusRequest({ retryUntil: performance.now() + 30_000 }));
    failing.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(40_000);
    expect(await captureError(failing)).toBeInstanceOf(RateLimitError);
    // 0.5, 1, 2, 4, 8, 8 s… of backoff (jittered down by up to 25 %) fit in 30 s: far more than
    // maxRetries + 1, far fewer than a Retry-After: 0 hot loop.
    expect(calls.length).toBeGreaterThanOrEqual(6);
    expect(calls.length).toBeLessThanOrEqual(9);
  });
});

describe('a store of its own', () => {
  /** A store that answers like a remote one: a memory bucket behind a promise, recording what it is asked. */
  function asyncStore() {
    const asked: Array<{ scope: string; key: string; limit: PacingLimit }> = [];
    let takes = 0;
    const store: PacingStore = {
      bucket(scope, key, limit) {
        asked.push({ scope, key, limit });
        const inner = memoryPacingStore.bucket(scope, key, limit);
        return {
          take: (count) => (takes++, Promise.resolve(inner.take(count))),
          release: (lease) => inner.release(lease),
          pause: (ms) => inner.pause(ms),
          idle: () => inner.idle(),
        };
      },
    };
    return { store, asked, takes: () => takes };
  }

  it('paces from the store: the limits and a digest of the key (never the key) reach it, and a fan-out is asked in batches', async () => {
    const { store, asked, takes } = asyncStore();
    const sentAt: number[] = [];
    const start = Date.now();
    const { fetch } = recordingFetch(() => (sentAt.push(Date.now() - start), json({ id: 'job-1', status: 'IN_QUEUE' })));
    const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, fetch, pacingStore: store, rateLimits: { 'serverless:ep-1:status': { requests: 50, intervalMs: 1000, concurrency: 100 } } });
    // The first call waits for the key's digest (Web Crypto, off the fake clock); the rest find it known.
    await core.requestJson(statusRequest());
    const all = Promise.all(Array.from({ length: 119 }, () => core.requestJson(statusRequest())));
    await vi.advanceTimersByTimeAsync(3000);
    await all;
    expect(asked).toEqual([{ scope: expect.stringMatching(/^[0-9a-f]{32}$/), key: 'serverless:ep-1:status', limit: { requests: 50, windowMs: 1020, concurrency: 100 } }]);
    expect(asked[0]!.scope).not.toContain(TEST_API_KEY.slice(4, 12));
    expect(sentAt.filter((t) => t < 1020)).toHaveLength(50);
    expect(sentAt.filter((t) => t < 2040)).toHaveLength(100);
    // One question for the first call, then the queue at once: far fewer than one per call.
    expect(takes()).toBeLessThan(20);
  });

  it('two clients of one key share the store\'s buckets; a client of another key gets its own', async () => {
    const { store, asked } = asyncStore();
    const { fetch } = recordingFetch(() => json({ id: 'job-1', status: 'IN_QUEUE' }));
    for (const apiKey of [TEST_API_KEY, TEST_API_KEY, 'rpa_OTHER']) await createHttpCoreFromOptions({ apiKey, fetch, pacingStore: store }).requestJson(statusRequest());
    expect(asked[0]!.scope).toBe(asked[1]!.scope);
    expect(asked[2]!.scope).not.toBe(asked[0]!.scope);
  });

  it('a store whose question fails does not hold the call: it goes unpaced', async () => {
    const store: PacingStore = { bucket: () => ({ take: () => Promise.reject(new Error('down')), release: () => undefined, pause: () => undefined, idle: () => true }) };
    const { fetch, calls } = recordingFetch(() => json({ id: 'job-1', status: 'IN_QUEUE' }));
    const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, fetch, pacingStore: store });
    await Promise.all([core.requestJson(statusRequest()), core.requestJson(statusRequest())]);
    expect(calls).toHaveLength(2);
  });

  it('refuses a pacingStore that is not one', () => {
    expect(() => createHttpCoreFromOptions({ apiKey: TEST_API_KEY, pacingStore: {} as PacingStore })).toThrow(/pacingStore/);
  });
});

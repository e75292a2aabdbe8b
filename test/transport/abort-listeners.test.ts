// Many calls on one signal (a document's, a fan-out's, an app's shutdown signal): the package keeps
// one listener on it, whatever number of calls wait on it, so Node never warns of a leak
// (MaxListenersExceededWarning past 10 listeners), and the signal still ends every one of them.
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError } from '../../src/errors.js';
import { follow, linkAbort, sleep, unfollow, untilAborted } from '../../src/transport/abort.js';
import { createHttpCoreFromOptions, type HttpRequest } from '../../src/transport/http-core.js';
import { createRunpodClient } from '../../src/index.js';
import { json, recordingFetch, statusRequest, TEST_API_KEY } from '../helpers.js';

const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
});

/** Warnings are emitted on the next tick: let them arrive. */
const leakWarnings = async () => {
  await new Promise((resolve) => setTimeout(resolve, 10));
  return warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message);
};
const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

/** A fetch whose answers the test releases, all at once; one whose signal fires rejects, as fetch does. */
function heldFetch() {
  const pending: Array<() => void> = [];
  const fetch = (_input: string | URL | Request, init: RequestInit = {}) =>
    new Promise<Response>((resolve, reject) => {
      const signal = init.signal;
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      pending.push(() => resolve(json({ id: 'job-1', status: 'IN_QUEUE' })));
    });
  return { fetch, answerAll: () => pending.splice(0).forEach((answer) => answer()), pending };
}

const request = (signal: AbortSignal): HttpRequest => statusRequest({ signal });

describe('one signal, many calls', () => {
  it('50 calls on one signal through the pacer (5 in flight, 45 queued) put one listener on it, and no warning', async () => {
    const held = heldFetch();
    const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, fetch: held.fetch, rateLimits: { 'serverless:*:status': { concurrency: 5 } } });
    const shared = new AbortController();
    const calls = Array.from({ length: 50 }, () => core.requestJson(request(shared.signal)));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(held.pending).toHaveLength(5);
    expect(listeners(shared.signal)).toBe(1);
    // Served in turns of five: every attempt and every wait follows the one listener.
    for (let served = 0; served < 50; served += 5) {
      held.answerAll();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await expect(Promise.all(calls)).resolves.toHaveLength(50);
    // The caller's signal outlives its calls: nothing of theirs stays on it.
    expect(listeners(shared.signal)).toBe(0);
    expect(await leakWarnings()).toEqual([]);
  });

  it('the one listener still ends every call: in flight, queued, and backing off', async () => {
    const held = heldFetch();
    const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, fetch: held.fetch, rateLimits: { 'serverless:*:status': { concurrency: 5 } } });
    const shared = new AbortController();
    const calls = Array.from({ length: 50 }, () => core.requestJson(request(shared.signal)).catch((err: unknown) => err));
    const waits = Array.from({ length: 20 }, () => sleep(60_000, shared.signal).catch((err: unknown) => err));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(listeners(shared.signal)).toBe(1);
    shared.abort(new Error('shutting down'));
    const ended = await Promise.all([...calls, ...waits]);
    expect(ended.every((err) => err instanceof AbortError)).toBe(true);
    expect(held.pending.length).toBe(5);
    expect(listeners(shared.signal)).toBe(0);
    expect(await leakWarnings()).toEqual([]);
  });

  it("a fan-out of 50 jobs on the caller's signal: run and wait, no warning", async () => {
    let id = 0;
    const { fetch } = recordingFetch((call) =>
      call.url.pathname.endsWith('/run') ? json({ id: `job-${++id}`, status: 'IN_QUEUE' }) : json({ id: call.url.pathname.split('/').pop(), status: 'COMPLETED', output: 1 }),
    );
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, rateLimits: { 'serverless:*:run': { concurrency: 4 }, 'serverless:*:status': { concurrency: 4 } } });
    const endpoint = rp.endpoint('ep-1');
    const shared = new AbortController();
    const done = await Promise.all(Array.from({ length: 50 }, async () => (await endpoint.run({}, { signal: shared.signal })).wait({ signal: shared.signal })));
    expect(done.map((job) => job.status)).toEqual(Array(50).fill('COMPLETED'));
    expect(listeners(shared.signal)).toBe(0);
    expect(await leakWarnings()).toEqual([]);
  });
});

describe('follow', () => {
  it('one listener for any number of followers, added with the first and removed with the last', () => {
    const signal = new AbortController().signal;
    const followers = Array.from({ length: 30 }, () => ({ abortedBy: () => undefined }));
    for (const f of followers) follow(signal, f);
    expect(listeners(signal)).toBe(1);
    for (const f of followers) unfollow(signal, f);
    expect(listeners(signal)).toBe(0);
    // Safe to call twice, and for a signal nothing follows.
    unfollow(signal, followers[0]!);
    expect(listeners(signal)).toBe(0);
  });

  it('tells each follower once, in order, with the signal; one that leaves meanwhile is not told', () => {
    const controller = new AbortController();
    const told: number[] = [];
    const second = { abortedBy: () => told.push(2) };
    follow(controller.signal, { abortedBy: (s) => (told.push(1), expect(s.reason).toBe('why'), unfollow(controller.signal, second)) });
    follow(controller.signal, second);
    follow(controller.signal, { abortedBy: () => told.push(3) });
    controller.abort('why');
    expect(told).toEqual([1, 3]);
    expect(listeners(controller.signal)).toBe(0);
  });

  it('linkAbort and untilAborted follow the parent the same way', async () => {
    const parent = new AbortController();
    const links = Array.from({ length: 20 }, () => linkAbort(parent.signal, 60_000));
    const pending = Array.from({ length: 20 }, () => untilAborted(new Promise(() => undefined), parent.signal, 'wait').catch((err: unknown) => err));
    expect(listeners(parent.signal)).toBe(1);
    parent.abort(new Error('stop'));
    expect(links.every((link) => link.signal.aborted && !link.timedOut() && (link.signal.reason as Error).message === 'stop')).toBe(true);
    expect((await Promise.all(pending)).every((err) => err instanceof AbortError)).toBe(true);
    for (const link of links) link.dispose();
    expect(await leakWarnings()).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { createClock, type EmulatorClock } from '../../src/emulator/clock.js';
import { Platform } from '../../src/emulator/platform.js';
import { handlerEndpoint, ServerlessQueue } from '../../src/emulator/queue.js';

/** A manual clock that counts the sleeps still pending. */
function countingClock() {
  const inner = createClock('manual');
  let pending = 0;
  const clock: EmulatorClock = {
    mode: 'manual',
    now: () => inner.now(),
    advance: (ms) => inner.advance(ms),
    run: async (work) => (typeof work === 'function' ? work() : work),
    sleep(ms, signal) {
      pending += 1;
      return inner.sleep(ms, signal).finally(() => (pending -= 1));
    },
  };
  return { clock, pending: () => pending };
}

function setup(options: { queueDelayMs?: number } = {}) {
  const counting = countingClock();
  const platform = new Platform({ clock: counting.clock });
  const account = platform.addAccount('rpa_timers');
  const webhooks: string[] = [];
  const queue = new ServerlessQueue({
    clock: counting.clock,
    ...options,
    webhookFetch: async (url) => {
      webhooks.push(url);
      return new Response('', { status: 500 });
    },
  });
  const echo = handlerEndpoint('echo', counting.clock.now());
  const sleep = handlerEndpoint('sleep', counting.clock.now());
  return { ...counting, queue, account, echo, sleep, webhooks };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the queue’s timers', () => {
  it('finished jobs are evicted on a timer, without being read', async () => {
    const { clock, queue, account, echo } = setup();
    for (let i = 0; i < 200; i++) queue.submit(account, echo, { input: i }, false);
    for (let i = 0; i < 50; i++) queue.submit(account, echo, { input: i }, true);
    await clock.advance(0);
    expect(queue.size).toBe(250);
    // Results of /runsync are kept 1 minute, of /run 30 minutes.
    await clock.advance(60_000 + 10_000);
    expect(queue.size).toBe(200);
    await clock.advance(30 * 60_000);
    expect(queue.size).toBe(0);
  });

  it('the sweeper stops once no job is left, and starts again with the next', async () => {
    const { clock, queue, account, echo, pending } = setup();
    queue.submit(account, echo, { input: 1 }, true);
    await clock.advance(2 * 60_000);
    expect(queue.size).toBe(0);
    expect(pending()).toBe(0);
    queue.submit(account, echo, { input: 2 }, true);
    expect(pending()).toBe(1);
    await clock.advance(2 * 60_000);
    expect(queue.size).toBe(0);
    expect(pending()).toBe(0);
  });

  it('dispose() ends every timer it started: queue delays, running jobs, holds, sweeps and webhook retries', async () => {
    const { clock, queue, account, echo, sleep, pending, webhooks } = setup({ queueDelayMs: 5_000 });
    queue.submit(account, echo, { input: 'queued' }, false);
    const running = queue.submit(account, sleep, { input: { ms: 60 * 60_000 }, webhook: 'http://127.0.0.1:9/running' }, false);
    const failed = queue.submit(account, echo, { input: { error: 'x' }, webhook: 'http://127.0.0.1:9/hook' }, false);
    await clock.advance(5_000);
    await flush();
    expect(running.status).toBe('IN_PROGRESS');
    expect(failed.status).toBe('FAILED');
    const held = queue.waitFor(running, 60_000);
    expect(pending()).toBeGreaterThanOrEqual(5);
    queue.dispose();
    await held;
    await flush();
    expect(pending()).toBe(0);
    await clock.advance(60 * 60_000);
    await flush();
    expect(webhooks).toEqual(['http://127.0.0.1:9/hook']);
    expect(queue.size).toBe(2);
  });
});

import { describe, expect, it, vi } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { createClock } from '../../src/emulator/clock.js';
import { createEmulator } from '../../src/emulator/index.js';

/** Lets every macrotask that is already due run (the auto clock ticks in macrotasks). */
const macrotasks = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

describe('real clock', () => {
  it('a sleep lasts until now() reads its deadline, even when its timer fires first', async () => {
    // Timers faked and the wall clock not: the timer fires while the clock has hardly moved, as a
    // real timer may a millisecond early. A cold start then answered "no workers available".
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const clock = createClock('real');
      const start = clock.now();
      let wokeAt: number | undefined;
      void clock.sleep(30).then(() => (wokeAt = clock.now()));
      await vi.advanceTimersByTimeAsync(30);
      expect(wokeAt).toBeUndefined();
      while (Date.now() < start + 35) {
        // The wall clock passes the deadline.
      }
      await vi.advanceTimersByTimeAsync(30);
      expect(wokeAt! - start).toBeGreaterThanOrEqual(30);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('manual clock: run(promise) advances while the code under test waits', () => {
  it('a sleep stays pending without run(), and run() moves time exactly to it', async () => {
    const emulator = createEmulator({ clock: 'manual' });
    const start = emulator.clock.now();
    let woke = false;
    const slept = emulator.clock.sleep(20_000).then(() => (woke = true));
    await macrotasks();
    expect(woke).toBe(false);
    expect(emulator.clock.now()).toBe(start);
    await emulator.clock.run(slept);
    expect(woke).toBe(true);
    expect(emulator.clock.now()).toBe(start + 20_000);
    // Once run() is over, time stands still again.
    const later = emulator.clock.sleep(1_000);
    let laterWoke = false;
    void later.then(() => (laterWoke = true), () => undefined);
    await macrotasks();
    expect(laterWoke).toBe(false);
    emulator.dispose();
  });

  it('pod wait, job wait, runSync and stream finish under run()', async () => {
    const emulator = createEmulator({ clock: 'manual', podStartupMs: 30_000 });
    const rp = createRunpodClient(emulator.clientOptions());
    const start = emulator.clock.now();
    const pod = await rp.pods.deploy({ name: 'w', imageName: 'img', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, ports: '8888/http' });
    const ready = await emulator.clock.run(rp.pods.waitUntilReady(pod.id, { pollIntervalMs: 5 }));
    expect(ready.runtime?.ports?.length).toBeGreaterThan(0);
    expect(emulator.clock.now()).toBeGreaterThanOrEqual(start + 30_000);

    const job = await rp.endpoint('sleep').run({ ms: 120_000, output: 'done' });
    const done = await emulator.clock.run(() => job.wait({ pollIntervalMs: 5 }));
    expect(done.output).toBe('done');

    const sync = await emulator.clock.run(rp.endpoint('sleep').runSync({ ms: 5_000, output: 7 }));
    expect(sync.output).toBe(7);

    const streamed = await rp.endpoint('stream').run({ chunks: ['a', 'b', 'c'], intervalMs: 60_000 });
    const chunks = await emulator.clock.run(async () => {
      const out: unknown[] = [];
      for await (const chunk of streamed.stream({ pollIntervalMs: 5 })) out.push(chunk.output);
      return out;
    });
    expect(chunks).toEqual(['a', 'b', 'c']);
    emulator.dispose();
  });

  it('run() passes the rejection of the work through', async () => {
    const emulator = createEmulator({ clock: 'manual' });
    await expect(emulator.clock.run(Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    emulator.dispose();
  });
});

describe("clock: 'auto'", () => {
  it('moves to the next thing due whenever the code waits, and never past it', async () => {
    const emulator = createEmulator({ clock: 'auto' });
    const start = emulator.clock.now();
    await emulator.clock.sleep(45_000);
    expect(emulator.clock.now()).toBe(start + 45_000);
    const rp = createRunpodClient(emulator.clientOptions());
    const job = await rp.endpoint('sleep').run({ ms: 90_000, output: { ok: true } });
    expect((await job.wait({ pollIntervalMs: 5 })).output).toEqual({ ok: true });
    // The clock stopped at the job's end, not at its 30-minute expiry: the result is still there.
    expect((await job.status()).status).toBe('COMPLETED');
    expect(emulator.clock.mode).toBe('auto');
    emulator.dispose();
  });
});

describe('dispose()', () => {
  it('ends pending sleeps on the real clock, and later sleeps reject', async () => {
    const emulator = createEmulator();
    const pending = emulator.clock.sleep(3_600_000);
    emulator.dispose();
    await expect(pending).rejects.toThrow('disposed');
    await expect(emulator.clock.sleep(10)).rejects.toThrow('disposed');
    emulator.dispose();
  });

  it('ends a pending latency fault (real time): the request it held is answered 503 at once, and starts nothing', async () => {
    const emulator = createEmulator({ apiKeys: ['rpa_k'] });
    emulator.faults.inject({ match: 'GET /v2/pods', fault: { type: 'latency', ms: 3_600_000 } });
    let settled = false;
    const answer = emulator.fetch(new Request('http://emulator.invalid/v2/pods', { headers: { authorization: 'Bearer rpa_k' } })).then((res) => {
      settled = true;
      return res;
    });
    await macrotasks();
    expect(settled).toBe(false);
    emulator.dispose();
    const res = await answer;
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'the emulator was disposed', status: 503 });
  });

  it('ends an auto clock too, so it no longer advances', async () => {
    const emulator = createEmulator({ clock: 'auto' });
    emulator.dispose();
    const start = emulator.clock.now();
    await expect(emulator.clock.sleep(1_000)).rejects.toThrow('disposed');
    await macrotasks();
    expect(emulator.clock.now()).toBe(start);
  });
});

describe('run() and load-balanced cold starts', () => {
  it('a call that rides out a cold start finishes under run()', async () => {
    const emulator = createEmulator({ clock: 'manual' });
    emulator.loadBalanced.define({ id: 'lb', coldStartMs: 30_000, routes: { 'GET /ping': () => ({ pong: true }) } });
    const rp = createRunpodClient({ ...emulator.clientOptions(), maxRetries: 5 });
    const start = emulator.clock.now();
    const answer = await emulator.clock.run(rp.loadBalanced(emulator.loadBalancedUrl('lb')).get('/ping'));
    expect(answer).toEqual({ pong: true });
    expect(emulator.clock.now() - start).toBe(30_000);
    emulator.dispose();
  });
});

describe('a registered worker', () => {
  it('is an endpoint under its own name in every account, like the built-ins', async () => {
    const emulator = createEmulator({ clock: 'auto', apiKeys: ['rpa_a', 'rpa_b'] });
    emulator.handlers.register('llm', async (input, ctx) => {
      await ctx.sleep(2_000);
      ctx.stream('thinking');
      return { reply: `you said ${(input as { prompt: string }).prompt}` };
    });
    emulator.accounts.add('rpa_c');
    for (const key of ['rpa_a', 'rpa_b', 'rpa_c']) {
      const rp = createRunpodClient(emulator.clientOptions(key));
      const done = await rp.endpoint('llm').runSync({ prompt: 'hi' });
      expect(done.output).toEqual({ reply: 'you said hi' });
    }
    emulator.dispose();
  });
});

import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { createClock, createEmulatorClock } from '../../src/emulator/clock.js';
import { createEmulator } from '../../src/emulator/index.js';
import { Platform } from '../../src/emulator/platform.js';
import { handlerEndpoint, ServerlessQueue } from '../../src/emulator/queue.js';

/**
 * The client idle in real time for `n` macrotasks, alternating timers and immediates, as it is
 * between two long-polls on a loaded machine. A clock that moves itself ticks once per macrotask,
 * so before the fix it hopped one 10 s sweep per tick: 400 ticks pass a /run result's 30 minutes.
 */
const idle = async (n = 400) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => (i % 2 ? setImmediate(resolve) : setTimeout(resolve, 0)));
};

const MINUTE = 60_000;

describe('passive sleeps: advance() wakes them, run() and auto never jump to them', () => {
  it('the base clock: nextDue() leaves passive sleepers out unless asked, advance() wakes every kind in order', async () => {
    const clock = createClock('manual');
    const start = clock.now();
    const woke: string[] = [];
    void clock.sleep(10_000, undefined, { passive: true }).then(() => woke.push('passive 10s'));
    void clock.sleep(25_000).then(() => woke.push('active 25s'));
    void clock.sleep(20_000, undefined, { passive: true }).then(() => woke.push('passive 20s'));
    void clock.sleep(30_000, undefined, { passive: true }).then(() => woke.push('passive 30s'));
    expect(clock.nextDue!()).toBe(start + 25_000);
    expect(clock.nextDue!({ passive: true })).toBe(start + 10_000);
    await clock.advance(30_000);
    expect(woke).toEqual(['passive 10s', 'passive 20s', 'active 25s', 'passive 30s']);
    expect(clock.nextDue!({ passive: true })).toBeUndefined();
  });

  it('run(): a passive sleep alone does not move time; on the way to an active one it wakes at its own time', async () => {
    const clock = createEmulatorClock('manual');
    const start = clock.now();
    let housekeptAt: number | undefined;
    const housekeeping = clock.sleep(10_000, undefined, { passive: true }).then(() => (housekeptAt = clock.now()));
    await clock.run(idle(50));
    expect(clock.now()).toBe(start);
    expect(housekeptAt).toBeUndefined();
    await clock.run(clock.sleep(25_000));
    expect(housekeptAt).toBe(start + 10_000);
    expect(clock.now()).toBe(start + 25_000);
    await housekeeping;
    clock.dispose();
  });

  it('run(): when housekeeping on the way settles what the jump was for, the clock stops there', async () => {
    const clock = createEmulatorClock('manual');
    const start = clock.now();
    const hold = new AbortController();
    // A hold of 60 s that a passive timer at 10 s ends early (as a sweep ends a queued job's hold).
    const held = clock.sleep(60_000, hold.signal).catch(() => 'ended early');
    void clock.sleep(10_000, undefined, { passive: true }).then(() => hold.abort());
    expect(await clock.run(held)).toBe('ended early');
    await clock.run(idle(20));
    expect(clock.now()).toBe(start + 10_000);
    clock.dispose();
  });

  it('auto: a passive sleep alone does not move time', async () => {
    const clock = createEmulatorClock('auto');
    const start = clock.now();
    let woke = false;
    void clock.sleep(10_000, undefined, { passive: true }).then(() => (woke = true), () => undefined);
    await idle(50);
    expect(clock.now()).toBe(start);
    expect(woke).toBe(false);
    await clock.advance(10_000);
    expect(woke).toBe(true);
    clock.dispose();
  });
});

describe('the serverless sweeper is housekeeping: finished results outlive an idle client', () => {
  it('manual clock: a finished /run result is still there after an idle stretch inside run() (no hop from sweep to sweep to its expiry)', async () => {
    const emulator = createEmulator({ clock: 'manual' });
    try {
      const ep = createRunpodClient(emulator.clientOptions()).endpoint('sleep');
      const job = await ep.run({ ms: 1_000, output: 'kept' });
      const start = emulator.clock.now();
      const status = await emulator.clock.run(async () => {
        const done = await job.wait({ pollIntervalMs: 5 });
        expect(done.output).toBe('kept');
        // Only the sweeper is left on the clock: idling must not move time.
        await idle();
        return (await job.status()).status;
      });
      expect(status).toBe('COMPLETED');
      expect(emulator.clock.now() - start).toBe(1_000);
    } finally {
      emulator.dispose();
    }
  });

  it('manual clock: a /runsync result (kept 1 minute) is still there after an idle stretch inside run()', async () => {
    const emulator = createEmulator({ clock: 'manual' });
    try {
      const ep = createRunpodClient(emulator.clientOptions()).endpoint('sleep');
      const start = emulator.clock.now();
      const status = await emulator.clock.run(async () => {
        const sync = await ep.runSync({ ms: 2_000, output: 7 });
        expect(sync.output).toBe(7);
        await idle();
        return (await ep.job(sync.id).status()).status;
      });
      expect(status).toBe('COMPLETED');
      expect(emulator.clock.now() - start).toBe(2_000);
    } finally {
      emulator.dispose();
    }
  });

  it('manual clock: a job behind a busy worker, waited over several long-polls with idle pauses, ends with both results kept', async () => {
    const emulator = createEmulator({ clock: 'manual' });
    try {
      const id = emulator.endpoints.create({ handler: 'sleep', workers: { max: 1 } });
      const ep = createRunpodClient(emulator.clientOptions()).endpoint<{ ms: number; output: string }, string>(id);
      const first = await ep.run({ ms: 60_000, output: 'first' });
      const second = await ep.run({ ms: 1_000, output: 'second' });
      const start = emulator.clock.now();
      const done = await emulator.clock.run(async () => {
        // Short holds, so the wait spans several polls with a real pause (the poll interval) after each.
        const result = await second.wait({ holdMs: 15_000, pollIntervalMs: 20 });
        await idle();
        return result;
      });
      expect(done).toMatchObject({ status: 'COMPLETED', output: 'second', delayTime: 60_500 });
      expect(emulator.clock.now() - start).toBe(61_500);
      expect((await first.status()).status).toBe('COMPLETED');
    } finally {
      emulator.dispose();
    }
  });

  it('auto clock: a finished result is still there after an idle stretch', async () => {
    const emulator = createEmulator({ clock: 'auto' });
    try {
      const ep = createRunpodClient(emulator.clientOptions()).endpoint('sleep');
      const job = await ep.run({ ms: 90_000, output: 'kept' });
      const start = emulator.clock.now();
      expect((await job.wait({ pollIntervalMs: 5 })).output).toBe('kept');
      await idle();
      expect((await job.status()).status).toBe('COMPLETED');
      expect(emulator.clock.now() - start).toBe(90_000);
    } finally {
      emulator.dispose();
    }
  });

  for (const mode of ['manual', 'auto'] as const) {
    it(`${mode} clock: time moved by hand past the retention still sweeps the results out of memory, in order`, async () => {
      const clock = createEmulatorClock(mode);
      const platform = new Platform({ clock });
      const account = platform.addAccount('rpa_sweep');
      const queue = new ServerlessQueue({ clock });
      const echo = handlerEndpoint('echo', clock.now());
      try {
        queue.submit(account, echo, { input: 'run' }, false);
        queue.submit(account, echo, { input: 'runsync' }, true);
        await clock.advance(0);
        expect(queue.size).toBe(2);
        // Nobody reads them: only the sweeper frees them, and nothing made the clock jump there.
        await idle(50);
        expect(queue.size).toBe(2);
        // The /runsync result goes with the first sweep past its minute, the /run one with the first past 30.
        await clock.advance(MINUTE + 10_000);
        expect(queue.size).toBe(1);
        await clock.advance(29 * MINUTE - 10_000);
        expect(queue.size).toBe(1);
        await clock.advance(10_000);
        expect(queue.size).toBe(0);
      } finally {
        queue.dispose();
        clock.dispose();
      }
    });
  }
});

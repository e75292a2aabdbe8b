// Issue 43: what a long mixed run leaves in the emulator once its results expire, counted
// structure by structure (never by heap figures: those are the bench's `soak` section). Each bound
// is also checked alone, on the structure it bounds, with a count main exceeds.
import { describe, expect, it } from 'vitest';
import { createEmulatorClock } from '../../src/emulator/clock.js';
import { createEmulator, EMULATOR_API_KEY, IN_PROCESS_BASE, type EmulatorRetained } from '../../src/emulator/index.js';
import { FaultInjector } from '../../src/emulator/faults.js';
import { MAX_CLOSED_SEGMENTS, MAX_POD_LOG_LINES, Platform } from '../../src/emulator/platform.js';
import { handlerEndpoint, PUBLIC_ENDPOINT_WORKERS, ServerlessQueue } from '../../src/emulator/queue.js';
import { podBilling } from '../../src/emulator/billing.js';
import { soakClient, soakMix } from './soak-mix.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const auth = { authorization: `Bearer ${EMULATOR_API_KEY}`, 'content-type': 'application/json' };

/** What must be back to its start once every result has expired: everything a job, a request or a fault leaves. */
const PER_CALL: Array<keyof EmulatorRetained> = ['jobs', 'jobInputs', 'finished', 'waitingQueues', 'jobListeners', 'timers', 'workerTimers', 'sleeps', 'holds', 'faultRules', 'rateBuckets', 'pods', 'podLogLines', 'logListeners'];
const pick = (r: EmulatorRetained) => Object.fromEntries(PER_CALL.map((k) => [k, r[k]]));

describe('soak retention: after a mixed run through the client and every result\'s expiry, the emulator keeps what it kept at the start', () => {
  it('200 rounds (2,000+ calls, 800 jobs, pods, faults, 404s), workers idling out between batches: every per-call structure is back to its start, the bill grew by the hour', async () => {
    const emulator = createEmulator({ clock: 'manual', restRateLimitPerMinute: 1e9, maxRetainedResults: 500, serverlessLimits: { routes: { cancel: false } } });
    const rp = soakClient(emulator.clientOptions());
    const soak = soakMix(rp, emulator);
    try {
      // A warm-up, then its results expire: the start is an emulator that has served this mix before.
      await soak.rounds(0, 60, 20);
      await emulator.clock.advance(31 * MINUTE);
      const start = emulator.inspect.retained();
      expect(start).toMatchObject({ jobs: 0, finished: 0, holds: 0, sleeps: 0, timers: 0, faultRules: 0, pods: 0 });
      const atStartOfHour = Math.floor(emulator.clock.now() / HOUR);

      await soak.rounds(60, 260, 20);
      const atEnd = emulator.inspect.retained();
      // Kept by count while the soak runs: no more finished results than maxRetainedResults.
      expect(atEnd.finished).toBeLessThanOrEqual(500);
      // Only a job that may still run keeps its input: the completed and cancelled ones let it go.
      expect(atEnd.jobInputs).toBe(atEnd.jobs - atEnd.finished);
      expect(atEnd.workers).toBeLessThanOrEqual(atEnd.workerPools * PUBLIC_ENDPOINT_WORKERS);

      await emulator.clock.advance(31 * MINUTE);
      const after = emulator.inspect.retained();
      expect(pick(after)).toEqual(pick(start));
      expect(after.workers).toBeLessThanOrEqual(after.workerPools * PUBLIC_ENDPOINT_WORKERS);
      expect(after.workerPools).toBe(start.workerPools);
      // The serverless bill: one row per endpoint (echo, sleep, stream), GPU type and hour of use,
      // whatever the number of jobs and of workers that came and went (main: a row per worker, 200+ here).
      const hours = Math.floor(emulator.clock.now() / HOUR) - atStartOfHour + 1;
      expect(after.endpointCharges - start.endpointCharges).toBeLessThanOrEqual(3 * hours);
      expect(soak.counts.jobs).toBe(260 * 4);
    } finally {
      emulator.dispose();
    }
  });

  it('the serverless bill keeps one row per endpoint and hour, not one per worker: 300 jobs, each on a fresh worker, in one hour', async () => {
    const clock = createEmulatorClock('manual');
    const platform = new Platform({ clock });
    const account = platform.addAccount('rpa_churn');
    const queue = new ServerlessQueue({ clock, lifetime: platform.lifetime });
    const endpoint = handlerEndpoint('sleep', clock.now());
    try {
      for (let i = 0; i < 300; i++) {
        queue.submit(account, endpoint, { input: { ms: 1_000 } }, false);
        // Past the idle time-out (5 s): the next job's worker is a new one.
        await clock.advance(7_000);
        queue.workers.workers(account, endpoint);
      }
      await clock.advance(10_000);
      // 35 minutes: at most two hours touched.
      expect(account.endpointCharges.length).toBeLessThanOrEqual(2);
      expect(account.endpointCharges.reduce((ms, c) => ms + c.timeBilledMs, 0)).toBe(300 * 1_000);
    } finally {
      queue.dispose();
      clock.dispose();
    }
  });

  it('a finished job keeps its input only while it may run again (FAILED or TIMED_OUT, for /retry)', async () => {
    const emulator = createEmulator({ clock: 'manual' });
    const run = (handler: string, input: unknown) => emulator.fetch(new Request(`${IN_PROCESS_BASE}/queue/v2/${handler}/run`, { method: 'POST', headers: auth, body: JSON.stringify({ input }) }));
    try {
      for (let i = 0; i < 5; i++) await run('echo', { big: 'x'.repeat(1_000) });
      await run('fail', { message: 'no' });
      await emulator.clock.advance(1_000);
      expect(emulator.inspect.retained()).toMatchObject({ jobs: 6, finished: 6, jobInputs: 1 });
    } finally {
      emulator.dispose();
    }
  });

  it('an endpoint created, used and deleted leaves no rate bucket, worker pool or job behind: 30 of them through the client', async () => {
    const emulator = createEmulator({ clock: 'manual' });
    const rp = soakClient(emulator.clientOptions());
    try {
      const start = emulator.inspect.retained();
      for (let i = 0; i < 30; i++) {
        const endpoint = await rp.rest.endpoints.create({ name: `churn-${i}`, type: 'QUEUE', image: 'me/echo:1', scaling: { type: 'QUEUE_DELAY', queueDelay: 4 }, workers: { min: 0, max: 1 } } as never);
        const ep = rp.endpoint(endpoint.id);
        await emulator.clock.run(ep.runSync({ i }));
        await ep.health();
        await rp.rest.endpoints.delete(endpoint.id);
      }
      const after = emulator.inspect.retained();
      // Main kept each deleted endpoint's rate buckets (runsync, status): 60 here.
      expect(after.rateBuckets).toBe(start.rateBuckets);
      expect(after.workerPools).toBe(start.workerPools);
      expect(after.jobs).toBe(0);
    } finally {
      emulator.dispose();
    }
  });

  it('on the real clock the sweep of expired results runs on emulator time: at timeScale 10,000 a result is freed within moments of its expiry, not 10 wall-clock seconds later', async () => {
    // 30 minutes of emulator time are 180 ms here; the sweep every 10 s of emulator time is 1 ms.
    const emulator = createEmulator({ clock: 'real', timeScale: 10_000 });
    try {
      const res = await emulator.fetch(new Request(`${IN_PROCESS_BASE}/queue/v2/echo/run`, { method: 'POST', headers: auth, body: JSON.stringify({ input: 1 }) }));
      expect(res.status).toBe(200);
      // Waiting longer than needed is harmless (a late timer only frees later): 31 emulator minutes, twice over.
      for (let waited = 0; waited < 2_000 && emulator.inspect.retained().jobs > 0; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      // Main swept every 10 wall-clock seconds: the job was still kept after 2 s (200 emulator minutes).
      expect(emulator.inspect.retained()).toMatchObject({ jobs: 0, timers: 0 });
    } finally {
      emulator.dispose();
    }
  });

  it('used-up fault rules leave the injector (their hits() still count): 1,000 faults of one use each keep nothing', () => {
    const faults = new FaultInjector();
    const handles = Array.from({ length: 1_000 }, () => faults.inject({ match: 'GET /v2/pods', fault: { type: 'status', status: 500 } }));
    for (let i = 0; i < 1_000; i++) expect(faults.take('GET', '/v2/pods', undefined)).toBeDefined();
    expect(faults.take('GET', '/v2/pods', undefined)).toBeUndefined();
    expect(faults.active).toBe(false);
    expect((faults as unknown as { rules: unknown[] }).rules).toHaveLength(0);
    expect(handles.every((h) => h.hits() === 1)).toBe(true);
    faults.inject({ match: 'GET /v2/pods', fault: { type: 'drop' }, times: 0 });
    expect(faults.active).toBe(false);
  });

  it(`a pod keeps its last ${MAX_POD_LOG_LINES.toLocaleString('en')} log lines however often it restarts`, async () => {
    const clock = createEmulatorClock('manual');
    const platform = new Platform({ clock, podStartupMs: 10 });
    const account = platform.addAccount('rpa_logs');
    try {
      const pod = platform.deploy(account, { imageName: 'runpod/base:0.6.2-cuda12.4.1', gpuTypeIds: ['NVIDIA RTX A4000'] });
      for (let i = 0; i < 3_000; i++) {
        await clock.advance(20);
        platform.restartPod(account, pod.id);
      }
      await clock.advance(20);
      const lines = platform.podLogs(pod);
      expect(lines).toHaveLength(MAX_POD_LOG_LINES);
      // The newest stay, in order.
      expect(lines.at(-1)!.line).toMatch(/container started/);
      expect(lines.every((l, i) => i === 0 || l.ts >= lines[i - 1]!.ts)).toBe(true);
    } finally {
      clock.dispose();
    }
  });

  it(`past ${MAX_CLOSED_SEGMENTS.toLocaleString('en')} closed billing segments, the oldest fold by the hour: the count stays bounded, the totals by GPU type stay exact`, async () => {
    const clock = createEmulatorClock('manual');
    const platform = new Platform({ clock });
    const account = platform.addAccount('rpa_bill');
    const gpuTypes = ['NVIDIA RTX A4000', 'NVIDIA GeForce RTX 4090'];
    const totals = () => {
      const rows = podBilling(account, { bucketSize: 'day', startTime: '2026-11-01T00:00:00Z' }, clock.now());
      return gpuTypes.map((g) => rows.filter((r) => r.gpuTypeId === g).reduce((sum, r) => sum + (r.amount as number), 0));
    };
    try {
      // No volume: one segment per pod, so each pod's charge is its GPU time alone.
      const expected = gpuTypes.map(() => 0);
      const pods = MAX_CLOSED_SEGMENTS + 2_000;
      for (let i = 0; i < pods; i++) {
        const pod = platform.deploy(account, { imageName: 'runpod/base:0.6.2-cuda12.4.1', gpuTypeIds: [gpuTypes[i % 2]!], volumeInGb: 0 });
        const perHour = platform.podCostPerHr(pod);
        await clock.advance(61_000);
        platform.terminatePod(account, pod.id);
        expected[i % 2]! += (perHour * 61_000) / HOUR;
        if (i === 100) expect(account.segments).toHaveLength(101);
      }
      // Main keeps one per pod (12,000 here).
      expect(account.segments.length).toBeLessThanOrEqual(MAX_CLOSED_SEGMENTS);
      const got = totals();
      for (let g = 0; g < gpuTypes.length; g++) expect(got[g]!).toBeCloseTo(expected[g]!, 3);
      // The newest pods keep their own rows: billing by pod still answers them.
      const rows = podBilling(account, { grouping: 'podId', bucketSize: 'day', startTime: '2026-11-01T00:00:00Z' }, clock.now());
      expect(rows.filter((r) => r.podId !== undefined).length).toBeGreaterThanOrEqual(MAX_CLOSED_SEGMENTS / 2);
    } finally {
      clock.dispose();
    }
  });
});

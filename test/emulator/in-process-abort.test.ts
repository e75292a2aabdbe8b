import { afterEach, describe, expect, it } from 'vitest';
import { AbortError, createRunpodClient, JobTimedOutError, TimeoutError } from '../../src/index.js';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';

// Under the manual clock nothing the emulator holds ends by itself: only the client's own
// (real) timers and signals can end these calls, and they must, through `emulator.fetch`.
let emulator: Emulator | undefined;
afterEach(() => {
  emulator?.dispose();
  emulator = undefined;
});

const manual = () => {
  emulator = createEmulator({ clock: 'manual' });
  return { emulator, rp: createRunpodClient(emulator.clientOptions()) };
};

async function timed<T>(work: Promise<T>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await work;
    return { error: undefined, ms: Date.now() - started };
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
}

describe('emulator.fetch honours the request signal (manual clock, no clock.run)', () => {
  it('job.wait({ timeoutMs: 1000 }) ends at its deadline with JobTimedOutError', async () => {
    const { emulator, rp } = manual();
    const ep = rp.endpoint('sleep');
    const job = await ep.run({ ms: 60_000 });
    const startedAt = emulator.clock.now();
    const { error, ms } = await timed(job.wait({ timeoutMs: 1000 }));
    expect(error).toBeInstanceOf(JobTimedOutError);
    expect((error as JobTimedOutError).source).toBe('deadline');
    expect((error as JobTimedOutError).jobId).toBe(job.id);
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(3000);
    // Time did not move: the deadline was the client's, on its own timers.
    expect(emulator.clock.now()).toBe(startedAt);
  });

  it('runSync(input, { timeoutMs: 1000 }) ends at its deadline with JobTimedOutError', async () => {
    const { rp } = manual();
    const { error, ms } = await timed(rp.endpoint('sleep').runSync({ ms: 60_000 }, { timeoutMs: 1000 }));
    expect(error).toBeInstanceOf(JobTimedOutError);
    expect((error as JobTimedOutError).source).toBe('deadline');
    expect((error as JobTimedOutError).timeoutMs).toBe(1000);
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(3000);
  });

  it('job.stream({ timeoutMs: 1000 }) ends at its deadline with JobTimedOutError', async () => {
    const { rp } = manual();
    const ep = rp.endpoint('stream');
    const job = await ep.run({ chunks: 3, intervalMs: 60_000 });
    const read = (async () => {
      for await (const _chunk of job.stream({ timeoutMs: 1000 })) {
        // No chunk comes: the clock stands still.
      }
    })();
    const { error, ms } = await timed(read);
    expect(error).toBeInstanceOf(JobTimedOutError);
    expect(ms).toBeLessThan(3000);
  });

  it('the caller’s signal ends a held long-poll with AbortError', async () => {
    const { rp } = manual();
    const job = await rp.endpoint('sleep').run({ ms: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const { error, ms } = await timed(job.wait({ signal: controller.signal }));
    expect(error).toBeInstanceOf(AbortError);
    expect(ms).toBeLessThan(2000);
  });

  it('a per-attempt timeout cuts a latency fault short with TimeoutError', async () => {
    const { emulator, rp } = manual();
    emulator.faults.inject({ match: 'GET /v2/pods', fault: { type: 'latency', ms: 60_000 } });
    const { error, ms } = await timed(rp.rest.pods.list(undefined, { timeoutMs: 200, maxRetries: 0 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(ms).toBeLessThan(2000);
  });

  it('a create whose answer is held past the time limit ends in time, and the client finds the pod', async () => {
    const { emulator, rp } = manual();
    emulator.faults.inject({ match: 'POST /v2/pods', fault: { type: 'hang-after-create', ms: 5_000 } });
    const started = Date.now();
    const pod = await rp.rest.pods.create({ name: 'held', image: 'img:1', gpu: { id: 'NVIDIA RTX A4000' } }, { timeoutMs: 300, markerLookup: { attempts: 1, intervalMs: 1 } });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(emulator.inspect.pod(pod.id)?.desiredStatus).toBe('RUNNING');
    expect(emulator.inspect.podCount()).toBe(1);
  });

  it('a raw request aborted while held rejects as fetch does, and its hold ends', async () => {
    const { emulator } = manual();
    const options = emulator.clientOptions();
    const headers = { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' };
    const submitted = await emulator.fetch(new Request(`${options.serverlessUrl}/sleep/run`, { method: 'POST', headers, body: JSON.stringify({ input: { ms: 60_000 } }) }));
    const { id } = (await submitted.json()) as { id: string };
    const controller = new AbortController();
    const held = emulator.fetch(new Request(`${options.serverlessUrl}/sleep/status-sync/${id}?wait=300000`, { headers, signal: controller.signal }));
    controller.abort();
    await expect(held).rejects.toMatchObject({ name: 'AbortError' });
    // Already aborted before it is served: rejected at once.
    await expect(emulator.fetch(new Request(`${options.serverlessUrl}/sleep/health`, { headers, signal: AbortSignal.abort() }))).rejects.toMatchObject({ name: 'AbortError' });
    // The abandoned hold left no sleeper: moving the clock past it wakes only the job itself.
    const status = await emulator.fetch(new Request(`${options.serverlessUrl}/sleep/status/${id}`, { headers }));
    expect(((await status.json()) as { status: string }).status).toMatch(/IN_QUEUE|IN_PROGRESS/);
  });
});

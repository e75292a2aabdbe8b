import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { createEmulator, type EmulatorEndpointSpec } from '../../src/emulator/index.js';
import { KEY_A, KEY_B, settle, wireEmulator } from './serverless-wire.js';

const SECOND = 1000;
const HOUR = 3_600_000;

type Summary = { running: number; idle: number; initializing: number; throttled: number; unhealthy: number; total: number };

/** An emulator on the manual clock with one endpoint of KEY_A, and what its pool and jobs look like. */
function poolOf(spec: EmulatorEndpointSpec, options: Parameters<typeof wireEmulator>[0] = {}) {
  const wire = wireEmulator(options);
  const id = wire.emulator.endpoints.create(spec);
  const restUrl = wire.emulator.clientOptions(KEY_A).restUrl;
  const rest = (method: string, path: string, json?: unknown, key = KEY_A) => wire.send(`${restUrl}${path}`, { method, key, ...(json !== undefined && { json }) });
  const health = async () => (await wire.call('GET', `/${id}/health`)).body as { jobs: Record<string, number>; workers: Record<string, number> };
  const workers = async () => (await rest('GET', `/serverless/${id}/workers`)).body as { workers: Array<{ id: string; status: string; startedAt: string }>; summary: Summary };
  const status = async (jobId: string) => (await wire.call('GET', `/${id}/status/${jobId}`)).body as { status: string; delayTime?: number; executionTime?: number };
  /** `/health` and the REST v2 workers list agree, and the counts add up to the total. */
  const checkPool = async () => {
    const [h, w] = [await health(), await workers()];
    const s = w.summary;
    expect(s.running + s.idle + s.initializing + s.throttled + s.unhealthy).toBe(s.total);
    expect(w.workers).toHaveLength(s.total);
    expect({ running: h.workers.running, idle: h.workers.idle, initializing: h.workers.initializing, throttled: h.workers.throttled, unhealthy: h.workers.unhealthy }).toEqual({
      running: s.running,
      idle: s.idle,
      initializing: s.initializing,
      throttled: s.throttled,
      unhealthy: s.unhealthy,
    });
    // A running worker holds exactly one job.
    expect(h.jobs.inProgress).toBe(s.running);
    return { health: h, summary: s, workers: w.workers };
  };
  /** `/run`'s own answer. */
  const submit = async (input: unknown) => (await wire.call('POST', `/${id}/run`, { json: { input } })).body as { id: string; status: string };
  return { ...wire, id, rest, health, workers, status, checkPool, submit };
}

describe('workers take jobs from a real queue', () => {
  it('/run answers IN_QUEUE; with workers.max 2 and 6 jobs, at most 2 run at once, and delayTime grows with the queue', async () => {
    const { submit, emulator, status, checkPool } = poolOf({ handler: 'sleep', workers: { max: 2 }, scaling: { type: 'REQUEST_COUNT', requestCount: 1 } });
    const jobs: string[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await submit({ ms: 10 * SECOND, output: i });
      expect(answer.status).toBe('IN_QUEUE');
      jobs.push(answer.id);
    }
    let most = 0;
    // Every half second until all are done: the invariant holds at every step.
    for (let t = 0; t <= 32 * SECOND; t += 500) {
      const { health, summary } = await checkPool();
      expect(summary.total).toBeLessThanOrEqual(2);
      expect(health.jobs.inProgress).toBeLessThanOrEqual(2);
      most = Math.max(most, health.jobs.inProgress!);
      await emulator.clock.advance(500);
    }
    expect(most).toBe(2);
    const done = await Promise.all(jobs.map(status));
    expect(done.map((j) => j.status)).toEqual(Array(6).fill('COMPLETED'));
    // Two at a time after a 500 ms cold start: each pair waits 10 s longer than the one before.
    expect(done.map((j) => j.delayTime)).toEqual([500, 500, 10_500, 10_500, 20_500, 20_500]);
    expect(done.map((j) => j.executionTime)).toEqual(Array(6).fill(10_000));
  });

  it('/purge-queue removes exactly the 4 waiting jobs; the 2 running ones finish', async () => {
    const { id, run, call, emulator, status, checkPool } = poolOf({ handler: 'sleep', workers: { max: 2 }, scaling: { type: 'REQUEST_COUNT', requestCount: 1 } });
    const jobs: string[] = [];
    for (let i = 0; i < 6; i++) jobs.push(await run(id, { ms: 10 * SECOND }));
    await emulator.clock.advance(500);
    expect((await checkPool()).health.jobs).toMatchObject({ inProgress: 2, inQueue: 4 });
    expect((await call('POST', `/${id}/purge-queue`)).body).toEqual({ removed: 4, status: 'completed' });
    expect((await checkPool()).health.jobs).toMatchObject({ inProgress: 2, inQueue: 0 });
    expect((await call('POST', `/${id}/purge-queue`)).body).toEqual({ removed: 0, status: 'completed' });
    await emulator.clock.advance(10 * SECOND);
    const states = await Promise.all(jobs.map(async (job) => (await call('GET', `/${id}/status/${job}`)).status));
    expect(states).toEqual([200, 200, 404, 404, 404, 404]);
    expect((await status(jobs[0]!)).status).toBe('COMPLETED');
    expect((await checkPool()).summary).toMatchObject({ running: 0, idle: 2, total: 2 });
  });

  it('/run answers IN_QUEUE on an endpoint whose only worker is busy; the job starts when the worker is free', async () => {
    const { id, run, submit, emulator, status, checkPool } = poolOf({ handler: 'sleep', workers: { min: 1, max: 1 } });
    await emulator.clock.advance(500);
    expect((await checkPool()).summary).toMatchObject({ idle: 1, total: 1 });
    const first = await run(id, { ms: 5 * SECOND });
    await settle();
    expect((await status(first)).status).toBe('IN_PROGRESS');
    const answer = await submit({ ms: 1 });
    expect(answer.status).toBe('IN_QUEUE');
    await emulator.clock.advance(4_999);
    expect((await status(answer.id)).status).toBe('IN_QUEUE');
    await emulator.clock.advance(1);
    expect(await status(answer.id)).toMatchObject({ status: 'IN_PROGRESS', delayTime: 5_000 });
    expect((await checkPool()).summary).toMatchObject({ running: 1, total: 1 });
  });

  it('a cancelled running job frees its worker for the next one', async () => {
    const { id, run, call, emulator, status } = poolOf({ handler: 'sleep', workers: { max: 1 } });
    const first = await run(id, { ms: HOUR });
    const second = await run(id, { ms: 1_000, output: 'second' });
    await emulator.clock.advance(500);
    expect((await status(second)).status).toBe('IN_QUEUE');
    await emulator.clock.advance(1_000);
    await call('POST', `/${id}/cancel/${first}`);
    await settle();
    expect(await status(second)).toMatchObject({ status: 'IN_PROGRESS', delayTime: 1_500 });
    await emulator.clock.advance(1_000);
    expect(await status(second)).toMatchObject({ status: 'COMPLETED' });
  });

  it('workers.max 0 runs nothing: jobs wait', async () => {
    const { id, run, emulator, status, checkPool } = poolOf({ handler: 'echo', workers: { max: 0 } });
    const job = await run(id, 1);
    await emulator.clock.advance(HOUR);
    expect((await status(job)).status).toBe('IN_QUEUE');
    expect((await checkPool()).summary.total).toBe(0);
  });
});

describe('cold starts, flashboot and idle time-outs', () => {
  it('a cold start appears in the workers list (INITIALIZING, then IDLE, then RUNNING) and in delayTime', async () => {
    const { id, run, emulator, status, checkPool } = poolOf({ handler: 'sleep', workers: { max: 1 } }, { coldStartMs: 3_000 });
    const created = emulator.clock.now();
    const job = await run(id, { ms: 1_000 });
    await settle();
    const cold = await checkPool();
    expect(cold.summary).toMatchObject({ initializing: 1, total: 1 });
    expect(cold.workers[0]).toMatchObject({ status: 'INITIALIZING', startedAt: new Date(created).toISOString() });
    expect(await status(job)).toMatchObject({ status: 'IN_QUEUE', delayTime: 0 });
    await emulator.clock.advance(2_999);
    expect((await checkPool()).summary).toMatchObject({ initializing: 1 });
    await emulator.clock.advance(1);
    const warm = await checkPool();
    expect(warm.workers[0]).toMatchObject({ id: cold.workers[0]!.id, status: 'RUNNING' });
    expect(await status(job)).toMatchObject({ status: 'IN_PROGRESS', delayTime: 3_000 });
    await emulator.clock.advance(1_000);
    expect(await status(job)).toMatchObject({ status: 'COMPLETED', delayTime: 3_000, executionTime: 1_000 });
    expect((await checkPool()).summary).toMatchObject({ idle: 1, total: 1 });
  });

  it('flashboot shortens the cold start; an endpoint may set its own', async () => {
    const options = { coldStartMs: 8_000, flashbootColdStartMs: 1_000 };
    for (const [spec, delay] of [
      [{ handler: 'echo' }, 8_000],
      [{ handler: 'echo', flashboot: 'FLASHBOOT' }, 1_000],
      [{ handler: 'echo', flashboot: 'PRIORITY_FLASHBOOT' }, 1_000],
      [{ handler: 'echo', coldStartMs: 250 }, 250],
    ] as const) {
      const { id, run, emulator, status } = poolOf(spec, options);
      const job = await run(id, 'x');
      await emulator.clock.advance(delay - 1);
      expect((await status(job)).status, JSON.stringify(spec)).toBe('IN_QUEUE');
      await emulator.clock.advance(1);
      expect(await status(job), JSON.stringify(spec)).toMatchObject({ status: 'COMPLETED', delayTime: delay });
      emulator.dispose();
    }
  });

  it('an idle worker goes after idleTimeout seconds, and the next job starts cold again; workers.min stay', async () => {
    const { id, run, emulator, status, checkPool } = poolOf({ handler: 'echo', workers: { min: 0, max: 2, idleTimeout: 5 } });
    await run(id, 1);
    await emulator.clock.advance(500);
    expect((await checkPool()).summary).toMatchObject({ idle: 1, total: 1 });
    await emulator.clock.advance(4_999);
    expect((await checkPool()).summary).toMatchObject({ idle: 1, total: 1 });
    await emulator.clock.advance(1);
    expect((await checkPool()).summary.total).toBe(0);
    const again = await run(id, 2);
    await emulator.clock.advance(500);
    expect(await status(again)).toMatchObject({ status: 'COMPLETED', delayTime: 500 });

    const { id: kept, emulator: other, checkPool: keptPool } = poolOf({ handler: 'echo', workers: { min: 1, max: 2, idleTimeout: 1 } });
    expect((await keptPool()).summary).toMatchObject({ initializing: 1, total: 1 });
    await other.clock.advance(HOUR);
    expect((await keptPool()).summary).toMatchObject({ idle: 1, total: 1 });
    expect(kept).toMatch(/^[a-z0-9]{14}$/);
  });
});

describe('the scaler follows scaling', () => {
  it('QUEUE_DELAY: a first worker at once, another once jobs have waited queueDelay seconds', async () => {
    const { id, run, emulator, checkPool } = poolOf({ handler: 'sleep', workers: { max: 3 }, scaling: { type: 'QUEUE_DELAY', queueDelay: 4 } });
    for (let i = 0; i < 3; i++) await run(id, { ms: HOUR });
    await settle();
    expect((await checkPool()).summary).toMatchObject({ initializing: 1, total: 1 });
    await emulator.clock.advance(3_999);
    expect((await checkPool()).summary).toMatchObject({ running: 1, total: 1 });
    // The two left have waited 4 s: a worker each.
    await emulator.clock.advance(1);
    expect((await checkPool()).summary).toMatchObject({ running: 1, initializing: 2, total: 3 });
    await emulator.clock.advance(500);
    expect((await checkPool()).summary).toMatchObject({ running: 3, total: 3 });
  });

  it('REQUEST_COUNT: one worker per requestCount jobs, up to workers.max', async () => {
    const { id, run, emulator, checkPool } = poolOf({ handler: 'sleep', workers: { max: 10 }, scaling: { type: 'REQUEST_COUNT', requestCount: 3 } });
    for (let i = 0; i < 7; i++) await run(id, { ms: HOUR });
    await settle();
    expect((await checkPool()).summary).toMatchObject({ initializing: 3, total: 3 });
    await emulator.clock.advance(500);
    expect((await checkPool()).health.jobs).toMatchObject({ inProgress: 3, inQueue: 4 });
  });

  it('REST v2: workers.min starts workers at creation, a PATCH raises or lowers them, DELETE ends them', async () => {
    const { rest, send, emulator } = poolOf({ handler: 'echo' });
    const created = await rest('POST', '/serverless', { name: 'warm', type: 'QUEUE', image: 'me/echo:1', scaling: { type: 'QUEUE_DELAY', queueDelay: 4 }, workers: { min: 2, max: 3 }, flashboot: 'FLASHBOOT' });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const summary = async () => ((await rest('GET', `/serverless/${id}/workers`)).body as { summary: Summary }).summary;
    expect(await summary()).toMatchObject({ initializing: 2, total: 2 });
    await emulator.clock.advance(100);
    expect(await summary()).toMatchObject({ idle: 2, total: 2 });
    await rest('PATCH', `/serverless/${id}`, { workers: { min: 3 } });
    expect(await summary()).toMatchObject({ idle: 2, initializing: 1, total: 3 });
    await rest('PATCH', `/serverless/${id}`, { workers: { min: 0, max: 1 } });
    expect(await summary()).toMatchObject({ total: 1 });
    const serverlessUrl = emulator.clientOptions(KEY_A).serverlessUrl;
    expect((await send(`${serverlessUrl}/${id}/runsync`, { method: 'POST', json: { input: 'hi' } })).body).toMatchObject({ status: 'COMPLETED', output: 'hi' });
    expect((await rest('DELETE', `/serverless/${id}`)).status).toBe(204);
    expect((await send(`${serverlessUrl}/${id}/health`)).status).toBe(404);
  });
});

describe('an account owns only what it created', () => {
  it('a fresh account lists 0 endpoints; endpoints.create gives one to the account it names', async () => {
    const { rest, emulator } = poolOf({ handler: 'echo', apiKey: KEY_A });
    emulator.accounts.add('rpa_fresh_account');
    expect((await rest('GET', '/serverless', undefined, 'rpa_fresh_account')).body).toEqual({ endpoints: [], pagination: { nextCursor: null, hasNextPage: false } });
    expect((await rest('GET', '/serverless', undefined, KEY_B)).body).toEqual({ endpoints: [], pagination: { nextCursor: null, hasNextPage: false } });
    const mine = (await rest('GET', '/serverless')).body as { endpoints: Array<{ id: string; name: string; image: string }> };
    expect(mine.endpoints).toHaveLength(1);
    expect(mine.endpoints[0]).toMatchObject({ name: 'echo', image: 'emulator/echo:latest' });
    const theirs = emulator.endpoints.create({ handler: 'stream', apiKey: KEY_B, name: 'b-stream' });
    expect(((await rest('GET', '/serverless', undefined, KEY_B)).body as { endpoints: Array<{ id: string }> }).endpoints.map((e) => e.id)).toEqual([theirs]);
    expect((await rest('GET', `/serverless/${theirs}`)).status).toBe(404);
  });

  it('a handler is a public endpoint under its name: any account calls it, none owns it', async () => {
    const { rest, call, emulator } = poolOf({ handler: 'echo' });
    emulator.handlers.register('shout', (input) => String(input).toUpperCase());
    for (const key of [KEY_A, KEY_B]) {
      expect((await call('POST', '/shout/runsync', { json: { input: 'hi' }, key })).body).toMatchObject({ status: 'COMPLETED', output: 'HI', delayTime: 0 });
      expect((await rest('GET', '/serverless/shout', undefined, key)).status).toBe(404);
      expect((await rest('GET', '/serverless/echo', undefined, key)).status).toBe(404);
    }
    expect((await call('POST', '/nobody/runsync', { json: { input: 1 } })).status).toBe(404);
  });

  it('endpoints.create refuses an unknown handler, an unknown key and bad settings, and makes nothing then', async () => {
    const { emulator, send } = wireEmulator();
    expect(() => emulator.endpoints.create({ handler: 'nope' })).toThrow(/no handler named "nope"/);
    expect(() => emulator.endpoints.create({ handler: 'echo', apiKey: 'rpa_unknown' })).toThrow(/no account/);
    for (const workers of [{ min: 2, max: 1 }, { max: -1 }, { min: 0.5 }]) expect(() => emulator.endpoints.create({ handler: 'echo', workers })).toThrow(/workers\.min and workers\.max/);
    for (const idleTimeout of [0, 3601, 1.5]) expect(() => emulator.endpoints.create({ handler: 'echo', workers: { idleTimeout } })).toThrow(/idleTimeout/);
    expect(() => emulator.endpoints.create({ handler: 'echo', scaling: { type: 'QUEUE_DELAY', queueDelay: 0.1 } })).toThrow(/scaling/);
    expect(() => emulator.endpoints.create({ handler: 'echo', scaling: { type: 'REQUEST_COUNT', requestCount: 0 } })).toThrow(/scaling/);
    expect(() => emulator.endpoints.create({ handler: 'echo', coldStartMs: -1 })).toThrow(/coldStartMs/);
    const listed = async () => ((await send(`${emulator.clientOptions(KEY_A).restUrl}/serverless`)).body as { endpoints: Array<{ id: string }> }).endpoints.map((e) => e.id);
    expect(await listed()).toEqual([]);
    const made = emulator.endpoints.create({ handler: 'echo' });
    expect(await listed()).toEqual([made]);
  });
});

describe('through the client', () => {
  it('the auto clock reaches cold starts and queue delays: runSync and wait finish without advance()', async () => {
    const emulator = createEmulator({ clock: 'auto', coldStartMs: 30_000 });
    try {
      const id = emulator.endpoints.create({ handler: 'sleep', workers: { max: 2 }, scaling: { type: 'QUEUE_DELAY', queueDelay: 10 } });
      const ep = createRunpodClient(emulator.clientOptions()).endpoint<{ ms: number; output: string }, string>(id);
      const first = await ep.run({ ms: 120_000, output: 'long' });
      // The second job waits 10 s, then a second worker starts cold (30 s): 40 s in all.
      const second = await ep.runSync({ ms: 1_000, output: 'short' }, { pollIntervalMs: 10 });
      expect(second).toMatchObject({ status: 'COMPLETED', output: 'short', delayTime: 40_000 });
      expect(await first.wait({ pollIntervalMs: 10 })).toMatchObject({ output: 'long', delayTime: 30_000 });
    } finally {
      emulator.dispose();
    }
  });

  it('a job waits IN_QUEUE behind a busy worker, and clock.run() reaches every worker event', async () => {
    const { emulator } = wireEmulator();
    const id = emulator.endpoints.create({ handler: 'sleep', workers: { max: 1 } });
    const rp = createRunpodClient(emulator.clientOptions(KEY_A));
    const ep = rp.endpoint<{ ms: number; output: string }, string>(id);
    const first = await ep.run({ ms: 60_000, output: 'first' });
    const second = await ep.run({ ms: 1_000, output: 'second' });
    expect((await second.status()).status).toBe('IN_QUEUE');
    // Several long-polls (30 s holds), with the client idle in real time between them: clock.run()
    // jumps only to job steps and hold ends then, never on through sweeps to the results' expiry.
    const done = await emulator.clock.run(second.wait({ pollIntervalMs: 20 }));
    const endedAt = emulator.clock.now();
    await emulator.clock.run(new Promise((resolve) => setTimeout(resolve, 100)));
    expect(emulator.clock.now()).toBe(endedAt);
    expect(done).toMatchObject({ status: 'COMPLETED', output: 'second', delayTime: 60_500 });
    expect((await first.status()).status).toBe('COMPLETED');
    const health = await ep.health();
    expect(health.jobs).toMatchObject({ completed: 2, inProgress: 0, inQueue: 0 });
    expect(health.workers).toMatchObject({ running: 0, initializing: 0 });
    emulator.dispose();
  });
});

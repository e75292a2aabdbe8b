import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunpodClient, JobCancelledError, JobFailedError, JobTimedOutError, NotFoundError, ServerError } from '../../src/index.js';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { captureError } from '../helpers.js';
import { KEY_A, useEmulator } from './harness.js';

const ctx = useEmulator({ streamHoldMs: 500 });

describe('queue-based endpoints over loopback HTTP', () => {
  it('run + wait returns the typed output of the echo worker', async () => {
    const ep = ctx.client().endpoint<{ word: string }, { word: string }>('echo');
    const job = await ep.run({ word: 'hello' });
    const done = await job.wait({ pollIntervalMs: 20 });
    expect(done).toMatchObject({ id: job.id, status: 'COMPLETED', output: { word: 'hello' } });
  });

  it('runSync returns a job that outlives the server wait, by polling', async () => {
    const done = await ctx.client().endpoint('sleep').runSync({ ms: 1_300, output: 'late' }, { waitMs: 1_000, pollIntervalMs: 50 });
    expect(done.output).toBe('late');
  });

  it('stream yields every chunk in order', async () => {
    const job = await ctx.client().endpoint('stream').run({ chunks: ['a', 'b', 'c', 'd'], intervalMs: 30 });
    const seen: unknown[] = [];
    for await (const chunk of job.stream({ pollIntervalMs: 20 })) seen.push(chunk.output);
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
  });

  it('cancel during a wait ends it with JobCancelledError', async () => {
    const ep = ctx.client().endpoint('sleep');
    const job = await ep.run({ ms: 60_000 });
    const waiting = job.wait({ pollIntervalMs: 20 });
    await new Promise((r) => setTimeout(r, 60));
    expect((await job.cancel()).status).toBe('CANCELLED');
    const err = await captureError<JobCancelledError>(waiting);
    expect(err).toBeInstanceOf(JobCancelledError);
    expect(err.jobId).toBe(job.id);
  });

  it('a failing worker gives JobFailedError; retry requeues it under the same id', async () => {
    let calls = 0;
    ctx.emulator.handlers.register('flaky', () => {
      calls += 1;
      if (calls === 1) throw new Error('first try fails');
      return { ok: true };
    });
    const rp = ctx.client();
    const template = await rp.rest.templates.create({ name: 'flaky-worker', image: 'me/flaky:1', serverless: true });
    const created = await rp.rest.endpoints.create({ templateId: template.id, name: 'flaky', type: 'QUEUE', scaling: { type: 'QUEUE_DELAY', queueDelay: 4 }, gpu: { pools: ['ADA_24'] } });
    const ep = rp.endpoint(created.id);
    const job = await ep.run({});
    const err = await captureError<JobFailedError>(job.wait({ pollIntervalMs: 20 }));
    expect(err).toMatchObject({ jobId: job.id });
    expect(JSON.parse(err.error)).toMatchObject({ error_type: "<class 'Error'>", error_message: 'first try fails' });
    const again = await job.retry();
    expect(again.id).toBe(job.id);
    expect((await again.wait({ pollIntervalMs: 20 })).output).toEqual({ ok: true });
    expect((await ep.health()).jobs.retried).toBe(1);
  });

  it('fail worker straight through runSync', async () => {
    const err = await captureError<JobFailedError>(ctx.client().endpoint('fail').runSync({ message: 'bad input' }));
    expect(JSON.parse(err.error)).toMatchObject({ error_message: 'bad input', worker_id: expect.stringMatching(/^[a-z0-9]{14}$/) });
  });
});

describe('queue timing on the emulator clock', () => {
  const emulator = createEmulator({ clock: 'manual', apiKeys: [KEY_A], queueDelayMs: 5_000 });
  let server: ListeningEmulator;
  beforeAll(async () => {
    server = await listen(emulator);
  });
  afterAll(() => server.close());

  it('purge-queue removes queued jobs and health counts them', async () => {
    const ep = createRunpodClient(server.clientOptions()).endpoint('echo');
    await ep.run({ n: 1 });
    await ep.run({ n: 2 });
    expect((await ep.health()).jobs.inQueue).toBe(2);
    expect(await ep.purgeQueue()).toEqual({ removed: 2, status: 'completed' });
    expect((await ep.health()).jobs.inQueue).toBe(0);
  });

  it('policy.executionTimeout ends a job TIMED_OUT on the emulator clock', async () => {
    const job = await createRunpodClient(server.clientOptions()).endpoint('sleep').run({ ms: 60_000 }, { policy: { executionTimeout: 5_000 } });
    await emulator.clock.advance(5_000 + 4_999);
    expect((await job.status()).status).toBe('IN_PROGRESS');
    await emulator.clock.advance(1);
    const err = await captureError<JobTimedOutError>(job.wait());
    expect(err).toBeInstanceOf(JobTimedOutError);
    expect(err.source).toBe('platform');
  });

  it('results expire: 30 minutes after /run, then status is NotFoundError', async () => {
    const ep = createRunpodClient(server.clientOptions()).endpoint('echo');
    const job = await ep.run({ keep: true });
    await emulator.clock.advance(5_000);
    expect((await job.status()).status).toBe('COMPLETED');
    await emulator.clock.advance(29 * 60_000);
    expect((await job.status()).output).toEqual({ keep: true });
    await emulator.clock.advance(2 * 60_000);
    expect(await captureError(job.status())).toBeInstanceOf(NotFoundError);
  });
});

describe('load-balanced endpoints over loopback HTTP', () => {
  it('holds requests through the cold start, then serves the route', async () => {
    ctx.emulator.loadBalanced.define({
      id: 'lb-chat',
      coldStartMs: 600,
      routes: {
        'GET /ping': () => ({ pong: true }),
        'POST /v1/echo/:name': async (req, { params }) => ({ name: params.name, body: await req.json() }),
      },
    });
    const lb = ctx.client(KEY_A, { onRetry: () => undefined }).loadBalanced(ctx.server.loadBalancedUrl('lb-chat'));
    expect(await lb.post('/v1/echo/x', { json: {} })).toEqual({ name: 'x', body: {} });
    expect(await lb.get('/ping')).toEqual({ pong: true });
    expect(await lb.post('/v1/echo/ada', { json: { n: 1 } })).toEqual({ name: 'ada', body: { n: 1 } });
  });
});

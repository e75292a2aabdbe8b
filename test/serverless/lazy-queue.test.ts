// The serverless queue's calls load with the first call (src/serverless/queue-calls.ts): every
// method must work as the first call of a process, refuse bad input as before, and add nothing
// to a call once they are loaded.
import { describe, expect, it, vi } from 'vitest';
import { json, recordingFetch, TEST_API_KEY, type RecordedCall } from '../helpers.js';

type Api = typeof import('../../src/index.js');

/** The client's modules evaluated afresh: the queue's calls not loaded yet. */
async function fresh(): Promise<Api> {
  vi.resetModules();
  return import('../../src/index.js');
}

/** A queue endpoint that answers every route at once. */
function answering(call: RecordedCall): Response {
  const route = call.url.pathname.split('/')[3];
  switch (route) {
    case 'run':
      return json({ id: `job-${JSON.parse(call.body!).input.i}`, status: 'IN_QUEUE' });
    case 'stream':
      return json({ status: 'COMPLETED', stream: [{ output: 'a' }, { output: 'b' }] });
    case 'health':
      return json({ jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 }, workers: { idle: 1, running: 0 } });
    case 'purge-queue':
      return json({ removed: 2, status: 'completed' });
    default:
      return json({ id: 'job-1', status: 'COMPLETED', output: 'done' });
  }
}

async function client(options: Record<string, unknown> = {}) {
  const api = await fresh();
  const { fetch, calls } = recordingFetch(answering);
  const rp = api.createRunpodClient({ apiKey: TEST_API_KEY, fetch, ...options });
  return { api, calls, endpoint: rp.endpoint<{ i: number } | undefined, string, string>('ep') };
}

async function drain<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

describe('the serverless queue, loaded with its first call', () => {
  it.each([
    ['run', async (ep: Awaited<ReturnType<typeof client>>['endpoint']) => (await ep.run({ i: 1 })).id, 'job-1', 'POST /v2/ep/run'],
    ['runSync', async (ep) => (await ep.runSync({ i: 1 })).output, 'done', 'POST /v2/ep/runsync'],
    ['status', async (ep) => (await ep.status('job-1')).status, 'COMPLETED', 'GET /v2/ep/status/job-1'],
    ['job().status', async (ep) => (await ep.job('job-1').status()).status, 'COMPLETED', 'GET /v2/ep/status/job-1'],
    ['job().wait', async (ep) => (await ep.job('job-1').wait()).output, 'done', 'GET /v2/ep/status-sync/job-1'],
    ['stream', async (ep) => (await drain(ep.stream('job-1'))).map((c) => c.output).join(''), 'ab', 'GET /v2/ep/stream/job-1'],
    ['cancel', async (ep) => (await ep.cancel('job-1')).status, 'COMPLETED', 'POST /v2/ep/cancel/job-1'],
    ['retry', async (ep) => (await ep.retry('job-1')).id, 'job-1', 'POST /v2/ep/retry/job-1'],
    ['health', async (ep) => (await ep.health()).workers.idle, 1, 'GET /v2/ep/health'],
    ['purgeQueue', async (ep) => (await ep.purgeQueue()).removed, 2, 'POST /v2/ep/purge-queue'],
  ] as Array<[string, (ep: Awaited<ReturnType<typeof client>>['endpoint']) => Promise<unknown>, unknown, string]>)(
    '%s works as the first call of a process',
    async (_name, call, expected, request) => {
      const { endpoint, calls } = await client();
      expect(await call(endpoint)).toEqual(expected);
      expect(`${calls[0]?.method} ${calls[0]?.url.pathname}`).toBe(request);
    },
  );

  it('runs made before the load keep their order; bad ones are refused with the same errors, and nothing is sent for them', async () => {
    const { api, endpoint, calls } = await client({ rateLimits: { 'serverless:ep:run': { concurrency: 1 } } });
    const runs = [endpoint.run({ i: 0 }), endpoint.run(undefined), endpoint.run({ i: 1 }, { webhook: 'ftp://example.test' }), endpoint.run({ i: 2 }), endpoint.run({ i: 3 }, { timeoutMs: 0 })];
    // Nothing leaves before the body checks have loaded and run.
    expect(calls).toHaveLength(0);
    const settled = await Promise.allSettled(runs);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled', 'rejected']);
    const refused = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => s.reason as InstanceType<Api['ValidationError']>);
    for (const err of refused) expect(err).toBeInstanceOf(api.ValidationError);
    expect(refused.map((err) => err.field)).toEqual(['input', 'webhook', 'timeoutMs']);
    expect(calls.map((c) => JSON.parse(c.body!).input.i)).toEqual([0, 2]);
    const jobs = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    for (const job of jobs) expect(job).toBeInstanceOf(api.Job);
    expect(jobs.map((job) => job.id)).toEqual(['job-0', 'job-2']);
  });

  it('refuses bad ids and stream options at once, as before the load', async () => {
    const { api, endpoint, calls } = await client();
    expect(() => endpoint.job('')).toThrow(api.ValidationError);
    expect(() => endpoint.stream('job-1', { pollIntervalMs: -1 })).toThrow(api.ValidationError);
    expect(() => endpoint.job('job-1').stream({ waitMs: Number.NaN })).toThrow(api.ValidationError);
    // (captureError knows the error classes of the modules loaded first, not these fresh ones.)
    await expect(endpoint.status('')).rejects.toMatchObject({ name: 'ValidationError', field: 'jobId' });
    expect(endpoint.job('job-1')).toBeInstanceOf(api.Job);
    expect(calls).toHaveLength(0);
  });

  it('a stream closed before the load sends nothing and ends', async () => {
    const { endpoint, calls } = await client();
    const stream = endpoint.stream('job-1');
    stream.close();
    expect(await drain(stream)).toEqual([]);
    expect(calls).toHaveLength(0);
  });

  it('once loaded, run and status reach fetch in the same tick: no await or promise added to a call', async () => {
    const { endpoint, calls } = await client();
    const first = endpoint.run({ i: 0 });
    // The first call waits for the load.
    expect(calls).toHaveLength(0);
    await first;
    expect(calls).toHaveLength(1);
    const run = endpoint.run({ i: 1 });
    expect(calls).toHaveLength(2);
    const status = endpoint.job('job-1').status();
    expect(calls).toHaveLength(3);
    expect((await run).id).toBe('job-1');
    expect((await status).status).toBe('COMPLETED');
  });
});

import { afterEach, beforeAll, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  AbortError,
  createRunpodClient,
  JobCancelledError,
  JobFailedError,
  JobTimedOutError,
  NotFoundError,
  RateLimitError,
  ServerError,
  ValidationError,
  type CompletedJob,
  type JobProgress,
  type StreamChunk,
} from '../../src/index.js';
// `settle` plays the timers out again after a lazy load (the queue's calls load with the first call: real I/O).
import { captureError, json, recordingFetch, settle, TEST_API_KEY, type RecordedCall } from '../helpers.js';
import { loadQueueCalls } from '../../src/serverless/queue.js';

const BASE = 'https://api.runpod.ai/v2/ep-1';
type Answer = Response | ((call: RecordedCall) => Response | Promise<Response>);

/** A scripted queue: each route answers from its own list, repeating the last answer. */
function scriptedQueue(script: Record<string, Answer[]>) {
  const served: Record<string, number> = {};
  const recorder = recordingFetch((call) => {
    const route = call.url.pathname.replace('/v2/ep-1', '').replace(/\/job-[^/]+$/, '');
    const answers = script[`${call.method} ${route}`];
    if (!answers) return json({ error: `no route ${call.method} ${route}` }, { status: 404 });
    const index = Math.min(served[route] ?? 0, answers.length - 1);
    served[route] = (served[route] ?? 0) + 1;
    const answer = answers[index]!;
    return typeof answer === 'function' ? answer(call) : answer.clone();
  });
  const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: recorder.fetch });
  return { rp, calls: recorder.calls, endpoint: rp.endpoint<{ prompt: string }, { text: string }, { text: string }>('ep-1') };
}

const inQueue = json({ id: 'job-1', status: 'IN_QUEUE' });
const inProgress = json({ id: 'job-1', status: 'IN_PROGRESS' });
const completed = json({ id: 'job-1', status: 'COMPLETED', output: { text: 'hi' }, executionTime: 120 });

// The queue's calls load with the first call (real I/O, which fake timers cannot play out): load them first.
beforeAll(() => loadQueueCalls());
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('run and the Job handle', () => {
  it('run POSTs {input, webhook, policy} to /run with Bearer auth and returns a handle', async () => {
    const { endpoint, calls } = scriptedQueue({ 'POST /run': [inQueue] });
    const job = await endpoint.run({ prompt: 'hello' }, { webhook: 'https://example.test/hook', policy: { executionTimeout: 120_000, ttl: 3_600_000 } });
    expect(job.id).toBe('job-1');
    expect(job.endpointId).toBe('ep-1');
    const call = calls[0]!;
    expect([call.method, `${call.url.origin}${call.url.pathname}`]).toEqual(['POST', `${BASE}/run`]);
    expect(call.headers.get('authorization')).toBe(`Bearer ${TEST_API_KEY}`);
    expect(JSON.parse(call.body!)).toEqual({ input: { prompt: 'hello' }, webhook: 'https://example.test/hook', policy: { executionTimeout: 120_000, ttl: 3_600_000 } });
  });

  it('wait long-polls /status-sync: one request for a job that ends within the hold, typed output', async () => {
    const { endpoint, calls } = scriptedQueue({ 'POST /run': [inQueue], 'GET /status-sync': [completed] });
    const job = await endpoint.run({ prompt: 'x' });
    const done = await settle(job.wait());
    expect(done.output.text).toBe('hi');
    expectTypeOf(done).toEqualTypeOf<CompletedJob<{ text: string }>>();
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['POST /v2/ep-1/run', 'GET /v2/ep-1/status-sync/job-1']);
    expect(calls[1]?.url.searchParams.get('wait')).toBe('30000');
  });

  it.each([
    ['FAILED', JobFailedError, { error: 'CUDA out of memory' }],
    ['CANCELLED', JobCancelledError, {}],
    ['TIMED_OUT', JobTimedOutError, {}],
  ] as const)('wait throws a typed error carrying the job on %s', async (status, ErrorClass, extra) => {
    const { endpoint } = scriptedQueue({ 'GET /status': [inProgress, json({ id: 'job-1', status, ...extra })] });
    const err = await captureError(settle(endpoint.job('job-1').wait()));
    expect(err).toBeInstanceOf(ErrorClass);
    expect(err).toMatchObject({ jobId: 'job-1', endpointId: 'ep-1', job: { status } });
    if (err instanceof JobFailedError) expect(err.error).toBe('CUDA out of memory');
    if (err instanceof JobTimedOutError) expect(err.source).toBe('platform');
  });

  it('cancelling during a wait ends the wait with JobCancelledError', async () => {
    let cancelled = false;
    const { endpoint, calls } = scriptedQueue({
      'GET /status': [() => json({ id: 'job-1', status: cancelled ? 'CANCELLED' : 'IN_PROGRESS' })],
      'POST /cancel': [() => ((cancelled = true), json({ id: 'job-1', status: 'CANCELLED' }))],
    });
    const job = endpoint.job('job-1');
    const waiting = job.wait();
    waiting.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(600);
    expect(await job.cancel()).toEqual({ id: 'job-1', status: 'CANCELLED' });
    await vi.runAllTimersAsync();
    expect(await captureError(waiting)).toBeInstanceOf(JobCancelledError);
    expect(calls.find((c) => c.method === 'POST')?.url.pathname).toBe('/v2/ep-1/cancel/job-1');
  });

  it('aborting a wait stops polling at once', async () => {
    const { endpoint, calls } = scriptedQueue({ 'GET /status': [inProgress] });
    const controller = new AbortController();
    const waiting = endpoint.job('job-1').wait({ signal: controller.signal });
    waiting.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(300);
    const polls = calls.length;
    controller.abort();
    expect(await captureError(waiting)).toBeInstanceOf(AbortError);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toHaveLength(polls);
  });

  it('a 500 on /run is not retried (the job may be queued); a 429 with Retry-After is', async () => {
    const failing = scriptedQueue({ 'POST /run': [json({ error: 'internal' }, { status: 500 })] });
    expect(await captureError(settle(failing.endpoint.run({ prompt: 'x' })))).toBeInstanceOf(ServerError);
    expect(failing.calls).toHaveLength(1);

    const limited = scriptedQueue({ 'POST /run': [json({ error: 'queue full' }, { status: 429, headers: { 'retry-after': '1' } }), inQueue] });
    const job = await settle(limited.endpoint.run({ prompt: 'x' }));
    expect(job.id).toBe('job-1');
    expect(limited.calls).toHaveLength(2);
  });

  it('a 429 on /runsync is retried with backoff until the deadline, then ends with RateLimitError', async () => {
    const { endpoint, calls } = scriptedQueue({ 'POST /runsync': [json({}, { status: 429, headers: { 'retry-after': '2' } })] });
    const err = await captureError<RateLimitError>(settle(endpoint.runSync({ prompt: 'x' }, { timeoutMs: 30_000 })));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(2000);
    // More than maxRetries (2) allows, never sooner than Retry-After: at most 15 in 30 s.
    expect(calls.length).toBeGreaterThan(3);
    expect(calls.length).toBeLessThanOrEqual(15);
  });

  it('status of an expired result is NotFoundError', async () => {
    const { endpoint } = scriptedQueue({ 'GET /status': [json({ error: 'request does not exist' }, { status: 404 })] });
    expect(await captureError(endpoint.status('job-old'))).toBeInstanceOf(NotFoundError);
  });
});

describe('runSync', () => {
  it('returns at once when the job finishes within the wait; wait defaults to the 60 s deadline', async () => {
    const { endpoint, calls } = scriptedQueue({ 'POST /runsync': [completed] });
    const done = await endpoint.runSync({ prompt: 'x' });
    expect(done.output).toEqual({ text: 'hi' });
    expect(calls[0]?.url.searchParams.get('wait')).toBe('60000');
    expect(calls).toHaveLength(1);
  });

  it('derives the wait from executionTimeoutMs, and honours waitMs', async () => {
    const a = scriptedQueue({ 'POST /runsync': [completed] });
    await a.endpoint.runSync({ prompt: 'x' }, { executionTimeoutMs: 120_000 });
    expect(a.calls[0]?.url.searchParams.get('wait')).toBe('120000');
    const b = scriptedQueue({ 'POST /runsync': [completed] });
    await b.endpoint.runSync({ prompt: 'x' }, { waitMs: 5_000 });
    expect(b.calls[0]?.url.searchParams.get('wait')).toBe('5000');
  });

  it('keeps polling status when the job outlives the server wait, and returns its output', async () => {
    const { endpoint, calls } = scriptedQueue({ 'POST /runsync': [inProgress], 'GET /status-sync': [inProgress, completed] });
    const done = await settle(endpoint.runSync({ prompt: 'long' }, { waitMs: 1_000 }));
    expect(done.output.text).toBe('hi');
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'POST /v2/ep-1/runsync',
      'GET /v2/ep-1/status-sync/job-1',
      'GET /v2/ep-1/status-sync/job-1',
    ]);
  });

  it('past the deadline it throws JobTimedOutError carrying the job id, nothing lost', async () => {
    const { endpoint } = scriptedQueue({ 'POST /runsync': [inQueue], 'GET /status': [inProgress] });
    const err = await captureError<JobTimedOutError>(settle(endpoint.runSync({ prompt: 'x' }, { timeoutMs: 5_000, waitMs: 1_000 })));
    expect(err).toBeInstanceOf(JobTimedOutError);
    expect(err).toMatchObject({ jobId: 'job-1', source: 'deadline', timeoutMs: 5_000, job: { status: 'IN_PROGRESS' } });
  });

  it('a failed job surfaces as JobFailedError straight from /runsync', async () => {
    const { endpoint } = scriptedQueue({ 'POST /runsync': [json({ id: 'job-9', status: 'FAILED', error: 'boom' })] });
    const err = await captureError<JobFailedError>(endpoint.runSync({ prompt: 'x' }));
    expect(err).toMatchObject({ jobId: 'job-9', error: 'boom' });
  });
});

describe('stream', () => {
  it('yields chunks in order, pausing only after empty polls, until the job is terminal', async () => {
    const { endpoint, calls } = scriptedQueue({
      'GET /stream': [
        json({ status: 'IN_PROGRESS', stream: [{ output: 'a' }, { output: 'b' }] }),
        json({ status: 'IN_PROGRESS', stream: [] }),
        json({ status: 'IN_PROGRESS', stream: [] }),
        json({ status: 'COMPLETED', stream: [{ output: 'c', metrics: { tokens: 3 } }] }),
      ],
    });
    const seen: StreamChunk<{ text: string }>[] = [];
    const consuming = (async () => {
      for await (const chunk of endpoint.stream('job-1')) seen.push(chunk);
    })();
    // A page with chunks is followed at once; an empty page by 250 ms, then 500 ms.
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(249);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(499);
    expect(calls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    await consuming;
    expect(seen.map((c) => c.output)).toEqual(['a', 'b', 'c']);
    expect(seen[2]?.metrics).toEqual({ tokens: 3 });
    expect(calls).toHaveLength(4);
  });

  it('never polls in a hot loop when nothing is ready', async () => {
    const { endpoint, calls } = scriptedQueue({ 'GET /stream': [json({ status: 'IN_QUEUE', stream: [] })] });
    const stream = endpoint.stream('job-1');
    const consuming = (async () => {
      for await (const _ of stream) void _;
    })();
    await vi.advanceTimersByTimeAsync(30_000);
    stream.close();
    await consuming;
    // 250, 500, 1000, 2000, 4000, 4000, … ms between polls: 10 polls in 30 s, not thousands.
    expect(calls.length).toBeLessThanOrEqual(11);
    expect(calls.length).toBeGreaterThanOrEqual(8);
  });

  it('leaving the loop early sends no further request', async () => {
    const { endpoint, calls } = scriptedQueue({ 'GET /stream': [json({ status: 'IN_PROGRESS', stream: [{ output: 'a' }, { output: 'b' }] })] });
    for await (const chunk of endpoint.stream('job-1')) {
      expect(chunk.output).toBe('a');
      break;
    }
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toHaveLength(1);
  });

  it('returning while a poll is in flight aborts that request', async () => {
    let inFlight: RecordedCall | undefined;
    const signals: AbortSignal[] = [];
    const { fetch } = recordingFetch((call) => {
      inFlight = call;
      return json({ status: 'IN_PROGRESS', stream: [{ output: 'first' }] });
    });
    const holdingFetch = async (input: string | URL | Request, init?: RequestInit) => {
      if (signals.length === 0) {
        signals.push(init!.signal!);
        return fetch(input, init);
      }
      signals.push(init!.signal!);
      return new Promise<Response>((_r, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
    };
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: holdingFetch });
    const iterator = rp.endpoint('ep-1').stream('job-1')[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ output: 'first' });
    const pending = iterator.next();
    await vi.advanceTimersByTimeAsync(0);
    expect(signals).toHaveLength(2);
    expect(signals[1]?.aborted).toBe(false);
    await iterator.return?.();
    expect(signals[1]?.aborted).toBe(true);
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(inFlight).toBeDefined();
  });

  it('a FAILED stream ends with JobFailedError carrying the error text', async () => {
    const { endpoint } = scriptedQueue({
      'GET /stream': [json({ status: 'FAILED', stream: [{ output: 'partial' }] })],
      'GET /status': [json({ id: 'job-1', status: 'FAILED', error: 'worker crashed' })],
    });
    const seen: unknown[] = [];
    const err = await captureError<JobFailedError>(async () => {
      for await (const chunk of endpoint.stream('job-1')) seen.push(chunk.output);
    });
    expect(seen).toEqual(['partial']);
    expect(err.error).toBe('worker crashed');
  });
});

describe('other routes', () => {
  it('retry, cancel, health and purge-queue use the platform routes', async () => {
    const { endpoint, calls } = scriptedQueue({
      'POST /retry': [inQueue],
      'POST /cancel': [json({ id: 'job-1', status: 'CANCELLED' })],
      'GET /health': [json({ jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 2, retried: 0 }, workers: { idle: 1, running: 0 } })],
      'POST /purge-queue': [json({ removed: 2, status: 'completed' })],
    });
    const job = await endpoint.retry('job-1');
    expect(job.id).toBe('job-1');
    expect((await endpoint.cancel('job-1')).status).toBe('CANCELLED');
    expect((await endpoint.health()).jobs.inQueue).toBe(2);
    expect(await endpoint.purgeQueue()).toEqual({ removed: 2, status: 'completed' });
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'POST /v2/ep-1/retry/job-1',
      'POST /v2/ep-1/cancel/job-1',
      'GET /v2/ep-1/health',
      'POST /v2/ep-1/purge-queue',
    ]);
  });

  it('encodes ids in paths', async () => {
    const { fetch, calls } = recordingFetch(() => json({ id: 'a/b', status: 'IN_QUEUE' }));
    await createRunpodClient({ apiKey: TEST_API_KEY, fetch }).endpoint('ep x').status('a/b');
    expect(calls[0]?.url.pathname).toBe('/v2/ep%20x/status/a%2Fb');
  });
});

describe('validation before sending', () => {
  const { endpoint, calls } = scriptedQueue({});
  it.each<[string, () => Promise<unknown>]>([
    ['input', () => endpoint.run(undefined as never)],
    ['webhook', () => endpoint.run({ prompt: 'x' }, { webhook: 'ftp://x' })],
    ['policy.executionTimeout', () => endpoint.run({ prompt: 'x' }, { policy: { executionTimeout: -5 } })],
    ['policy.ttl', () => endpoint.run({ prompt: 'x' }, { policy: { ttl: 1.5 } })],
    ['policy.executionTimeout', () => endpoint.run({ prompt: 'x' }, { policy: { executionTimeout: 4_999 } })],
    ['policy.executionTimeout', () => endpoint.run({ prompt: 'x' }, { policy: { executionTimeout: 7 * 86_400_000 + 1 } })],
    ['policy.ttl', () => endpoint.run({ prompt: 'x' }, { policy: { ttl: 9_999 } })],
    ['policy.ttl', () => endpoint.run({ prompt: 'x' }, { policy: { ttl: 7 * 86_400_000 + 1 } })],
    ['webhook', () => endpoint.run({ prompt: 'x' }, { webhook: 'javascript:alert(1)' })],
    ['timeoutMs', () => endpoint.run({ prompt: 'x' }, { timeoutMs: Number.NaN })],
    ['timeoutMs', () => endpoint.job('job-1').wait({ timeoutMs: Infinity })],
    ['timeoutMs', () => endpoint.runSync({ prompt: 'x' }, { timeoutMs: -1 })],
    ['pollIntervalMs', () => endpoint.job('job-1').wait({ pollIntervalMs: 0 })],
    ['holdMs', () => endpoint.job('job-1').wait({ holdMs: Number.NaN })],
    ['waitMs', () => endpoint.runSync({ prompt: 'x' }, { waitMs: Infinity })],
    ['waitMs', async () => {
      for await (const _ of endpoint.stream('job-1', { waitMs: -5 })) void _;
    }],
    ['timeoutMs', async () => {
      for await (const _ of endpoint.stream('job-1', { timeoutMs: 0 })) void _;
    }],
    ['timeoutMs', () => endpoint.status('job-1', { timeoutMs: Number.NaN })],
    ['policy.lowPriority', () => endpoint.run({ prompt: 'x' }, { policy: { lowPriority: 'yes' as never } })],
    ['s3Config.bucketName', () => endpoint.run({ prompt: 'x' }, { s3Config: { accessId: 'a', accessSecret: 's', endpointUrl: 'https://s3' } as never })],
    ['waitMs', () => endpoint.runSync({ prompt: 'x' }, { waitMs: 500 })],
    ['waitMs', () => endpoint.runSync({ prompt: 'x' }, { waitMs: 300_001 })],
    ['input', () => endpoint.run({ prompt: 'x'.repeat(10 * 1024 * 1024) })],
    ['jobId', () => endpoint.status('')],
    ['jobId', () => endpoint.cancel(' ')],
  ])('rejects %s', async (field, run) => {
    // A rejected promise, never a synchronous throw: `.catch()` on the call sees it.
    let pending: Promise<unknown> | undefined;
    expect(() => (pending = run())).not.toThrow();
    const err = await captureError<ValidationError>(pending!);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe(field);
    expect(calls).toHaveLength(0);
  });

  it('rejects an empty endpoint id', () => {
    expect(() => createRunpodClient({ apiKey: TEST_API_KEY }).endpoint('')).toThrow(ValidationError);
  });
});

describe('runs waiting for their pacing turn', () => {
  /** One run in flight at a time; each answer is released by the test. */
  function oneAtATime(extra: { apiKey?: string } = {}) {
    const pending: Array<(res: Response) => void> = [];
    const recorder = recordingFetch(() => new Promise<Response>((resolve) => pending.push(resolve)));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, ...extra, fetch: recorder.fetch, rateLimits: { 'serverless:ep-1:run': { concurrency: 1 } } });
    const answerNext = (id: string) => pending.shift()!(json({ id, status: 'IN_QUEUE' }));
    return { endpoint: rp.endpoint<{ n: number }>('ep-1'), calls: recorder.calls, answerNext };
  }

  it('are sent one by one in the order they were called, each resolving to its own job', async () => {
    const { endpoint, calls, answerNext } = oneAtATime();
    const runs = Array.from({ length: 50 }, (_, n) => endpoint.run({ n }));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(1);
    for (let n = 0; n < 50; n++) {
      answerNext(`job-${n}`);
      await vi.advanceTimersByTimeAsync(0);
    }
    expect(calls.map((c) => (JSON.parse(c.body!) as { input: { n: number } }).input.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect((await Promise.all(runs)).map((job) => job.id)).toEqual(Array.from({ length: 50 }, (_, n) => `job-${n}`));
  });

  it('a queued run aborted by its signal rejects with AbortError naming the route, and is never sent', async () => {
    const { endpoint, calls, answerNext } = oneAtATime();
    const first = endpoint.run({ n: 0 });
    const controller = new AbortController();
    const queued = endpoint.run({ n: 1 }, { signal: controller.signal });
    const after = endpoint.run({ n: 2 });
    await vi.advanceTimersByTimeAsync(0);
    controller.abort(new Error('changed my mind'));
    const err = await captureError(queued);
    expect(err).toBeInstanceOf(AbortError);
    expect(err.message).toBe('POST /run (endpoint ep-1) aborted by the caller');
    expect(err.request).toEqual({ method: 'POST', url: `${BASE}/run`, operation: 'POST /run (endpoint ep-1)' });
    expect((err.cause as Error).message).toBe('changed my mind');
    answerNext('job-0');
    await first;
    await vi.advanceTimersByTimeAsync(0);
    answerNext('job-2');
    expect((await after).id).toBe('job-2');
    expect(calls.map((c) => (JSON.parse(c.body!) as { input: { n: number } }).input.n)).toEqual([0, 2]);
  });

  it("a queued run's time limit starts when it is sent, not while it waits", async () => {
    const { endpoint, calls, answerNext } = oneAtATime();
    const first = endpoint.run({ n: 0 });
    const second = endpoint.run({ n: 1 }, { timeoutMs: 1000 });
    second.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(5000);
    answerNext('job-0');
    await first;
    await vi.advanceTimersByTimeAsync(900);
    expect(calls).toHaveLength(2);
    answerNext('job-1');
    expect((await second).id).toBe('job-1');
  });

  it('bad call options and a missing API key are refused at once, not after the queue', async () => {
    const { endpoint, calls } = oneAtATime();
    void endpoint.run({ n: 0 });
    const badRetries = await captureError<ValidationError>(endpoint.run({ n: 1 }, { maxRetries: -1 }));
    expect(badRetries.field).toBe('maxRetries');
    const keyless = oneAtATime({ apiKey: '' });
    void keyless.endpoint.run({ n: 0 }).catch(() => undefined);
    const noKey = await captureError<ValidationError>(keyless.endpoint.run({ n: 1 }));
    expect(noKey.field).toBe('apiKey');
    expect(calls).toHaveLength(1);
    expect(keyless.calls).toHaveLength(0);
  });
});

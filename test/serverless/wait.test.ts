import { afterEach, beforeAll, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { AbortError, BadRequestError, createRunpodClient, JobFailedError, JobTimedOutError, NotFoundError, ServerError, type JobProgress, type JobStream } from '../../src/index.js';
import { captureError, json, recordingFetch, TEST_API_KEY, settle, type RecordedCall } from '../helpers.js';
import { loadQueueCalls } from '../../src/serverless/queue.js';

// The queue's calls load with the first call (real I/O, which fake timers cannot play out): load them first.
beforeAll(() => loadQueueCalls());
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());


type Route = (call: RecordedCall, signal: AbortSignal | undefined) => Response | Promise<Response>;

/** Answers by `METHOD /route` (the path after the endpoint id, without the job id). */
function endpointWith(routes: Record<string, Route>, options: { rateLimits?: false | Record<string, { requests?: number; intervalMs?: number }> } = {}) {
  const calls: Array<{ route: string; call: RecordedCall; at: number }> = [];
  const recorder = recordingFetch(() => json({}));
  const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    await recorder.fetch(input, init);
    const call = recorder.calls.at(-1)!;
    const route = `${call.method} ${call.url.pathname.replace('/v2/ep-1', '').replace(/\/job-[^/]+$/, '')}`;
    calls.push({ route, call, at: Date.now() });
    const answer = routes[route];
    if (!answer) return json({ error: `no route ${route}` }, { status: 404 });
    return answer(call, init.signal ?? undefined);
  };
  const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, ...options });
  return { rp, calls, endpoint: rp.endpoint<{ prompt: string }, { text: string }, string>('ep-1') };
}

/** Never answers; rejects when the request is aborted. */
const hang: Route = (_call, signal) =>
  new Promise<Response>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));

const state = (status: string, extra: Record<string, unknown> = {}) => () => json({ id: 'job-1', status, ...extra });

describe('wait on the server', () => {
  it('falls back to polling /status in steps of at most 1 s where /status-sync is missing, and remembers it', async () => {
    let polls = 0;
    const { endpoint, calls } = endpointWith({
      'GET /status': () => json({ id: 'job-1', status: ++polls >= 8 ? 'COMPLETED' : 'IN_PROGRESS', output: { text: 'done' } }),
    });
    const steps: number[] = [];
    const done = await settle(endpoint.job('job-1').wait({ onProgress: (p) => steps.push(p.nextPollMs) }));
    expect(done.output.text).toBe('done');
    expect(calls[0]?.route).toBe('GET /status-sync');
    expect(calls.slice(1).every((c) => c.route === 'GET /status')).toBe(true);
    expect(steps).toEqual([250, 375, 563, 844, 1000, 1000, 1000]);

    polls = 0;
    await settle(endpoint.job('job-2').wait());
    expect(calls.filter((c) => c.route === 'GET /status-sync')).toHaveLength(1);
  });

  it('a 404 for the job itself (gone from /status too) is NotFoundError, not a fallback', async () => {
    const gone = () => json({ error: 'request does not exist' }, { status: 404 });
    const { endpoint, calls } = endpointWith({ 'GET /status-sync': gone, 'GET /status': gone });
    expect(await captureError(settle(endpoint.job('job-1').wait()))).toBeInstanceOf(NotFoundError);
    expect(calls.map((c) => c.route)).toEqual(['GET /status-sync', 'GET /status']);
  });

  it('once /status-sync has answered, a later 404 on it means the job is gone', async () => {
    let sync = 0;
    const { endpoint, calls } = endpointWith({
      'GET /status-sync': () => (++sync === 1 ? json({ id: 'job-1', status: 'COMPLETED', output: { text: 'a' } }) : json({ error: 'request does not exist' }, { status: 404 })),
    });
    await settle(endpoint.job('job-1').wait());
    expect(await captureError(settle(endpoint.job('job-2').wait()))).toBeInstanceOf(NotFoundError);
    expect(calls.map((c) => c.route)).toEqual(['GET /status-sync', 'GET /status-sync']);
  });

  it('asks the server to hold no longer than what is left of the deadline', async () => {
    const { endpoint, calls } = endpointWith({ 'GET /status-sync': state('COMPLETED', { output: { text: 'x' } }) });
    await settle(endpoint.job('job-1').wait({ timeoutMs: 4_000 }));
    expect(calls[0]?.call.url.searchParams.get('wait')).toBe('4000');
  });

  it('a server that ignores ?wait= is not asked in a hot loop', async () => {
    const { endpoint, calls } = endpointWith({ 'GET /status-sync': state('IN_QUEUE') });
    const err = await captureError<JobTimedOutError>(settle(endpoint.job('job-1').wait({ timeoutMs: 10_000 })));
    expect(err).toBeInstanceOf(JobTimedOutError);
    // Steps of 250 ms growing to 1 s: about a dozen requests in 10 s, not thousands.
    expect(calls.length).toBeGreaterThan(5);
    expect(calls.length).toBeLessThanOrEqual(14);
  });

  it('a 429 during the wait backs off and keeps waiting', async () => {
    let n = 0;
    const { endpoint, calls } = endpointWith({
      'GET /status-sync': () =>
        ++n <= 5 ? json({ error: 'rate limited' }, { status: 429 }) : json({ id: 'job-1', status: 'COMPLETED', output: { text: 'ok' } }),
    });
    const done = await settle(endpoint.job('job-1').wait());
    expect(done.output.text).toBe('ok');
    expect(calls).toHaveLength(6);
  });

  it("reaches onProgress with an IN_PROGRESS job's output as progress", async () => {
    let n = 0;
    const { endpoint } = endpointWith({
      'GET /status-sync': () =>
        json(++n < 3 ? { id: 'job-1', status: 'IN_PROGRESS', output: { percent: n * 40 } } : { id: 'job-1', status: 'COMPLETED', output: { text: 'ok' } }),
    });
    const seen: JobProgress<{ text: string }>[] = [];
    await settle(endpoint.job('job-1').wait({ onProgress: (p) => seen.push(p) }));
    expect(seen.map((p) => p.progress)).toEqual([{ percent: 40 }, { percent: 80 }]);
  });
});

describe('deadlines', () => {
  it('hanging /status-sync requests end at the deadline in JobTimedOutError carrying the job id', async () => {
    const { endpoint } = endpointWith({ 'GET /status-sync': hang });
    const started = Date.now();
    const waiting = endpoint.job('job-1').wait({ timeoutMs: 500 });
    waiting.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(500);
    const err = await captureError<JobTimedOutError>(waiting);
    expect(err).toBeInstanceOf(JobTimedOutError);
    expect(err).toMatchObject({ jobId: 'job-1', endpointId: 'ep-1', source: 'deadline', timeoutMs: 500 });
    expect(Date.now() - started).toBe(500);
  });

  it('hanging /status polls (no /status-sync) end at the deadline too', async () => {
    let first = true;
    const { endpoint } = endpointWith({
      'GET /status': (call, signal) => (first ? ((first = false), json({ id: 'job-1', status: 'IN_QUEUE' })) : hang(call, signal)),
    });
    const err = await captureError<JobTimedOutError>(settle(endpoint.job('job-1').wait({ timeoutMs: 3_000 })));
    expect(err).toMatchObject({ jobId: 'job-1', source: 'deadline', job: { status: 'IN_QUEUE' } });
  });

  it('runSync: a hanging wait after /runsync ends at the deadline with the job id', async () => {
    const { endpoint } = endpointWith({ 'POST /runsync': state('IN_PROGRESS'), 'GET /status-sync': hang });
    const err = await captureError<JobTimedOutError>(settle(endpoint.runSync({ prompt: 'x' }, { timeoutMs: 5_000, waitMs: 1_000 })));
    expect(err).toMatchObject({ jobId: 'job-1', source: 'deadline', timeoutMs: 5_000, job: { status: 'IN_PROGRESS' } });
  });

  it('the caller aborting is AbortError, not a deadline', async () => {
    const { endpoint } = endpointWith({ 'GET /status-sync': hang });
    const controller = new AbortController();
    const waiting = endpoint.job('job-1').wait({ timeoutMs: 5_000, signal: controller.signal });
    waiting.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    expect(await captureError(waiting)).toBeInstanceOf(AbortError);
  });

  it('a stream that never ends stops at its deadline with JobTimedOutError carrying the job id', async () => {
    const { endpoint, calls } = endpointWith({ 'GET /stream': () => json({ status: 'IN_PROGRESS', stream: [{ output: 'tick' }] }) });
    const seen: string[] = [];
    const err = await captureError<JobTimedOutError>(async () => {
      const consuming = (async () => {
        for await (const chunk of endpoint.stream('job-1', { timeoutMs: 2_000 })) {
          seen.push(chunk.output);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      consuming.catch(() => undefined);
      await vi.advanceTimersByTimeAsync(3_000);
      await consuming;
    });
    expect(err).toBeInstanceOf(JobTimedOutError);
    expect(err).toMatchObject({ jobId: 'job-1', source: 'deadline', timeoutMs: 2_000, job: { status: 'IN_PROGRESS' } });
    expect(seen.length).toBeGreaterThan(5);
    expect(calls.length).toBeLessThanOrEqual(21);
  });

  it('a hanging stream page ends at the deadline too', async () => {
    const { endpoint } = endpointWith({ 'GET /stream': hang });
    const err = await captureError<JobTimedOutError>(
      settle(
        (async () => {
          for await (const _ of endpoint.stream('job-1', { timeoutMs: 1_500 })) void _;
        })(),
      ),
    );
    expect(err).toMatchObject({ jobId: 'job-1', source: 'deadline' });
  });

  it('stream asks the server to hold empty pages (?wait=)', async () => {
    const { endpoint, calls } = endpointWith({ 'GET /stream': () => json({ status: 'COMPLETED', stream: [] }) });
    for await (const _ of endpoint.stream('job-1', { waitMs: 5_000 })) void _;
    expect(calls[0]?.call.url.searchParams.get('wait')).toBe('5000');
  });
});

describe('failures as production sends them', () => {
  it('a handler that raised: the JSON-encoded error is parsed', async () => {
    const raised = JSON.stringify({
      error_type: "<class 'ValueError'>",
      error_message: 'prompt too long',
      error_traceback: 'Traceback (most recent call last):\n  File "handler.py", line 9',
      hostname: 'abc-host',
      worker_id: 'w-42',
      runpod_version: '1.7.0',
    });
    const { endpoint } = endpointWith({ 'GET /status-sync': state('FAILED', { error: raised }) });
    const err = await captureError<JobFailedError>(settle(endpoint.job('job-1').wait()));
    expect(err).toBeInstanceOf(JobFailedError);
    expect(err).toMatchObject({ jobId: 'job-1', error: raised, errorType: "<class 'ValueError'>", errorMessage: 'prompt too long', workerId: 'w-42' });
    expect(err.traceback).toContain('handler.py');
    expect(err.details?.runpodVersion).toBe('1.7.0');
    expect(err.message).toContain('ValueError');
    expect(err.message).toContain('prompt too long');
  });

  it('a handler that returned {error, ...rest}: the message and the rest as output', async () => {
    const { endpoint } = endpointWith({ 'GET /status-sync': state('FAILED', { error: 'bad input', output: { hint: 'shorter' } }) });
    const err = await captureError<JobFailedError>(settle(endpoint.job('job-1').wait()));
    expect(err).toMatchObject({ error: 'bad input', errorMessage: 'bad input', errorType: undefined, output: { hint: 'shorter' } });
    expect(err.details).toBeUndefined();
  });

  it('an error string that only looks like JSON stays the raw message', async () => {
    const { endpoint } = endpointWith({ 'POST /runsync': state('FAILED', { error: '{not json' }) });
    const err = await captureError<JobFailedError>(endpoint.runSync({ prompt: 'x' }));
    expect(err).toMatchObject({ error: '{not json', errorMessage: '{not json', details: undefined });
  });
});

describe('refusals as production sends them', () => {
  it('the queue-full 429 on /run backs off and is resent past maxRetries (nothing was queued)', async () => {
    let n = 0;
    const { endpoint, calls } = endpointWith({
      'POST /run': () => (++n <= 5 ? json({ error: 'queue is full' }, { status: 429 }) : json({ id: 'job-1', status: 'IN_QUEUE' })),
    });
    const job = await settle(endpoint.run({ prompt: 'x' }, { maxRetries: 1 }));
    expect(job.id).toBe('job-1');
    expect(calls).toHaveLength(6);
  });

  it('a run that waited for its turn still gets its 10 minutes of backoff, counted from when it was sent', async () => {
    let n = 0;
    const { endpoint, calls } = endpointWith(
      { 'POST /run': () => (++n === 1 ? json({ id: 'job-1', status: 'IN_QUEUE' }) : json({ error: 'queue is full' }, { status: 429 })) },
      // One run per 300 s: the second run waits 300 s for its turn (a window after the first ended), and so does each resend.
      { rateLimits: { 'serverless:*:run': { requests: 1, intervalMs: 300_000 } } },
    );
    const started = Date.now();
    await endpoint.run({ prompt: 'first' });
    const second = endpoint.run({ prompt: 'second' });
    expect(await captureError(settle(second))).toMatchObject({ name: 'RateLimitError' });
    const sends = calls.slice(1).map((c) => c.at - started);
    expect(sends[0]).toBeGreaterThanOrEqual(300_000);
    // Counted from the call, the window would have closed at 600 s: no resend after the one at 600 s.
    expect(sends).toEqual([300_000, 600_000, 900_000]);
  });

  it('a 400 on /runsync (wait out of range) is a BadRequestError, sent once', async () => {
    const { endpoint, calls } = endpointWith({ 'POST /runsync': () => json({ error: 'wait is invalid' }, { status: 400 }) });
    expect(await captureError(endpoint.runSync({ prompt: 'x' }))).toBeInstanceOf(BadRequestError);
    expect(calls).toHaveLength(1);
  });

  it('a 500 on /status during a wait is retried within maxRetries only', async () => {
    const { endpoint, calls } = endpointWith({ 'GET /status-sync': () => json({ error: 'internal' }, { status: 500 }) });
    expect(await captureError(settle(endpoint.job('job-1').wait()))).toBeInstanceOf(ServerError);
    expect(calls).toHaveLength(3);
  });
});

describe('answers of the wrong shape are ServerError', () => {
  it.each<[string, string, Route]>([
    ['runSync, empty body', 'POST /runsync', () => new Response('', { headers: { 'content-type': 'application/json' } })],
    ['runSync, null', 'POST /runsync', () => json(null)],
    ['runSync, no id', 'POST /runsync', () => json({ status: 'IN_QUEUE' })],
    ['run, no id', 'POST /run', () => json({ status: 'IN_QUEUE' })],
  ])('%s', async (_name, route, answer) => {
    const { endpoint } = endpointWith({ [route]: answer });
    const call = route === 'POST /run' ? endpoint.run({ prompt: 'x' }) : endpoint.runSync({ prompt: 'x' });
    const err = await captureError(call);
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toContain('unexpected answer');
  });

  it('wait on a null /status-sync answer', async () => {
    const { endpoint } = endpointWith({ 'GET /status-sync': () => json(null) });
    expect(await captureError(settle(endpoint.job('job-1').wait()))).toBeInstanceOf(ServerError);
  });

  it('stream on an empty body or a page without status', async () => {
    for (const answer of [() => new Response(''), () => json({ stream: [] }), () => json({ status: 'IN_PROGRESS', stream: 'x' })]) {
      const { endpoint } = endpointWith({ 'GET /stream': answer });
      const err = await captureError(async () => {
        for await (const _ of endpoint.stream('job-1')) void _;
      });
      expect(err).toBeInstanceOf(ServerError);
    }
  });

  it('health and purge-queue check their answers too', async () => {
    const { endpoint } = endpointWith({ 'GET /health': () => json({ jobs: 3 }), 'POST /purge-queue': () => json({ status: 'completed' }) });
    expect(await captureError(endpoint.health())).toBeInstanceOf(ServerError);
    expect(await captureError(endpoint.purgeQueue())).toBeInstanceOf(ServerError);
  });
});

describe('endpoint handles', () => {
  it('rp.endpoint(id) returns the same client on every call, and pacing is shared through it', () => {
    const { rp } = endpointWith({});
    expect(rp.endpoint('ep-1')).toBe(rp.endpoint('ep-1'));
    expect(rp.endpoint('ep-1')).not.toBe(rp.endpoint('ep-2'));
  });

  it('stream chunks have their own type parameter', () => {
    const { endpoint } = endpointWith({});
    expectTypeOf(endpoint.stream('job-1')).toEqualTypeOf<JobStream<string>>();
    expectTypeOf(endpoint.job('job-1').stream()).toEqualTypeOf<JobStream<string>>();
    expectTypeOf(endpoint.runSync).returns.resolves.toHaveProperty('output').toEqualTypeOf<{ text: string }>();
  });

  it('keeps a bounded number of endpoint clients', () => {
    const { rp } = endpointWith({});
    const first = rp.endpoint('ep-0');
    for (let i = 1; i <= 300; i++) rp.endpoint(`ep-${i}`);
    expect(rp.endpoint('ep-0')).not.toBe(first);
    expect(rp.endpoint('ep-300')).toBe(rp.endpoint('ep-300'));
  });

  it('a fan-out of waits stays within the status concurrency cap', async () => {
    let inFlight = 0;
    let peak = 0;
    const { endpoint } = endpointWith({
      'GET /status-sync': async () => {
        peak = Math.max(peak, ++inFlight);
        await new Promise((r) => setTimeout(r, 1_000));
        inFlight--;
        return json({ id: 'job-1', status: 'COMPLETED', output: { text: 'ok' } });
      },
    });
    const all = Promise.all(Array.from({ length: 450 }, (_, i) => endpoint.job(`job-${i}`).wait()));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await all).toHaveLength(450);
    expect(peak).toBe(400);
  });
});

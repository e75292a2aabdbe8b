import { describe, expect, it } from 'vitest';
import { KEY_A, KEY_B, settle, wireEmulator } from './serverless-wire.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('serverless rate limits (per account, endpoint and route, per 10 s)', () => {
  it('/run takes 1000 per 10 s, then 429; tokens come back evenly; other endpoints and accounts are apart', async () => {
    const { call, emulator } = wireEmulator();
    const body = { json: { input: {} } };
    for (let i = 0; i < 1000; i++) expect((await call('POST', '/echo/run', body)).status).toBe(200);
    const refused = await call('POST', '/echo/run', body);
    expect(refused.status).toBe(429);
    expect(String(refused.body.error)).toMatch(/too many requests/i);
    expect((await call('POST', '/sleep/run', { json: { input: { ms: 1 } } })).status).toBe(200);
    expect((await call('POST', '/echo/run', { ...body, key: KEY_B })).status).toBe(200);
    await emulator.clock.advance(10);
    expect((await call('POST', '/echo/run', body)).status).toBe(200);
    expect((await call('POST', '/echo/run', body)).status).toBe(429);
    await emulator.clock.advance(10_000);
    expect((await call('POST', '/echo/run', body)).status).toBe(200);
  });

  it('/purge-queue takes 2 per 10 s', async () => {
    const { call, emulator } = wireEmulator();
    expect((await call('POST', '/echo/purge-queue')).status).toBe(200);
    expect((await call('POST', '/echo/purge-queue')).status).toBe(200);
    expect((await call('POST', '/echo/purge-queue')).status).toBe(429);
    await emulator.clock.advance(5_000);
    expect((await call('POST', '/echo/purge-queue')).status).toBe(200);
  });

  it('/cancel takes 100 per 10 s', async () => {
    const { call, run } = wireEmulator();
    const id = await run('sleep', { ms: HOUR });
    for (let i = 0; i < 100; i++) expect((await call('POST', `/sleep/cancel/${id}`)).status).toBe(200);
    expect((await call('POST', `/sleep/cancel/${id}`)).status).toBe(429);
  });

  it('/status and /status-sync share one bucket, and held requests count against its concurrency', async () => {
    const { call, run, emulator } = wireEmulator({ serverlessLimits: { routes: { status: { requests: 100, concurrency: 2 } } } });
    const id = await run('sleep', { ms: 5_000, output: 'done' });
    const held = [call('GET', `/sleep/status-sync/${id}?wait=60000`), call('POST', `/sleep/status-sync/${id}?wait=60000`)];
    await settle();
    expect((await call('GET', `/sleep/status/${id}`)).status).toBe(429);
    await emulator.clock.advance(5_000);
    for (const answer of await Promise.all(held)) expect(answer.body).toMatchObject({ status: 'COMPLETED', output: 'done' });
    expect((await call('GET', `/sleep/status/${id}`)).status).toBe(200);
  });

  it('serverlessLimits: false lifts every limit', async () => {
    const { call } = wireEmulator({ serverlessLimits: false });
    for (let i = 0; i < 5; i++) expect((await call('POST', '/echo/purge-queue')).status).toBe(200);
  });

  it('429 on /run once the queue holds more than 50 jobs and more than workersMax × 500, and room again as workers take jobs', async () => {
    const { call, emulator } = wireEmulator({ serverlessLimits: { routes: { run: false } } });
    // One worker: 500 waiting jobs are allowed, a 501st too (the check is "more than"), then 429.
    const id = emulator.endpoints.create({ handler: 'sleep', workers: { max: 1 } });
    const job = { json: { input: { ms: HOUR } } };
    for (let i = 0; i < 501; i++) expect((await call('POST', `/${id}/run`, job)).status).toBe(200);
    const full = await call('POST', `/${id}/run`, job);
    expect(full.status).toBe(429);
    expect(String(full.body.error)).toMatch(/queue .*full/);
    expect((await call('POST', `/${id}/runsync?wait=1000`, job)).status).toBe(429);
    // The worker's cold start ends and it takes the oldest job: one place in the queue is free.
    await emulator.clock.advance(500);
    expect((await call('GET', `/${id}/health`)).body).toMatchObject({ jobs: { inProgress: 1, inQueue: 500 }, workers: { running: 1 } });
    expect((await call('POST', `/${id}/run`, job)).status).toBe(200);
    expect((await call('POST', `/${id}/run`, job)).status).toBe(429);
    expect((await call('POST', `/${id}/purge-queue`)).body).toEqual({ removed: 501, status: 'completed' });
    expect((await call('POST', `/${id}/run`, job)).status).toBe(200);
  });

  it('the queue-full threshold follows the options', async () => {
    const { call, emulator } = wireEmulator({ queueDelayMs: HOUR, serverlessLimits: { queueFull: { minJobs: 5, jobsPerWorker: 1 } } });
    const id = emulator.endpoints.create({ handler: 'echo', workers: { max: 1 } });
    for (let i = 0; i < 6; i++) expect((await call('POST', `/${id}/run`, { json: { input: i } })).status).toBe(200);
    expect((await call('POST', `/${id}/run`, { json: { input: 6 } })).status).toBe(429);
  });
});

describe('/status-sync and /stream ?wait=', () => {
  it('status-sync holds until the job ends', async () => {
    const { call, run, emulator } = wireEmulator();
    const id = await run('sleep', { ms: 5_000, output: { ok: true } });
    let answered = false;
    const held = call('GET', `/sleep/status-sync/${id}?wait=60000`).finally(() => (answered = true));
    await settle();
    await emulator.clock.advance(4_999);
    await settle();
    expect(answered).toBe(false);
    await emulator.clock.advance(1);
    expect((await held).body).toMatchObject({ id, status: 'COMPLETED', output: { ok: true } });
  });

  it('status-sync answers with the current state when wait passes first', async () => {
    const { call, run, emulator } = wireEmulator();
    const id = await run('sleep', { ms: MINUTE });
    const held = call('POST', `/sleep/status-sync/${id}?wait=2000`);
    await settle();
    await emulator.clock.advance(2_000);
    expect((await held).body).toMatchObject({ id, status: 'IN_PROGRESS' });
  });

  it('status-sync refuses a bad wait and an unknown job', async () => {
    const { call, run } = wireEmulator();
    const id = await run('echo', 1);
    expect((await call('GET', `/echo/status-sync/${id}?wait=-1`)).status).toBe(400);
    expect((await call('GET', `/echo/status-sync/${id}?wait=300001`)).status).toBe(400);
    expect((await call('GET', '/echo/status-sync/nope?wait=1000')).status).toBe(404);
    expect((await call('GET', `/echo/status-sync/${id}?wait=0`)).body).toMatchObject({ status: 'COMPLETED' });
  });

  it('runsync refuses a wait outside 1000–300000 with the platform message', async () => {
    const { call } = wireEmulator();
    const answer = await call('POST', '/echo/runsync?wait=999', { json: { input: 1 } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('wait is invalid; must be between 1000 and 300000');
  });

  it('stream holds for ?wait= when nothing is ready, and answers as soon as a chunk is', async () => {
    const { call, run, emulator } = wireEmulator();
    const id = await run('stream', { chunks: ['a', 'b'], intervalMs: 5_000 });
    const empty = call('GET', `/stream/stream/${id}?wait=2000`);
    await settle();
    await emulator.clock.advance(2_000);
    expect((await empty).body).toEqual({ status: 'IN_PROGRESS', stream: [] });
    const next = call('POST', `/stream/stream/${id}?wait=60000`);
    await settle();
    await emulator.clock.advance(3_000);
    expect((await next).body).toEqual({ status: 'IN_PROGRESS', stream: [{ output: 'a', metrics: { index: 0 } }] });
  });

  it('a FAILED job streams nothing', async () => {
    const { call, run, emulator } = wireEmulator();
    const id = await run('fail', { message: 'broken' });
    await emulator.clock.advance(0);
    expect((await call('GET', `/fail/stream/${id}`)).body).toEqual({ status: 'FAILED', stream: [] });
  });
});

describe('progress and failures as production reports them', () => {
  it('an IN_PROGRESS job carries the handler’s last progress update as output', async () => {
    const { call, run, emulator } = wireEmulator();
    emulator.handlers.register('progress', async (_input, ctx) => {
      ctx.progress({ percent: 10 });
      await ctx.sleep(1_000);
      ctx.progress({ percent: 60 });
      await ctx.sleep(1_000);
      return { done: true };
    });
    const id = await run('progress', {});
    await settle();
    expect((await call('GET', `/progress/status/${id}`)).body).toMatchObject({ status: 'IN_PROGRESS', output: { percent: 10 } });
    await emulator.clock.advance(1_000);
    expect((await call('GET', `/progress/status/${id}`)).body).toMatchObject({ status: 'IN_PROGRESS', output: { percent: 60 } });
    await emulator.clock.advance(1_000);
    expect((await call('GET', `/progress/status/${id}`)).body).toMatchObject({ status: 'COMPLETED', output: { done: true } });
  });

  it('a handler that throws: error is a JSON-encoded object with the six fields', async () => {
    const { call } = wireEmulator();
    const answer = await call('POST', '/fail/runsync', { json: { input: { message: 'CUDA out of memory' } } });
    expect(answer.body.status).toBe('FAILED');
    expect(answer.body).not.toHaveProperty('output');
    expect(typeof answer.body.error).toBe('string');
    const parsed = JSON.parse(answer.body.error as string) as Record<string, unknown>;
    expect(Object.keys(parsed).sort()).toEqual(['error_message', 'error_traceback', 'error_type', 'hostname', 'runpod_version', 'worker_id']);
    expect(parsed).toMatchObject({ error_type: "<class 'Error'>", error_message: 'CUDA out of memory', worker_id: expect.stringMatching(/^[a-z0-9]{14}$/) });
    expect(parsed.error_traceback).toContain('CUDA out of memory');
  });

  it('a handler that returns { error, ...rest }: FAILED with error as given and output holding the rest', async () => {
    const { call, run, emulator } = wireEmulator();
    emulator.handlers.register('refuse', (input) => ({ error: 'prompt too long', tokens: (input as { n: number }).n, partial: 'Once' }));
    const sync = await call('POST', '/refuse/runsync', { json: { input: { n: 9000 } } });
    expect(sync.body).toMatchObject({ status: 'FAILED', error: 'prompt too long', output: { tokens: 9000, partial: 'Once' } });
    const id = await run('refuse', { n: 1 });
    await emulator.clock.advance(0);
    expect((await call('GET', `/refuse/status/${id}`)).body).toMatchObject({ status: 'FAILED', error: 'prompt too long', output: { tokens: 1, partial: 'Once' } });
  });

  it('a returned { error } alone fails with no output', async () => {
    const { call, emulator } = wireEmulator();
    emulator.handlers.register('bare', () => ({ error: 'nope' }));
    const answer = await call('POST', '/bare/runsync', { json: { input: 1 } });
    expect(answer.body).toMatchObject({ status: 'FAILED', error: 'nope' });
    expect(answer.body).not.toHaveProperty('output');
  });
});

describe('policy: ttl and executionTimeout', () => {
  it('a job never picked up within its ttl ends TIMED_OUT', async () => {
    const { call, run, emulator } = wireEmulator({ queueDelayMs: HOUR });
    const id = await run('echo', 1, { policy: { ttl: 10_000 } });
    await emulator.clock.advance(9_999);
    expect((await call('GET', `/echo/status/${id}`)).body.status).toBe('IN_QUEUE');
    await emulator.clock.advance(1);
    expect((await call('GET', `/echo/status/${id}`)).body.status).toBe('TIMED_OUT');
    await emulator.clock.advance(2 * HOUR);
    // A queued job timed out by its ttl is never run afterwards.
    expect((await call('GET', '/echo/health')).body).toMatchObject({ jobs: { completed: 0, inQueue: 0 } });
  });

  it('the default ttl is 24 h', async () => {
    const { call, run, emulator } = wireEmulator({ queueDelayMs: 48 * HOUR });
    const id = await run('echo', 1);
    await emulator.clock.advance(24 * HOUR - 1);
    expect((await call('GET', `/echo/status/${id}`)).body.status).toBe('IN_QUEUE');
    await emulator.clock.advance(1);
    expect((await call('GET', `/echo/status/${id}`)).body.status).toBe('TIMED_OUT');
  });

  it('a job that was picked up is deleted at its ttl, finished or not', async () => {
    const { call, run, emulator } = wireEmulator();
    const done = await run('echo', 1, { policy: { ttl: 10_000 } });
    const running = await run('sleep', { ms: HOUR }, { policy: { ttl: 10_000 } });
    await emulator.clock.advance(9_999);
    expect((await call('GET', `/echo/status/${done}`)).body.status).toBe('COMPLETED');
    expect((await call('GET', `/sleep/status/${running}`)).body.status).toBe('IN_PROGRESS');
    await emulator.clock.advance(1);
    expect((await call('GET', `/echo/status/${done}`)).status).toBe(404);
    expect((await call('GET', `/sleep/status/${running}`)).status).toBe(404);
  });

  it.each([
    [{ ttl: 9_999 }, 'policy.ttl'],
    [{ ttl: 7 * 24 * HOUR + 1 }, 'policy.ttl'],
    [{ ttl: 1.5e4 + 0.5 }, 'policy.ttl'],
    [{ executionTimeout: 4_999 }, 'policy.executionTimeout'],
    [{ executionTimeout: 7 * 24 * HOUR + 1 }, 'policy.executionTimeout'],
  ])('policy %j is refused with 400 naming %s', async (policy, field) => {
    const { call } = wireEmulator();
    for (const route of ['/echo/run', '/echo/runsync']) {
      const answer = await call('POST', route, { json: { input: 1, policy } });
      expect(answer.status).toBe(400);
      expect(String(answer.body.error)).toContain(field);
    }
    expect((await call('GET', '/echo/health')).body).toMatchObject({ jobs: { completed: 0, inQueue: 0, inProgress: 0 } });
  });

  it('the bounds themselves are accepted', async () => {
    const { call } = wireEmulator();
    for (const policy of [{ ttl: 10_000, executionTimeout: 5_000 }, { ttl: 7 * 24 * HOUR, executionTimeout: 7 * 24 * HOUR }]) {
      expect((await call('POST', '/echo/run', { json: { input: 1, policy } })).status).toBe(200);
    }
  });

  it('a webhook that is not http(s) is refused', async () => {
    const { call } = wireEmulator();
    expect((await call('POST', '/echo/run', { json: { input: 1, webhook: 'ftp://127.0.0.1/hook' } })).status).toBe(400);
  });
});

describe('webhooks (injected fetch)', () => {
  const recorder = (statuses: number[]) => {
    const calls: Array<{ url: string; body: unknown; at: number }> = [];
    let now = () => 0;
    const webhookFetch = async (url: string, init: RequestInit) => {
      calls.push({ url, body: JSON.parse(String(init.body)), at: now() });
      return new Response('ok', { status: statuses[calls.length - 1] ?? 200 });
    };
    return { calls, webhookFetch, setClock: (fn: () => number) => (now = fn) };
  };

  it('POSTs the /status body on completion; a non-200 is tried twice more, 10 s apart', async () => {
    const hook = recorder([500, 503, 200]);
    const { call, run, emulator } = wireEmulator({ webhookFetch: hook.webhookFetch });
    hook.setClock(() => emulator.clock.now());
    const id = await run('sleep', { ms: 1_000, output: 'hi' }, { webhook: 'http://127.0.0.1:9/hook' });
    await emulator.clock.advance(1_000);
    await settle();
    expect(hook.calls).toHaveLength(1);
    expect(hook.calls[0]!.url).toBe('http://127.0.0.1:9/hook');
    expect(hook.calls[0]!.body).toEqual((await call('GET', `/sleep/status/${id}`)).body);
    expect(hook.calls[0]!.body).toMatchObject({ id, status: 'COMPLETED', output: 'hi' });
    await emulator.clock.advance(9_999);
    await settle();
    expect(hook.calls).toHaveLength(1);
    await emulator.clock.advance(1);
    await settle();
    expect(hook.calls).toHaveLength(2);
    await emulator.clock.advance(10_000);
    await settle();
    expect(hook.calls.map((c) => c.at - hook.calls[0]!.at)).toEqual([0, 10_000, 20_000]);
    await emulator.clock.advance(HOUR);
    await settle();
    expect(hook.calls).toHaveLength(3);
  });

  it('gives up after 3 attempts, and fires for FAILED, CANCELLED and TIMED_OUT too', async () => {
    const hook = recorder([500, 500, 500, 500, 500, 500]);
    const { call, run, emulator } = wireEmulator({ webhookFetch: hook.webhookFetch });
    await run('fail', { message: 'x' }, { webhook: 'https://hooks.invalid/a' });
    await emulator.clock.advance(HOUR);
    await settle();
    expect(hook.calls).toHaveLength(3);
    const cancelled = await run('sleep', { ms: HOUR }, { webhook: 'https://hooks.invalid/b' });
    await call('POST', `/sleep/cancel/${cancelled}`);
    await run('sleep', { ms: HOUR }, { webhook: 'https://hooks.invalid/c', policy: { executionTimeout: 5_000 } });
    await emulator.clock.advance(5_000);
    await settle();
    expect(hook.calls.slice(3).map((c) => [c.url, (c.body as { status: string }).status])).toEqual([
      ['https://hooks.invalid/b', 'CANCELLED'],
      ['https://hooks.invalid/c', 'TIMED_OUT'],
    ]);
  });

  it('a webhook fetch that rejects counts as a failed attempt', async () => {
    let attempts = 0;
    const { run, emulator } = wireEmulator({
      webhookFetch: async () => {
        attempts += 1;
        throw new TypeError('fetch failed');
      },
    });
    await run('echo', 1, { webhook: 'http://127.0.0.1:9/down' });
    await emulator.clock.advance(MINUTE);
    await settle();
    expect(attempts).toBe(3);
  });
});

describe('jobs are isolated per account, built-in endpoints included', () => {
  it('account B cannot read, wait on, stream, cancel, retry or purge account A’s jobs', async () => {
    const { call, run, emulator } = wireEmulator({ queueDelayMs: 1_000 });
    const running = await run('sleep', { ms: HOUR });
    const queued = await run('echo', 'mine');
    for (const [method, route] of [
      ['GET', `/sleep/status/${running}`],
      ['GET', `/sleep/status-sync/${running}?wait=0`],
      ['GET', `/sleep/stream/${running}?wait=0`],
      ['POST', `/sleep/cancel/${running}`],
      ['POST', `/sleep/retry/${running}`],
    ] as const) {
      expect((await call(method, route, { key: KEY_B })).status, route).toBe(404);
    }
    expect((await call('POST', '/echo/purge-queue', { key: KEY_B })).body).toEqual({ removed: 0, status: 'completed' });
    expect((await call('GET', '/echo/health', { key: KEY_B })).body).toMatchObject({ jobs: { inQueue: 0 } });
    expect((await call('GET', `/echo/status/${queued}`)).body.status).toBe('IN_QUEUE');
    await emulator.clock.advance(1_000);
    expect((await call('GET', `/sleep/status/${running}`)).body.status).toBe('IN_PROGRESS');
    expect((await call('GET', `/echo/status/${queued}`)).body).toMatchObject({ status: 'COMPLETED', output: 'mine' });
  });
});

describe('registered handlers are endpoints under their own name', () => {
  it('for every account, including accounts added later', async () => {
    const { call, emulator } = wireEmulator();
    emulator.handlers.register('llm', (input) => ({ reply: `hello ${(input as { name: string }).name}` }));
    emulator.accounts.add('rpa_serverless_account_c');
    for (const key of [KEY_A, KEY_B, 'rpa_serverless_account_c']) {
      expect((await call('POST', '/llm/runsync', { json: { input: { name: key.slice(-1) } }, key })).body).toMatchObject({ status: 'COMPLETED', output: { reply: `hello ${key.slice(-1)}` } });
    }
  });
});

describe('bodies and input are checked before a job exists', () => {
  const chunkedBody = (bytes: number) => {
    const piece = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const head = new TextEncoder().encode('{"input":"');
    const tail = new TextEncoder().encode('"}');
    return new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
        sent = head.byteLength + tail.byteLength;
      },
      pull(controller) {
        if (sent >= bytes) {
          controller.enqueue(tail);
          controller.close();
          return;
        }
        const size = Math.min(piece.byteLength, bytes - sent);
        controller.enqueue(piece.subarray(0, size));
        sent += size;
      },
    });
  };

  it('/run counts the bytes of a chunked upload against its 10 MB limit', async () => {
    const { call } = wireEmulator({ queueDelayMs: HOUR });
    const limit = 10 * 1024 * 1024;
    const over = await call('POST', '/echo/run', { body: chunkedBody(limit + 1), duplex: 'half' } as RequestInit);
    expect(over.status).toBe(413);
    const at = await call('POST', '/echo/run', { body: chunkedBody(limit), duplex: 'half' } as RequestInit);
    expect(at.status).toBe(200);
    expect((await call('GET', '/echo/health')).body).toMatchObject({ jobs: { inQueue: 1 } });
  });

  it('/runsync allows 20 MB where /run allows 10', async () => {
    const { call } = wireEmulator();
    const limit = 20 * 1024 * 1024;
    expect((await call('POST', '/echo/runsync?wait=1000', { body: chunkedBody(limit + 1), duplex: 'half' } as RequestInit)).status).toBe(413);
    const input = 'y'.repeat(15 * 1024 * 1024);
    expect((await call('POST', '/echo/run', { json: { input } })).status).toBe(413);
    const sync = await call('POST', '/echo/runsync', { json: { input } });
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ status: 'COMPLETED' });
    expect((sync.body.output as string).length).toBe(input.length);
  });

  it('a deeply nested /runsync input gets 400 and no job', async () => {
    const { send, serverlessUrl, call } = wireEmulator();
    const deep = `{"input":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    const answer = await send(`${serverlessUrl}/echo/runsync`, { method: 'POST', body: deep, headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(400);
    expect(String(answer.body.error)).toMatch(/^input: nested/);
    expect((await call('GET', '/echo/health')).body).toMatchObject({ jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0 } });
    const fine = `{"input":${'['.repeat(100)}${']'.repeat(100)}}`;
    expect((await send(`${serverlessUrl}/echo/runsync`, { method: 'POST', body: fine })).body.status).toBe('COMPLETED');
  });
});

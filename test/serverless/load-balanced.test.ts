import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, BadRequestError, ConnectionError, createRunpodClient, ServerError, TimeoutError, ValidationError, type RetryEvent } from '../../src/index.js';
import { captureError, json, recordingFetch, TEST_API_KEY, settle } from '../helpers.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());


describe('load-balanced endpoints', () => {
  it.each(['get', 'post', 'put', 'patch', 'delete'] as const)('%s sends the method, path, query, JSON body and Bearer auth', async (method) => {
    const { fetch, calls } = recordingFetch(() => json({ ok: true }));
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch }).loadBalanced('abc123');
    const result = await lb[method]<{ ok: boolean }>('/v1/generate', { query: { stream: false, tag: ['a', 'b'] }, json: method === 'get' ? undefined : { prompt: 'hi' } });
    expect(result.ok).toBe(true);
    const call = calls[0]!;
    expect(call.method).toBe(method.toUpperCase());
    expect(`${call.url.origin}${call.url.pathname}`).toBe('https://abc123.api.runpod.ai/v1/generate');
    expect(call.url.search).toBe('?stream=false&tag=a&tag=b');
    expect(call.headers.get('authorization')).toBe(`Bearer ${TEST_API_KEY}`);
    if (method === 'get') expect(call.body).toBeUndefined();
    else expect(JSON.parse(call.body!)).toEqual({ prompt: 'hi' });
  });

  it('takes an address from the loadBalancedUrl option, returns text for non-JSON answers, and can leave the key out', async () => {
    const { fetch, calls } = recordingFetch(() => new Response('pong', { headers: { 'content-type': 'text/plain' } }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, loadBalancedUrl: 'http://127.0.0.1:9999/lb/{endpointId}' });
    const lb = rp.loadBalanced('http://127.0.0.1:9999/lb/ep1/', { auth: false });
    expect(await lb.get('ping')).toBe('pong');
    expect(calls[0]?.url.toString()).toBe('http://127.0.0.1:9999/lb/ep1/ping');
    expect(calls[0]?.headers.get('authorization')).toBeNull();
  });

  it('refuses a URL as an id unless the loadBalancedUrl template makes it: the key goes nowhere else', async () => {
    const { fetch, calls } = recordingFetch(() => new Response('pong'));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    for (const url of ['https://evil.test', 'https://ep1.api.runpod.ai.evil.test', 'https://evil.test/x.api.runpod.ai', 'http://127.0.0.1:9999/']) {
      expect(() => rp.loadBalanced(url)).toThrow(ValidationError);
    }
    expect(rp.loadBalanced('https://ep1.api.runpod.ai/').baseUrl).toBe('https://ep1.api.runpod.ai');
    expect(calls).toHaveLength(0);
  });

  it('rides out a cold start on GET: 503, 502 and "no workers available" are retried up to the deadline', async () => {
    const events: RetryEvent[] = [];
    const answers = [
      json({ error: 'no workers available' }, { status: 400 }),
      new Response('starting', { status: 503 }),
      new Response('bad gateway', { status: 502 }),
      new Response('starting', { status: 503 }),
      json({ ready: true }),
    ];
    const { fetch, calls } = recordingFetch((_c, i) => answers[i]!);
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 1, onRetry: (e) => events.push(e) }).loadBalanced('abc123');
    expect(await settle(lb.get('/health'))).toEqual({ ready: true });
    expect(calls).toHaveLength(5);
    expect(events.map((e) => e.reason)).toEqual([400, 503, 502, 503]);
  });

  it('gives up on a cold start at the deadline', async () => {
    const { fetch, calls } = recordingFetch(() => new Response('starting', { status: 503 }));
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch }).loadBalanced('abc123', { coldStartTimeoutMs: 20_000 });
    expect(await captureError(settle(lb.get('/x')))).toBeInstanceOf(ServerError);
    // 0.5 + 1 + 2 + 4 + 8 s fit in 20 s; the next 8 s wait would not.
    expect(calls.length).toBeGreaterThanOrEqual(5);
    expect(calls.length).toBeLessThanOrEqual(7);
  });

  it('does not resend a POST on a cold start unless the caller opts in', async () => {
    const plain = recordingFetch(() => new Response('starting', { status: 503 }));
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch: plain.fetch }).loadBalanced('abc123');
    expect(await captureError(settle(lb.post('/generate', { json: {} })))).toBeInstanceOf(ServerError);
    expect(plain.calls).toHaveLength(1);

    const noWorkers = recordingFetch(() => json({ error: 'no workers available' }, { status: 400 }));
    const lb2 = createRunpodClient({ apiKey: TEST_API_KEY, fetch: noWorkers.fetch }).loadBalanced('abc123');
    expect(await captureError(settle(lb2.post('/generate', { json: {} })))).toBeInstanceOf(BadRequestError);
    expect(noWorkers.calls).toHaveLength(1);

    const optedIn = recordingFetch((_c, i) => (i < 2 ? new Response('starting', { status: 503 }) : json({ done: 1 })));
    const lb3 = createRunpodClient({ apiKey: TEST_API_KEY, fetch: optedIn.fetch }).loadBalanced('abc123', { retryNonIdempotent: true });
    expect(await settle(lb3.post('/generate', { json: {} }))).toEqual({ done: 1 });
    expect(optedIn.calls).toHaveLength(3);
  });

  it('an answer that says JSON but is not is a ServerError, not a SyntaxError', async () => {
    const { fetch } = recordingFetch(() => new Response('{"cut off', { headers: { 'content-type': 'application/json' } }));
    const err = await captureError<ServerError>(createRunpodClient({ apiKey: TEST_API_KEY, fetch }).loadBalanced('abc123').get('/x'));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toContain('expected JSON, got application/json');
    expect(err.request?.operation).toBe('GET /x');
  });

  it('raw fetch returns the Response untouched', async () => {
    const { fetch, calls } = recordingFetch(() => new Response('data: 1\n\n', { headers: { 'content-type': 'text/event-stream' } }));
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch }).loadBalanced('abc123');
    const res = await lb.fetch('/events', { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json', 'x-trace': '7' } });
    expect(await res.text()).toBe('data: 1\n\n');
    expect(calls[0]?.method).toBe('POST');
    expect(calls[0]?.body).toBe('{"a":1}');
    expect(calls[0]?.headers.get('x-trace')).toBe('7');
    expect(await captureError(lb.fetch('/x', { method: 'POST', body: new Uint8Array([1]) }))).toBeInstanceOf(ValidationError);
  });
});

/** A fetch that never answers; it rejects when its signal fires, as fetch does. */
function hangingFetch() {
  const calls: unknown[] = [];
  const fetch = (input: string | URL | Request, init: RequestInit = {}) => {
    calls.push(input);
    return new Promise<Response>((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true }));
  };
  return { fetch, calls };
}

/** A fetch that answers headers at once and then never finishes the body, until aborted. */
function endlessBodyFetch() {
  const seen: AbortSignal[] = [];
  const fetch = async (_input: string | URL | Request, init: RequestInit = {}) => {
    const signal = init.signal!;
    seen.push(signal);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"partial":'));
        signal.addEventListener('abort', () => controller.error(signal.reason), { once: true });
      },
    });
    return new Response(body, { headers: { 'content-type': 'application/json' } });
  };
  return { fetch, seen };
}

describe('load-balanced endpoints at platform scale', () => {
  it('a cold 503 with Retry-After: 0 follows the backoff instead of a hot loop', async () => {
    const { fetch, calls } = recordingFetch(() => new Response('starting', { status: 503, headers: { 'retry-after': '0' } }));
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch }).loadBalanced('abc123', { coldStartTimeoutMs: 20_000 });
    expect(await captureError(settle(lb.get('/x')))).toBeInstanceOf(ServerError);
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(calls.length).toBeLessThanOrEqual(8);
  });

  it('maxRetries governs every failure other than a cold start', async () => {
    const { fetch, calls } = recordingFetch(() => new Response('boom', { status: 500 }));
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 1 }).loadBalanced('abc123');
    expect(await captureError(settle(lb.get('/x')))).toBeInstanceOf(ServerError);
    expect(calls).toHaveLength(2);
  });

  it('a cold start and then other failures: only the others count against maxRetries', async () => {
    const answers = [503, 503, 503, 500, 500, 500];
    const { fetch, calls } = recordingFetch((_c, i) => new Response('x', { status: answers[i] ?? 500 }));
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 1 }).loadBalanced('abc123');
    expect(await captureError(settle(lb.get('/x')))).toBeInstanceOf(ServerError);
    expect(calls).toHaveLength(5);
  });

  it('a POST that may have arrived is never resent: time-out and cut connection', async () => {
    const hanging = hangingFetch();
    const slow = createRunpodClient({ apiKey: TEST_API_KEY, fetch: hanging.fetch, maxRetries: 5 }).loadBalanced('abc123', { retryNonIdempotent: true });
    const err = await captureError<TimeoutError>(settle(slow.post('/generate', { json: {}, timeoutMs: 1_000 })));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(hanging.calls).toHaveLength(1);

    const reset = recordingFetch(() => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } })));
    const cut = createRunpodClient({ apiKey: TEST_API_KEY, fetch: reset.fetch, maxRetries: 5 }).loadBalanced('abc123');
    expect(await captureError(settle(cut.post('/generate', { json: {} })))).toBeInstanceOf(ConnectionError);
    expect(reset.calls).toHaveLength(1);
  });

  it('the per-attempt limit covers the platform hold and processing (8 min) unless the caller sets one', async () => {
    const hanging = hangingFetch();
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch: hanging.fetch, maxRetries: 0 }).loadBalanced('abc123');
    const pending = lb.get('/slow');
    pending.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(7.5 * 60_000);
    expect(hanging.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(await captureError<TimeoutError>(pending)).toMatchObject({ timeoutMs: 480_000 });
    const own = lb.get('/slow', { timeoutMs: 2_000 });
    own.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await captureError<TimeoutError>(own)).toMatchObject({ timeoutMs: 2_000 });
  });

  it("the caller's signal aborts the body of a JSON call", async () => {
    const { fetch } = endlessBodyFetch();
    const controller = new AbortController();
    const pending = createRunpodClient({ apiKey: TEST_API_KEY, fetch }).loadBalanced('abc123').get('/big', { signal: controller.signal });
    pending.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    expect(await captureError(pending)).toBeInstanceOf(AbortError);
  });

  it("the caller's signal still aborts a raw answer's body after the headers arrived", async () => {
    const { fetch, seen } = endlessBodyFetch();
    const controller = new AbortController();
    const res = await createRunpodClient({ apiKey: TEST_API_KEY, fetch }).loadBalanced('abc123').fetch('/events', { signal: controller.signal, timeoutMs: 1_000 });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"partial":');
    // The attempt's timer no longer applies once headers are in…
    await vi.advanceTimersByTimeAsync(5_000);
    expect(seen[0]?.aborted).toBe(false);
    // …but the caller's signal does.
    const next = reader.read();
    controller.abort();
    await expect(next).rejects.toBeInstanceOf(AbortError);
    expect(seen[0]?.aborted).toBe(true);
  });

  it('exposes the worker that answered, and a call can pin a worker', async () => {
    const { fetch, calls } = recordingFetch(() => json({ ok: 1 }, { headers: { 'x-runpod-worker-id': 'w-7' } }));
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch }).loadBalanced('abc123');
    const answer = await lb.request<{ ok: number }>('post', '/v1/chat', { json: { q: 1 }, workerId: 'strict w-7' });
    expect(answer).toMatchObject({ data: { ok: 1 }, status: 200, workerId: 'w-7' });
    expect(calls[0]?.method).toBe('POST');
    expect(calls[0]?.headers.get('x-runpod-worker-id')).toBe('strict w-7');
    const raw = await lb.fetch('/x', { workerId: 'w-9' });
    expect(raw.headers.get('x-runpod-worker-id')).toBe('w-7');
    expect(calls[1]?.headers.get('x-runpod-worker-id')).toBe('w-9');
  });

  it('builds the address of a bare id from the loadBalancedUrl option', async () => {
    const { fetch, calls } = recordingFetch(() => json({}));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, loadBalancedUrl: 'http://127.0.0.1:8080/lb/{endpointId}' });
    expect(rp.loadBalanced('ep 1').baseUrl).toBe('http://127.0.0.1:8080/lb/ep%201');
    await rp.loadBalanced('abc').get('/ping');
    expect(calls[0]?.url.toString()).toBe('http://127.0.0.1:8080/lb/abc/ping');
  });
});

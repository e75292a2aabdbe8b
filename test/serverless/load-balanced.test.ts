import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BadRequestError, createRunpodClient, ServerError, ValidationError, type RetryEvent } from '../../src/index.js';
import { captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

async function settle<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  await vi.runAllTimersAsync();
  return promise;
}

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

  it('takes a full URL, returns text for non-JSON answers, and can leave the key out', async () => {
    const { fetch, calls } = recordingFetch(() => new Response('pong', { headers: { 'content-type': 'text/plain' } }));
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch }).loadBalanced('http://127.0.0.1:9999/', { auth: false });
    expect(await lb.get('ping')).toBe('pong');
    expect(calls[0]?.url.toString()).toBe('http://127.0.0.1:9999/ping');
    expect(calls[0]?.headers.get('authorization')).toBeNull();
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

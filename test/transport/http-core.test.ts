import { inspect } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadGraphQLRuntime } from '../../src/graphql/graphql-client.js';
import {
  AbortError,
  ApiError,
  ConnectionError,
  createRunpodClient,
  RateLimitError,
  ServerError,
  PossiblyCreatedError,
  TimeoutError,
  ValidationError,
  type RetryEvent,
} from '../../src/index.js';
import { backoffMs } from '../../src/transport/retry.js';
import { parseRetryAfterMs } from '../../src/transport/retry-after.js';
import { podFixture } from '../fixtures.js';
import { assertNoSecret, captureError, json, recordingFetch, TEST_API_KEY, type RecordedCall } from '../helpers.js';

const ok = () => json({ data: { pod: podFixture() } });
const deployAnswer = () => json({ data: { podFindAndDeployOnDemand: podFixture() } });
const deployInput = { imageName: 'img', gpuTypeId: 'h100', gpuCount: 1 };

/**
 * Answers what a deploy sends besides DeployPod (the GPU type catalog check before, the marker
 * lookup after an ambiguous failure: no pod found); DeployPod attempts go to `respond`, numbered apart.
 */
function aroundDeploy(respond: (call: RecordedCall, deployIndex: number) => Response | Promise<Response>) {
  let deploys = 0;
  return (call: RecordedCall) => {
    if (call.body?.includes('"operationName":"GpuTypeCatalog"')) return json({ data: { gpuTypes: [{ id: 'h100', displayName: 'H100' }] } });
    if (call.body?.includes('"operationName":"MyPods"')) return json({ data: { myself: { pods: [] } } });
    return respond(call, deploys++);
  };
}
const deploysIn = (calls: RecordedCall[]) => calls.filter((c) => c.body?.includes('"operationName":"DeployPod"'));

function connectionRefused(): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
}
function connectionReset(): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
}

/** Runs `promise` while fake timers fast-forward through every backoff wait. */
async function settle<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  await vi.runAllTimersAsync();
  return promise;
}


// Loading is real I/O, which fake timers would outrun: the GraphQL runtime and the create-once rule load first.
beforeAll(async () => {
  await loadGraphQLRuntime();
  await import('../../src/transport/create-once.js');
});
describe('HTTP core: retries by idempotency', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('honours Retry-After on 429 and then succeeds, reporting the retry', async () => {
    const events: RetryEvent[] = [];
    const { fetch, calls } = recordingFetch((_c, i) => (i === 0 ? json({ errors: [{ message: 'slow down' }] }, { status: 429, headers: { 'retry-after': '3' } }) : ok()));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, onRetry: (e) => events.push(e) });
    const pod = await settle(rp.pods.get('pod-abc123'));
    expect(pod?.id).toBe('pod-abc123');
    expect(calls).toHaveLength(2);
    expect(events).toEqual([{ operation: 'Pod', retry: 1, delayMs: 3000, reason: 429 }]);
  });

  it('retries a 429 on deploy too: the server refused it before doing anything', async () => {
    const { fetch, calls } = recordingFetch(aroundDeploy((_c, i) => (i === 0 ? json({}, { status: 429, headers: { 'retry-after-ms': '10' } }) : deployAnswer())));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    await settle(rp.pods.deploy(deployInput));
    expect(deploysIn(calls)).toHaveLength(2);
  });

  it('gives up with RateLimitError carrying retryAfterMs when the hint is beyond 60 s', async () => {
    const { fetch, calls } = recordingFetch(() => json({}, { status: 429, headers: { 'retry-after': '120' } }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError<RateLimitError>(settle(rp.pods.get('p')));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(120_000);
    expect(calls).toHaveLength(1);
  });

  it('retries a 500 on a query up to maxRetries, with growing backoff', async () => {
    const events: RetryEvent[] = [];
    const { fetch, calls } = recordingFetch(() => json({ errors: [{ message: 'boom' }] }, { status: 500 }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 3, onRetry: (e) => events.push(e) });
    const err = await captureError(settle(rp.pods.list()));
    expect(err).toBeInstanceOf(ServerError);
    expect(calls).toHaveLength(4);
    expect(events.map((e) => e.reason)).toEqual([500, 500, 500]);
    const [d1, d2, d3] = events.map((e) => e.delayMs) as [number, number, number];
    expect(d1).toBeGreaterThanOrEqual(375);
    expect(d1).toBeLessThanOrEqual(500);
    expect(d2).toBeGreaterThanOrEqual(750);
    expect(d3).toBeGreaterThanOrEqual(1500);
  });

  it('never resends deploy after a 500: it may have created the pod', async () => {
    const { fetch, calls } = recordingFetch(aroundDeploy(() => json({ errors: [{ message: 'internal' }] }, { status: 500 })));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 5 });
    const err = await captureError<PossiblyCreatedError>(settle(rp.pods.deploy(deployInput)));
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect(err.cause).toBeInstanceOf(ServerError);
    expect(deploysIn(calls)).toHaveLength(1);
  });

  it('never resends deploy after a connection reset mid-request', async () => {
    const { fetch, calls } = recordingFetch(aroundDeploy(() => {
      throw connectionReset();
    }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 5 });
    const err = await captureError<PossiblyCreatedError>(settle(rp.pods.deploy(deployInput)));
    expect(err.cause).toBeInstanceOf(ConnectionError);
    expect((err.cause as ConnectionError).notSent).toBe(false);
    expect(deploysIn(calls)).toHaveLength(1);
  });

  it('resends deploy when the connection was refused: the request never left', async () => {
    const { fetch, calls } = recordingFetch(aroundDeploy((_c, i) => {
      if (i === 0) throw connectionRefused();
      return deployAnswer();
    }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    await settle(rp.pods.deploy(deployInput));
    expect(deploysIn(calls)).toHaveLength(2);
  });

  it('retries a query after a network failure, then reports ConnectionError with the cause code', async () => {
    const { fetch, calls } = recordingFetch(() => {
      throw connectionReset();
    });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 2 });
    const err = await captureError<ConnectionError>(settle(rp.pods.list()));
    expect(calls).toHaveLength(3);
    expect(err.message).toContain('other side closed');
    expect((err.cause as { code?: string }).code).toBe('UND_ERR_SOCKET');
  });

  it('times out each attempt, retries queries, and ends with TimeoutError', async () => {
    const { fetch, calls } = recordingFetch(
      () => new Promise<Response>(() => undefined),
    );
    const hanging = async (input: string | URL | Request, init?: RequestInit) => {
      void fetch(input, init);
      return new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    };
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: hanging, timeoutMs: 1000, maxRetries: 1 });
    const err = await captureError<TimeoutError>(settle(rp.pods.list()));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.timeoutMs).toBe(1000);
    expect(calls).toHaveLength(2);
  });

  it('does not resend deploy after a timeout', async () => {
    const { fetch, calls } = recordingFetch(
      aroundDeploy((_c, _i) => new Promise<Response>(() => undefined)),
    );
    const hanging = async (input: string | URL | Request, init?: RequestInit) => {
      const answer = fetch(input, init);
      const aborted = new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
      return Promise.race([answer, aborted]);
    };
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: hanging, timeoutMs: 500, maxRetries: 3 });
    const err = await captureError<PossiblyCreatedError>(settle(rp.pods.deploy(deployInput)));
    expect(err.cause).toBeInstanceOf(TimeoutError);
    expect(deploysIn(calls)).toHaveLength(1);
  });

  it('an abort from the caller stops the call and its retry wait at once', async () => {
    const controller = new AbortController();
    const { fetch, calls } = recordingFetch(() => json({}, { status: 503 }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 5 });
    const pending = rp.pods.list({ signal: controller.signal });
    pending.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    const err = await captureError(pending);
    expect(err).toBeInstanceOf(AbortError);
    expect(calls).toHaveLength(1);
  });

  it('an already-aborted signal sends nothing, and the error names the request like any other abort', async () => {
    const { fetch, calls } = recordingFetch(ok);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const reason = new Error('user left');
    const err = await captureError(rp.pods.get('p', { signal: AbortSignal.abort(reason) }));
    expect(err).toBeInstanceOf(AbortError);
    expect((err as AbortError).request).toMatchObject({ method: 'POST', operation: 'Pod' });
    expect(((err as AbortError).cause as Error).message).toBe(reason.message);
    expect(calls).toHaveLength(0);
  });
});

describe('HTTP core: requests, redirects and secrets', () => {
  it("a caller's fetch may edit the headers it is given: each request gets its own, so no edit reaches the next", async () => {
    const seen: Array<Record<string, string>> = [];
    const editingFetch = async (_input: string | URL | Request, init?: RequestInit) => {
      const headers = init!.headers as Record<string, string>;
      seen.push({ ...headers });
      headers['x-trace'] = `trace-${seen.length}`;
      return json({ id: 'pod-abc123', name: 'p' });
    };
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: editingFetch });
    await rp.rest.pods.get('pod-abc123');
    await rp.rest.pods.get('pod-abc123');
    expect(seen).toHaveLength(2);
    expect(seen[1]).not.toHaveProperty('x-trace');
    expect(seen[1]!.authorization).toBe(`Bearer ${TEST_API_KEY}`);
  });

  it('puts the key only in api_key, sends JSON and never follows redirects blindly', async () => {
    const { fetch, calls } = recordingFetch(ok);
    await createRunpodClient({ apiKey: TEST_API_KEY, fetch, headers: { 'x-team': 'ml' } }).pods.get('pod-abc123');
    const [call] = calls;
    expect(call?.method).toBe('POST');
    expect(`${call?.url.origin}${call?.url.pathname}`).toBe('https://api.runpod.io/graphql');
    expect(call?.url.searchParams.get('api_key')).toBe(TEST_API_KEY);
    expect(call?.headers.get('authorization')).toBeNull();
    expect(call?.headers.get('content-type')).toBe('application/json');
    expect(call?.headers.get('x-team')).toBe('ml');
    expect(call?.redirect).toBe('manual');
    expect(JSON.parse(call?.body ?? '{}')).toMatchObject({ operationName: 'Pod', variables: { input: { podId: 'pod-abc123' } } });
  });

  it('follows a same-origin redirect with the key and, for a request without a body, a cross-origin one without it', async () => {
    const { fetch, calls } = recordingFetch((call, i) => {
      if (i === 0) return new Response(null, { status: 307, headers: { location: '/v2/pods-moved/p' } });
      if (i === 1) return new Response(null, { status: 307, headers: { location: `https://evil.example/collect?api_key=${TEST_API_KEY}` } });
      return call.headers.get('authorization') ? json({ id: 'p' }) : json({ error: 'no key' }, { status: 401 });
    });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError(rp.rest.pods.get('p'));
    expect(calls.map((c) => c.url.origin + c.url.pathname)).toEqual(['https://api.runpod.io/v2/pods/p', 'https://api.runpod.io/v2/pods-moved/p', 'https://evil.example/collect']);
    expect(calls[1]?.headers.get('authorization')).toBe(`Bearer ${TEST_API_KEY}`);
    expect(calls[2]?.headers.get('authorization')).toBeNull();
    expect(calls[2]?.url.search).not.toContain(TEST_API_KEY);
    expect(err.name).toBe('AuthenticationError');
  });

  it('follows a same-origin redirect of a request with a body, and never a cross-origin one: nothing reaches the other origin', async () => {
    const { fetch, calls } = recordingFetch((call, i) => {
      if (i === 0) return new Response(null, { status: 307, headers: { location: '/graphql-v2?x=1' } });
      if (i === 1) return new Response(null, { status: 307, headers: { location: `https://evil.example/collect?api_key=${TEST_API_KEY}` } });
      return ok();
    });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError<ApiError>(rp.pods.get('p'));
    expect(calls.map((c) => c.url.origin + c.url.pathname)).toEqual(['https://api.runpod.io/graphql', 'https://api.runpod.io/graphql-v2']);
    expect(calls[1]?.url.searchParams.get('api_key')).toBe(TEST_API_KEY);
    expect(calls[1]?.body).toContain('"operationName":"Pod"');
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(307);
    expect(err.message).toContain('https://evil.example');
    expect(err.message).toContain('a request with a body is never sent there');
    expect(JSON.stringify(err)).not.toContain(TEST_API_KEY);
  });

  it('a missing key is a ValidationError before anything is sent', async () => {
    const { fetch, calls } = recordingFetch(ok);
    const saved = process.env.RUNPOD_API_KEY;
    delete process.env.RUNPOD_API_KEY;
    try {
      const err = await captureError<ValidationError>(createRunpodClient({ fetch }).pods.get('p'));
      expect(err.field).toBe('apiKey');
      expect(calls).toHaveLength(0);
    } finally {
      if (saved !== undefined) process.env.RUNPOD_API_KEY = saved;
    }
  });

  it('reads the key from RUNPOD_API_KEY by default', async () => {
    const { fetch, calls } = recordingFetch(ok);
    vi.stubEnv('RUNPOD_API_KEY', 'rpa_from_env');
    try {
      await createRunpodClient({ fetch }).pods.get('p');
    } finally {
      vi.unstubAllEnvs();
    }
    expect(calls[0]?.url.searchParams.get('api_key')).toBe('rpa_from_env');
  });

  it('scrubs a key the server echoes back, and a key inside a fetch failure message', async () => {
    const echo = recordingFetch((call) => new Response(`<html>bad request for ${call.url.toString()}</html>`, { status: 400, headers: { 'content-type': 'text/html' } }));
    const err1 = await captureError(createRunpodClient({ apiKey: TEST_API_KEY, fetch: echo.fetch }).pods.get('p'));
    expect(err1.message).toContain('[REDACTED]');

    const failing = recordingFetch((call) => {
      throw new TypeError(`Failed to parse URL from ${call.url.toString()}`);
    });
    const err2 = await captureError<ConnectionError>(createRunpodClient({ apiKey: TEST_API_KEY, fetch: failing.fetch, maxRetries: 0 }).pods.get('p'));
    expect(err2.message).toContain('api_key=[REDACTED]');
    expect(err2.request?.url).toBe('https://api.runpod.io/graphql');
  });

  it('the client object does not reveal the key to inspect or JSON', () => {
    const rp = createRunpodClient({ apiKey: TEST_API_KEY });
    assertNoSecret(rp);
    expect(inspect(rp, { depth: 20, showHidden: true })).not.toContain(TEST_API_KEY);
  });
});

describe('retry arithmetic', () => {
  it('backs off 0.5 s × 2^n up to 8 s with at most 25 % jitter', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect(backoffMs(0, () => 1)).toBe(375);
    expect(backoffMs(10, () => 1)).toBe(6000);
  });

  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    const now = Date.parse('2026-11-21T00:00:00Z');
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'Sat, 21 Nov 2026 00:00:05 GMT' }), now)).toBe(5000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfterMs(new Headers())).toBeUndefined();
  });
});

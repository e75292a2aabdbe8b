// The core loads what it runs only after an answer (src/transport/after-answer.ts) with the first
// answer that needs it. test/helpers.ts loads it up front for the fake-timer tests, so every other
// test meets it loaded: these start from fresh modules, where the first such answer of a client is
// the one that loads it, and check that it ends exactly as the next one does.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, TEST_API_KEY } from '../helpers.js';

type Core = import('../../src/transport/http-core.js').HttpCore;
type Options = import('../../src/transport/options.js').RunpodClientOptions;

/** A core from freshly evaluated modules: nothing of after-answer.ts is loaded yet. */
async function freshCore(options: Options): Promise<Core> {
  vi.resetModules();
  const { createHttpCoreFromOptions } = await import('../../src/transport/http-core.js');
  return createHttpCoreFromOptions({ apiKey: TEST_API_KEY, maxRetries: 0, ...options });
}

const request = (over: Partial<Parameters<Core['request']>[0]> = {}) =>
  ({ method: 'GET', url: 'https://rest.runpod.io/v1/pods/p1', auth: 'bearer', operation: 'GET /pods/{podId}', idempotent: true, ...over }) as const;

/** What a thrown error shows a caller (its class and fields), read without the test's own module instances. */
async function outcome(run: Promise<unknown>): Promise<Record<string, unknown>> {
  const err = await run.then(
    () => expect.unreachable('the call should fail'),
    (e: unknown) => e as Error & Record<string, unknown>,
  );
  expect(JSON.stringify(err)).not.toContain(TEST_API_KEY);
  const { stack: _stack, ...fields } = JSON.parse(JSON.stringify(err)) as Record<string, unknown>;
  return { class: err.constructor.name, ...fields };
}

beforeEach(() => vi.useRealTimers());

describe('after-answer.ts, loaded by the first answer that needs it', () => {
  it('the first error answer maps to the same typed error, request id and body as the next', async () => {
    const fetch = async () => json({ error: 'pod p1 not found' }, { status: 404, headers: { 'x-request-id': 'req-1' } });
    const core = await freshCore({ fetch });
    const first = await outcome(core.request(request()));
    expect(first).toMatchObject({ class: 'NotFoundError', status: 404, requestId: 'req-1', message: 'GET /pods/{podId} failed with HTTP 404: pod p1 not found' });
    expect(await outcome(core.request(request()))).toEqual(first);
  });

  it('a 429 with Retry-After past the cap ends the first call with the hint, as it does the next', async () => {
    const fetch = async () => json({ message: 'slow down' }, { status: 429, headers: { 'retry-after': '120', ratelimit: '"minute";r=0;t=120' } });
    const core = await freshCore({ fetch, maxRetries: 2 });
    const first = await outcome(core.request(request()));
    expect(first).toMatchObject({ class: 'RateLimitError', retryAfterMs: 120_000, rateLimit: [{ name: 'minute', remaining: 0, resetSeconds: 120 }] });
    expect(await outcome(core.request(request()))).toEqual(first);
  });

  it('the first connection failure is classified (not sent, so a create may be resent) as the next is', async () => {
    const fetch = async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`connect ECONNREFUSED (${TEST_API_KEY})`), { code: 'ECONNREFUSED' }) });
    };
    const core = await freshCore({ fetch });
    const first = await outcome(core.request(request({ method: 'POST', idempotent: false, operation: 'POST /pods' })));
    expect(first).toMatchObject({ class: 'ConnectionError', notSent: true });
    expect(String(first.message)).toContain('ECONNREFUSED');
    expect(await outcome(core.request(request({ method: 'POST', idempotent: false, operation: 'POST /pods' })))).toEqual(first);
  });

  it('the first redirect is followed, onResponse and onRateLimit hear of the first answer, and the debug line is written', async () => {
    const lines: string[] = [];
    const heard: unknown[] = [];
    const fetch = async (input: string | URL | Request) =>
      String(input).endsWith('/old')
        ? new Response(null, { status: 307, headers: { location: '/v1/pods/p1' } })
        : json({ id: 'p1' }, { headers: { 'x-request-id': 'req-2', ratelimit: '"minute";r=5;t=30' } });
    const logger = { error: () => {}, warn: () => {}, info: () => {}, debug: (line: string) => lines.push(line) };
    const core = await freshCore({ fetch, logLevel: 'debug', logger, onRateLimit: (info) => heard.push(info) });
    const seen: Array<{ status: number; requestId: string | undefined }> = [];
    const result = await core.requestJson<{ id: string }>(request({ url: 'https://rest.runpod.io/v1/old', onResponse: (info) => seen.push(info) }));
    expect(result).toEqual({ id: 'p1' });
    expect(seen).toMatchObject([{ status: 200, requestId: 'req-2' }]);
    expect(heard).toMatchObject([{ operation: 'GET /pods/{podId}', windows: [{ name: 'minute', remaining: 5, resetSeconds: 30 }] }]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^runpod-gql: GET https:\/\/rest\.runpod\.io\/v1\/old \(GET \/pods\/\{podId\}, attempt 1\) → HTTP 200 in \d+ ms$/);
  });

  it('the first 410 closes a request gate before anything of after-answer.ts is needed (even when it never loads)', async () => {
    vi.resetModules();
    // An import that never settles: the gate must not wait for it.
    vi.doMock('../../src/transport/after-answer.js', () => new Promise(() => {}));
    try {
      const { createHttpCoreFromOptions } = await import('../../src/transport/http-core.js');
      const core = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, maxRetries: 0, fetch: async () => json({ error: 'gone' }, { status: 410, headers: { 'x-request-id': 'req-410' } }) });
      const heard: Array<{ error: { name: string; status: number; requestId?: string }; early: boolean | undefined }> = [];
      const gate = { signal: new AbortController().signal, check: () => undefined, retired: (error: never, early?: boolean) => heard.push({ error, early }) };
      void core.request(request({ gate } as never)).catch(() => undefined);
      for (let i = 0; i < 20 && heard.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(heard).toHaveLength(1);
      expect(heard[0]).toMatchObject({ early: true, error: { name: 'ApiRetiredError', status: 410, requestId: 'req-410' } });
    } finally {
      vi.doUnmock('../../src/transport/after-answer.js');
      vi.resetModules();
    }
  });
});

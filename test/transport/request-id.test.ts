import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { loadGraphQLRuntime } from '../../src/graphql/graphql-client.js';
import { createRunpodClient, NotFoundError, ServerError, ValidationError, type ResponseInfo } from '../../src/index.js';
import { createRunpodRestClient } from '../../src/rest/index.js';
import { assertNoSecret, captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

beforeAll(() => loadGraphQLRuntime());

const RID = 'req_0123456789abcdef';
const restPod = { id: 'pod-1', name: 'p', desiredStatus: 'RUNNING', imageName: 'img' };

describe('every error from an HTTP answer carries its requestId', () => {
  it.each([
    ['x-request-id', { 'x-request-id': RID }],
    ['x-runpod-request-id', { 'x-runpod-request-id': RID }],
    ['x-runpod-worker-id, when nothing else names the answer', { 'x-runpod-worker-id': RID }],
  ])('an HTTP error status, from %s', async (_name, headers) => {
    const { fetch } = recordingFetch(() => json({ title: 'Not Found', status: 404, detail: 'no pod' }, { status: 404, headers }));
    const err = await captureError<NotFoundError>(createRunpodRestClient({ apiKey: TEST_API_KEY, fetch }).pods.get('pod-1'));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.requestId).toBe(RID);
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({ requestId: RID });
  });

  it('x-request-id wins over the others; none at all leaves it undefined', async () => {
    const both = recordingFetch(() => json({}, { status: 500, headers: { 'x-runpod-request-id': 'other', 'x-request-id': RID } }));
    expect((await captureError(createRunpodRestClient({ apiKey: TEST_API_KEY, fetch: both.fetch, maxRetries: 0 }).pods.get('p'))).requestId).toBe(RID);
    const none = recordingFetch(() => json({}, { status: 500 }));
    expect((await captureError(createRunpodRestClient({ apiKey: TEST_API_KEY, fetch: none.fetch, maxRetries: 0 }).pods.get('p'))).requestId).toBeUndefined();
  });

  it('a 2xx of the wrong shape, or not JSON', async () => {
    const shape = recordingFetch(() => json({ unexpected: true }, { headers: { 'x-request-id': RID } }));
    const wrong = await captureError<ServerError>(createRunpodRestClient({ apiKey: TEST_API_KEY, fetch: shape.fetch }).pods.get('p'));
    expect(wrong).toBeInstanceOf(ServerError);
    expect(wrong.requestId).toBe(RID);
    const html = recordingFetch(() => new Response('<html>proxy</html>', { headers: { 'content-type': 'text/html', 'x-request-id': RID } }));
    expect((await captureError(createRunpodRestClient({ apiKey: TEST_API_KEY, fetch: html.fetch }).pods.get('p'))).requestId).toBe(RID);
  });

  it('GraphQL errors on HTTP 200, and a wrong-shaped GraphQL answer', async () => {
    const { fetch } = recordingFetch((_c, i) =>
      i === 0 ? json({ errors: [{ message: 'pod not found' }], data: null }, { headers: { 'x-request-id': RID } }) : json({ data: 5 }, { headers: { 'x-request-id': `${RID}-2` } }),
    );
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const errors = await captureError(rp.graphql.request('query Q { myself { id } }'));
    expect(errors.requestId).toBe(RID);
    expect((await captureError(rp.graphql.request('query Q { myself { id } }'))).requestId).toBe(`${RID}-2`);
  });

  it('a request id that echoes the key is scrubbed', async () => {
    const { fetch } = recordingFetch(() => json({}, { status: 404, headers: { 'x-request-id': `r-${TEST_API_KEY}` } }));
    const err = await captureError(createRunpodRestClient({ apiKey: TEST_API_KEY, fetch }).pods.get('p'));
    expect(err.requestId).toMatch(/^r-/);
    assertNoSecret(err.requestId);
  });
});

describe('onResponse: each answer with its status, request id, worker id, RateLimit windows and headers', () => {
  it('REST v2: the RateLimit windows and the request id of the answer', async () => {
    const { fetch } = recordingFetch(() =>
      json(restPod, { headers: { 'x-request-id': RID, ratelimit: '"minute";r=175;t=30', 'ratelimit-policy': '"minute";q=180;w=60', 'set-cookie': 'a=b' } }),
    );
    const seen: ResponseInfo[] = [];
    const pod = await createRunpodRestClient({ apiKey: TEST_API_KEY, fetch }).pods.get('pod-1', { onResponse: (info) => seen.push(info) });
    expect(pod.id).toBe('pod-1');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ operation: 'GET /pods/{id}', status: 200, requestId: RID, workerId: undefined });
    expect(seen[0]!.rateLimit).toEqual([expect.objectContaining({ name: 'minute', remaining: 175, resetSeconds: 30, quota: 180, windowSeconds: 60 })]);
    expect(seen[0]!.headers['x-request-id']).toBe(RID);
    expect(seen[0]!.headers['set-cookie']).toBeUndefined();
  });

  it('every answer of a retried call, error answers included; a throwing hook changes nothing', async () => {
    const { fetch } = recordingFetch((_c, i) => (i === 0 ? json({}, { status: 503, headers: { 'x-request-id': 'first', 'retry-after': '0' } }) : json(restPod, { headers: { 'x-request-id': 'second' } })));
    const ids: Array<string | undefined> = [];
    const rest = createRunpodRestClient({ apiKey: TEST_API_KEY, fetch });
    await rest.pods.get('pod-1', {
      onResponse: (info) => {
        ids.push(info.requestId);
        throw new Error('hook bug');
      },
    });
    expect(ids).toEqual(['first', 'second']);
  });

  it('GraphQL and serverless: the worker id of a serverless answer', async () => {
    const { fetch } = recordingFetch((call) =>
      call.url.pathname.endsWith('/graphql')
        ? json({ data: { myself: { id: 'u1' } } }, { headers: { 'x-request-id': RID } })
        : json({ id: 'j1', status: 'COMPLETED', output: 1 }, { headers: { 'x-runpod-worker-id': 'wkr-7' } }),
    );
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const seen: ResponseInfo[] = [];
    await rp.graphql.request('query Me { myself { id } }', undefined, { onResponse: (i) => seen.push(i) });
    await rp.endpoint('ep1').job('j1').status({ onResponse: (i) => seen.push(i) });
    await rp.endpoint('ep1').runSync({ x: 1 }, { onResponse: (i) => seen.push(i) });
    expect(seen.map((i) => [i.operation, i.requestId, i.workerId])).toEqual([
      ['Me', RID, undefined],
      ['GET /status/{jobId} (endpoint ep1)', 'wkr-7', 'wkr-7'],
      ['POST /runsync (endpoint ep1)', 'wkr-7', 'wkr-7'],
    ]);
  });

  it('headers that echo the key reach the hook scrubbed', async () => {
    const { fetch } = recordingFetch(() => json(restPod, { headers: { 'www-authenticate': `Bearer token="${TEST_API_KEY}"`, 'content-location': `/x?api_key=${encodeURIComponent(TEST_API_KEY)}` } }));
    const seen: ResponseInfo[] = [];
    await createRunpodRestClient({ apiKey: TEST_API_KEY, fetch }).pods.get('pod-1', { onResponse: (i) => seen.push(i) });
    expect(seen[0]!.headers['www-authenticate']).toContain('Bearer');
    assertNoSecret(seen);
  });

  it('an onResponse that is not a function is a ValidationError, and nothing is sent', async () => {
    const { fetch, calls } = recordingFetch(() => json(restPod));
    const err = await captureError(createRunpodRestClient({ apiKey: TEST_API_KEY, fetch }).pods.get('pod-1', { onResponse: 'log' as unknown as () => void }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).field).toBe('onResponse');
    expect(calls).toHaveLength(0);
  });
});

describe('the emulator sends x-request-id on REST v2 answers, as production does', () => {
  const KEY = 'rpa_request_id_key';
  let server: ListeningEmulator;
  beforeAll(async () => {
    server = await listen(createEmulator({ apiKeys: [KEY] }), { port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('on a 2xx, a 404 and a 401, over loopback', async () => {
    const rest = createRunpodRestClient({ apiKey: KEY, restUrl: server.restV2Url });
    const seen: ResponseInfo[] = [];
    await rest.pods.list(undefined, { onResponse: (i) => seen.push(i) });
    expect(seen[0]!.requestId).toMatch(/^\S{8,}$/);
    expect(seen[0]!.rateLimit.length).toBeGreaterThan(0);
    const missing = await captureError(rest.pods.get('no-such-pod'));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.requestId).toMatch(/^\S{8,}$/);
    expect(missing.requestId).not.toBe(seen[0]!.requestId);
    const wrongKey = await captureError(createRunpodRestClient({ apiKey: 'rpa_wrong_key', restUrl: server.restV2Url }).pods.list());
    expect(wrongKey.requestId).toMatch(/^\S{8,}$/);
  });
});

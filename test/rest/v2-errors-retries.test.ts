import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ApiRetiredError,
  AuthenticationError,
  CapacityUnavailableError,
  ConflictError,
  createRunpodClient,
  InsufficientBalanceError,
  NotFoundError,
  RateLimitError,
  ServerError,
  ValidationError,
  type RateLimitInfo,
  type RunpodClient,
  type RunpodClientOptions,
} from '../../src/index.js';
import { createRunpodRestClient, type RunpodRest } from '../../src/rest/index.js';
import { restV1Replacement } from '../../src/transport/rest-v1-retired.js';
import { captureError, json, recordingFetch, recordingFetchWithCatalog, TEST_API_KEY, settle, type RecordedCall } from '../helpers.js';

const problem = (status: number, detail: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  json({ title: 'Problem', status, detail, ...extra }, { status, headers: { 'content-type': 'application/problem+json', ...headers } });
const pod = (status: string, actions: string[]) => ({ id: 'p1', name: 'p', status, actions });
const RATE_HEADERS = { ratelimit: '"minute";r=0;t=1, "hour";r=3900;t=1800', 'ratelimit-policy': '"minute";q=200;w=60, "hour";q=5000;w=3600' };

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function client(respond: (call: RecordedCall, index: number) => Response | Promise<Response>, options: RunpodClientOptions = {}) {
  const { fetch, calls } = recordingFetchWithCatalog(respond);
  return { rp: createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 2, ...options }), calls };
}

const fail = async (run: Promise<unknown>) => captureError(settle(run));

describe('REST v2 errors from problem bodies', () => {
  it('422 → ValidationError with the server\'s errors and the field it names', async () => {
    const { rp, calls } = client(() => problem(422, 'Request validation failed.', { errors: ["$: additional properties 'dataCenterId' not allowed"] }));
    const err = await fail(rp.rest.templates.update('t', { name: 'x' }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ status: 422, field: 'body.dataCenterId', errors: ["$: additional properties 'dataCenterId' not allowed"] });
    expect(calls).toHaveLength(1);
  });

  it('409 on an action → ConflictError carrying the pod\'s status and valid actions (one GET of the pod)', async () => {
    const { rp, calls } = client((call) => (call.method === 'POST' ? problem(409, 'action start is not valid for a RUNNING pod') : json(pod('RUNNING', ['stop', 'restart', 'terminate']))));
    const err = await fail(rp.rest.pods.start('p1'));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({ status: 409, resourceStatus: 'RUNNING', validActions: ['stop', 'restart', 'terminate'] });
    expect(err.message).toContain('the pod is RUNNING; valid now: stop, restart, terminate');
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['POST /v2/pods/p1/action', 'GET /v2/pods/p1']);
  });

  it('409 on a pod update or delete carries the pod\'s state too', async () => {
    const { rp } = client((call) => (call.method === 'GET' ? json(pod('EXITED', ['start', 'terminate'])) : problem(409, 'conflict')));
    expect(await fail(rp.rest.pods.update('p1', { name: 'n' }))).toMatchObject({ resourceStatus: 'EXITED', validActions: ['start', 'terminate'] });
    expect(await fail(rp.rest.pods.delete('p1'))).toMatchObject({ resourceStatus: 'EXITED' });
  });

  it('409 whose pod cannot be read stays the plain ConflictError', async () => {
    const { rp, calls } = client((call) => (call.method === 'POST' ? problem(409, 'not valid now') : problem(503, 'down')));
    const err = await fail(rp.rest.pods.stop('p1'));
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).resourceStatus).toBeUndefined();
    expect(calls).toHaveLength(2);
  });

  it('400 with the no-capacity prose → CapacityUnavailableError, create sent once; other 400s stay BadRequest', async () => {
    const { rp, calls } = client(() => problem(400, 'This GPU and data center combination could not be placed: no capacity.'));
    const err = await fail(rp.rest.pods.create({ name: 'p', image: 'i', gpu: { id: 'NVIDIA L4' } }));
    expect(err).toBeInstanceOf(CapacityUnavailableError);
    expect(calls).toHaveLength(1);
    const other = client(() => problem(400, 'ports must not repeat'));
    expect(await fail(other.rp.rest.pods.create({ name: 'p', image: 'i', gpu: { id: 'NVIDIA L4' } }))).not.toBeInstanceOf(CapacityUnavailableError);
  });

  it('402 → InsufficientBalanceError; 401 → AuthenticationError without the key', async () => {
    expect(await fail(client(() => problem(402, 'balance too low')).rp.rest.pods.create({ name: 'p', image: 'i', cpu: { id: 'cpu3c', vcpuCount: 2 } }))).toBeInstanceOf(
      InsufficientBalanceError,
    );
    const err = await fail(client(() => problem(401, 'invalid key')).rp.rest.pods.list());
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.request).toEqual({ method: 'GET', url: 'https://api.runpod.io/v2/pods', operation: 'GET /pods' });
  });

  it('an answer of the wrong shape is a ServerError, never a TypeError', async () => {
    expect(await fail(client(() => json([])).rp.rest.pods.list())).toBeInstanceOf(ServerError);
    expect(await fail(client(() => json({ pods: 'none' })).rp.rest.pods.list())).toBeInstanceOf(ServerError);
    expect(await fail(client(() => json({ records: [] })).rp.rest.billing.pods())).toBeInstanceOf(ServerError);
    expect(await fail(client(() => json({ keys: [1] })).rp.rest.sshKeys.list())).toBeInstanceOf(ServerError);
  });
});

describe('REST v2 rate limits', () => {
  it('429 honours Retry-After, then succeeds; onRateLimit sees the quota on every answer', async () => {
    const seen: RateLimitInfo[] = [];
    const { rp, calls } = client(
      (_call, i) => (i === 0 ? problem(429, 'minute window exhausted', {}, { ...RATE_HEADERS, 'retry-after': '7' }) : json({ pods: [] }, { headers: RATE_HEADERS })),
      { onRateLimit: (info) => seen.push(info) },
    );
    const run = rp.rest.pods.list();
    run.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(6_900);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(await run).toEqual([]);
    expect(calls).toHaveLength(2);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual({
      operation: 'GET /pods',
      windows: [
        { name: 'minute', remaining: 0, resetSeconds: 1, quota: 200, windowSeconds: 60 },
        { name: 'hour', remaining: 3900, resetSeconds: 1800, quota: 5000, windowSeconds: 3600 },
      ],
    });
  });

  it('a 429 that outlasts the retries is a RateLimitError carrying the windows', async () => {
    const { rp, calls } = client(() => problem(429, 'minute window exhausted', {}, { ...RATE_HEADERS, 'retry-after': '1' }), { maxRetries: 1 });
    const err = await fail(rp.rest.templates.list());
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ retryAfterMs: 1000, rateLimit: [{ name: 'minute', remaining: 0 }, { name: 'hour', quota: 5000 }] });
    expect(calls).toHaveLength(2);
  });
});

describe('REST v2 retries', () => {
  const cut = () => Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }));

  it('GETs and start/stop/restart are retried after a 5xx', async () => {
    const get = client((_c, i) => (i === 0 ? problem(503, 'busy') : json(pod('RUNNING', []))));
    expect(await settle(get.rp.rest.pods.get('p1'))).toMatchObject({ id: 'p1' });
    expect(get.calls).toHaveLength(2);
    for (const action of ['start', 'stop', 'restart'] as const) {
      const { rp, calls } = client((_c, i) => (i === 0 ? problem(502, 'bad gateway') : json(pod('RUNNING', []))));
      await settle(rp.rest.pods[action]('p1'));
      expect(calls.map((c) => c.body)).toEqual([`{"action":"${action}"}`, `{"action":"${action}"}`]);
    }
  });

  it('a create is never resent once it may have arrived; a pod update neither', async () => {
    const create = client((call) => (call.method === 'POST' ? problem(500, 'upstream') : json({ pods: [] })));
    await fail(create.rp.rest.templates.create({ name: 't', image: 'i' }));
    expect(create.calls.filter((c) => c.method === 'POST')).toHaveLength(1);
    const update = client(() => problem(503, 'busy'));
    await fail(update.rp.rest.pods.update('p1', { name: 'n' }));
    expect(update.calls).toHaveLength(1);
  });

  it.each([
    ['terminate', (rp: RunpodClient) => rp.rest.pods.terminate('p1'), 'POST /v2/pods/p1/action'],
    ['pod delete', (rp: RunpodClient) => rp.rest.pods.delete('p1'), 'DELETE /v2/pods/p1'],
    ['template delete', (rp: RunpodClient) => rp.rest.templates.delete('t1'), 'DELETE /v2/templates/t1'],
    ['delegation revoke', (rp: RunpodClient) => rp.rest.registries.delegations.revoke('d1'), 'DELETE /v2/registries/delegations/d1'],
  ])('%s answered 404 on a retry, after a lost answer, counts as done', async (_name, run, route) => {
    const { rp, calls } = client((_c, i) => (i === 0 ? cut() : problem(404, 'not found')));
    await expect(settle(run(rp))).resolves.toBeUndefined();
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([route, route]);
    const timedOut = client((_c, i) => (i === 0 ? problem(504, 'gateway timeout') : problem(404, 'not found')));
    await expect(settle(run(timedOut.rp))).resolves.toBeUndefined();
  });

  it('a 404 on the first attempt, or after a 429 (which did nothing), is still NotFoundError', async () => {
    expect(await fail(client(() => problem(404, 'no such pod')).rp.rest.pods.terminate('p1'))).toBeInstanceOf(NotFoundError);
    const after429 = client((_c, i) => (i === 0 ? problem(429, 'slow down', {}, { 'retry-after': '1' }) : problem(404, 'no such pod')));
    expect(await fail(after429.rp.rest.pods.delete('p1'))).toBeInstanceOf(NotFoundError);
    expect(after429.calls).toHaveLength(2);
    const getAfterCut = client((_c, i) => (i === 0 ? cut() : problem(404, 'no such pod')));
    expect(await fail(getAfterCut.rp.rest.pods.get('p1'))).toBeInstanceOf(NotFoundError);
  });
});

describe('REST v1 (retired, no client of its own): a 410 from a v1 URL names the REST v2 call to use', () => {
  it.each([
    [(rest: RunpodRest) => rest.pods.get('p1'), 'GET', '/v1/pods/p1', 'rp.rest.pods.get(id)'],
    [(rest: RunpodRest) => rest.pods.list(), 'GET', '/v1/pods', 'rp.rest.pods.list()'],
    [(rest: RunpodRest) => rest.templates.delete('t1'), 'DELETE', '/v1/templates/t1', 'rp.rest.templates.delete(id)'],
    [(rest: RunpodRest) => rest.billing.pods(), 'GET', '/v1/billing/pods', 'rp.rest.billing.pods(query)'],
    [(rest: RunpodRest) => rest.registries.list(), 'GET', '/v1/registries', 'rp.rest (REST v2, https://rest.runpod.io/v2)'],
  ])('%#: a restUrl left at v1 (%s %s)', async (run, method, path, replacement) => {
    const { fetch, calls } = recordingFetch(() => json({ error: 'gone', status: 410 }, { status: 410 }));
    const rest = createRunpodRestClient({ apiKey: TEST_API_KEY, fetch, restUrl: 'https://rest.runpod.io/v1' });
    const err = await fail(Promise.resolve(run(rest)));
    expect(err).toBeInstanceOf(ApiRetiredError);
    expect(err).toMatchObject({ status: 410, replacement });
    expect(err.message).toContain(`use ${replacement} (REST v2) instead`);
    expect(err.message).not.toContain(TEST_API_KEY);
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([`${method} ${path}`]);
  });

  it.each([
    ['POST', 'https://rest.runpod.io/v1/pods/p1/start', 'rp.rest.pods.start(id)'],
    ['POST', 'https://rest.runpod.io/v1/pods/p1/reset', 'rp.rest.pods.restart(id), or rp.rest.pods.stop(id) then rp.rest.pods.start(id)'],
    ['POST', 'https://rest.runpod.io/v1/pods', 'rp.rest.pods.create(body)'],
    ['PATCH', 'https://rest.runpod.io/v1/endpoints/e1', 'rp.rest.endpoints.update(id, body)'],
    ['POST', 'https://rest.runpod.io/v1/networkvolumes/v1/update', 'rp.rest.networkVolumes.update(id, body)'],
    ['GET', 'https://rest.runpod.io/v1/containerregistryauth', 'rp.rest.registries.list()'],
    ['GET', 'https://rest.runpod.io/v1/billing/endpoints?bucketSize=day', 'rp.rest.billing.serverless(query)'],
    ['GET', 'https://rest.runpod.io/v1/billing/networkvolumes', 'rp.rest.billing.networkVolumes(query)'],
    ['POST', 'https://rest.runpod.io/v1/templates/t1/start', 'rp.rest (REST v2, https://rest.runpod.io/v2)'],
    ['GET', 'https://rest.runpod.io/v1/nothing', 'rp.rest (REST v2, https://rest.runpod.io/v2)'],
    ['GET', 'https://rest.runpod.io/v2/pods', undefined],
    ['POST', 'https://api.runpod.ai/v2/ep/openai/v1/chat/completions', undefined],
    ['GET', 'not a url', undefined],
  ])('%s %s is replaced by %s', (method, url, replacement) => {
    expect(restV1Replacement(method, url)).toBe(replacement);
  });
});

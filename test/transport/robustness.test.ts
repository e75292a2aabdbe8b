// Issue 22, second adversarial round: retries by what a call changes, hooks outside the attempt,
// a monotonic clock, Retry-After, inputs checked before the first request, redirects.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunpodClient } from '../../src/client.js';
import { ConflictError, PossiblyCreatedError, ServerError, ValidationError } from '../../src/errors.js';
import { CREATE_MARKER_ENV } from '../../src/transport/create-marker.js';
import { parseRetryAfterMs } from '../../src/transport/retry-after.js';
import { captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

const RATE_HEADERS = { ratelimit: '"minute";r=10;t=1', 'ratelimit-policy': '"minute";q=200;w=60' };
const problem = (status: number) => json({ title: 'x', status, detail: 'busy' }, { status });
const pod = (status: string) => ({ id: 'p1', status, actions: [] });
const fast = { apiKey: TEST_API_KEY, maxRetries: 2, rateLimits: false as const };

afterEach(() => vi.restoreAllMocks());

describe('retries by what a call changes', () => {
  it.each([
    ['start', 'RUNNING'],
    ['stop', 'EXITED'],
    ['restart', 'RUNNING'],
  ] as const)('%s: a resend after a lost answer that meets 409 with the pod %s is a success', async (action, status) => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const { fetch, calls } = recordingFetch((call, i) => (call.method === 'GET' ? json(pod(status)) : i === 0 ? problem(502) : problem(409)));
    const rp = createRunpodClient({ ...fast, fetch });
    await expect(rp.rest.pods[action]('p1')).resolves.toMatchObject({ id: 'p1', status });
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(2);
  });

  it('a 409 to a resend with the pod elsewhere stays a ConflictError; a 409 to a first send is never read as done', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const lost = recordingFetch((call, i) => (call.method === 'GET' ? json(pod('EXITED')) : i === 0 ? problem(502) : problem(409)));
    const err = await captureError<ConflictError>(createRunpodClient({ ...fast, fetch: lost.fetch }).rest.pods.start('p1'));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.resourceStatus).toBe('EXITED');
    const first = recordingFetch((call) => (call.method === 'GET' ? json(pod('RUNNING')) : problem(409)));
    expect(await captureError(createRunpodClient({ ...fast, fetch: first.fetch }).rest.pods.start('p1'))).toBeInstanceOf(ConflictError);
  });

  it('purgeQueue is sent once after a lost answer (503, cut connection)', async () => {
    const answered = recordingFetch(() => problem(503));
    expect(await captureError(createRunpodClient({ ...fast, fetch: answered.fetch }).endpoint('ep').purgeQueue())).toBeInstanceOf(ServerError);
    expect(answered.calls).toHaveLength(1);
    const cut = recordingFetch(() => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } })));
    await captureError(createRunpodClient({ ...fast, fetch: cut.fetch }).endpoint('ep').purgeQueue());
    expect(cut.calls).toHaveLength(1);
  });

  it('a throwing onRateLimit or onRetry hook changes nothing: one GET, a create resolves, a retry still happens', async () => {
    const boom = () => {
      throw new Error('hook failed');
    };
    const get = recordingFetch(() => json({ pods: [] }, { headers: RATE_HEADERS }));
    await expect(createRunpodClient({ ...fast, fetch: get.fetch, onRateLimit: boom }).rest.pods.list()).resolves.toEqual([]);
    expect(get.calls).toHaveLength(1);
    const create = recordingFetch(() => json({ id: 't1' }, { status: 201, headers: RATE_HEADERS }));
    await expect(createRunpodClient({ ...fast, fetch: create.fetch, onRateLimit: boom }).rest.templates.create({ name: 't', image: 'i' })).resolves.toMatchObject({ id: 't1' });
    expect(create.calls).toHaveLength(1);
    const failed = recordingFetch(() => problem(422));
    expect(await captureError(createRunpodClient({ ...fast, fetch: failed.fetch, onRateLimit: boom }).rest.templates.create({ name: 't', image: 'i' }))).toBeInstanceOf(ValidationError);
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const retried = recordingFetch((_c, i) => (i === 0 ? problem(503) : json({ pods: [] })));
    await expect(createRunpodClient({ ...fast, fetch: retried.fetch, onRetry: boom }).rest.pods.list()).resolves.toEqual([]);
    expect(retried.calls).toHaveLength(2);
  });

  it('a throwing onProgress ends no wait', async () => {
    let polls = 0;
    const { fetch } = recordingFetch(() => json({ id: 'j', status: ++polls < 3 ? 'IN_PROGRESS' : 'COMPLETED', output: polls }));
    const rp = createRunpodClient({ ...fast, fetch });
    const onProgress = () => {
      throw new Error('hook failed');
    };
    await expect(rp.endpoint('ep').job('j').wait({ timeoutMs: 5_000, pollIntervalMs: 5, maxPollIntervalMs: 10, onProgress })).resolves.toMatchObject({ status: 'COMPLETED' });
  });

  it.each([
    ['templates', (rp: ReturnType<typeof createRunpodClient>) => rp.rest.templates.create({ name: 't', image: 'i' }), '/templates', 'templates'],
    ['endpoints', (rp: ReturnType<typeof createRunpodClient>) => rp.rest.endpoints.create({ name: 'e', image: 'i', type: 'QUEUE', scaling: { type: 'QUEUE_DELAY', queueDelay: 4 } } as never), '/serverless', 'endpoints'],
  ] as const)('a %s create whose answer is lost is found by its marker', async (_n, create, path, key) => {
    let marker = '';
    const { fetch, calls } = recordingFetch((call) => {
      if (call.method === 'POST') {
        marker = JSON.parse(call.body!).env[CREATE_MARKER_ENV];
        return problem(503);
      }
      return json({ [key]: [{ id: 'found', env: { [CREATE_MARKER_ENV]: marker } }] });
    });
    const rp = createRunpodClient({ ...fast, fetch });
    await expect(create(rp)).resolves.toMatchObject({ id: 'found' });
    expect(calls.filter((c) => c.method === 'POST' && c.url.pathname.endsWith(path))).toHaveLength(1);
  });

  it.each([
    ['network volume', (rp: ReturnType<typeof createRunpodClient>) => rp.rest.networkVolumes.create({ name: 'v', size: 10, dataCenter: 'EU-RO-1' } as never)],
    ['registry', (rp: ReturnType<typeof createRunpodClient>) => rp.rest.registries.create({ name: 'r', username: 'u', password: 'p' })],
    ['delegation', (rp: ReturnType<typeof createRunpodClient>) => rp.rest.registries.delegations.create({ resource: 'arn:aws:ecr:eu-west-1:1:repository/x' })],
  ] as const)('a %s create whose answer is lost is a PossiblyCreatedError, sent once', async (_n, create) => {
    const { fetch, calls } = recordingFetch(() => problem(504));
    const err = await captureError<PossiblyCreatedError>(create(createRunpodClient({ ...fast, fetch })));
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect(err.possiblyCreated).toBe(true);
    expect(calls).toHaveLength(1);
  });
});

describe('Retry-After', () => {
  it('takes delta-seconds only as a plain non-negative integer', () => {
    const parse = (value: string) => parseRetryAfterMs(new Headers({ 'retry-after': value }));
    expect(parse('16')).toBe(16_000);
    expect(parse(' 3 ')).toBe(3_000);
    for (const bad of ['0x10', '1e1', '-1', '1.5', '+5', 'Infinity', '0b1', '']) expect(parse(bad)).toBeUndefined();
  });

  it("measures an HTTP-date against the answer's Date header, not the local clock", () => {
    const headers = new Headers({ 'retry-after': 'Tue, 24 Nov 2026 10:00:30 GMT', date: 'Tue, 24 Nov 2026 10:00:00 GMT' });
    expect(parseRetryAfterMs(headers, Date.parse('2030-01-01T00:00:00Z'))).toBe(30_000);
    expect(parseRetryAfterMs(headers, 0)).toBe(30_000);
    const noDate = new Headers({ 'retry-after': 'Tue, 24 Nov 2026 10:00:30 GMT' });
    expect(parseRetryAfterMs(noDate, Date.parse('2026-11-24T10:00:20Z'))).toBe(10_000);
  });
});

describe('a monotonic clock: the wall clock jumping either way changes no wait', () => {
  it.each([3_600_000, -3_600_000])('job.wait with Date.now jumping %i ms mid-wait still waits for the job', async (jump) => {
    const realNow = Date.now.bind(Date);
    let offset = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
    let polls = 0;
    const { fetch } = recordingFetch(() => {
      offset = jump;
      polls++;
      return json({ id: 'j', status: polls < 3 ? 'IN_PROGRESS' : 'COMPLETED', output: 1 });
    });
    const rp = createRunpodClient({ ...fast, fetch });
    const started = performance.now();
    await expect(rp.endpoint('ep').job('j').wait({ timeoutMs: 5_000, pollIntervalMs: 10, maxPollIntervalMs: 20 })).resolves.toMatchObject({ status: 'COMPLETED' });
    expect(polls).toBeGreaterThanOrEqual(3);
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('a deadline still ends on time when the wall clock goes back an hour', async () => {
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 3_600_000);
    const { fetch } = recordingFetch(() => json({ id: 'j', status: 'IN_QUEUE' }));
    const rp = createRunpodClient({ ...fast, fetch });
    const started = performance.now();
    await captureError(rp.endpoint('ep').job('j').wait({ timeoutMs: 150, pollIntervalMs: 10, maxPollIntervalMs: 20 }));
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});

describe('inputs checked before the first request', () => {
  const valid = { name: 'p', image: 'img', gpu: { id: 'NVIDIA GeForce RTX 4090', count: 1 } };

  it.each([
    ['an inherited body', () => Object.create(valid) as typeof valid],
    ['constructor as a key', () => ({ ...valid, constructor: 1 })],
    ['toString as a key', () => ({ ...valid, toString: 'x' })],
    ['__proto__ as a key', () => JSON.parse(`{"name":"p","image":"img","gpu":{"id":"g","count":1},"__proto__":{"x":1}}`) as typeof valid],
    ['gpu.count 1e300', () => ({ ...valid, gpu: { id: 'g', count: 1e300 } })],
    ['gpu.count 2^53', () => ({ ...valid, gpu: { id: 'g', count: 2 ** 53 } })],
    ['gpu.count NaN', () => ({ ...valid, gpu: { id: 'g', count: Number.NaN } })],
    ['an inherited gpu', () => ({ ...valid, gpu: Object.create(valid.gpu) as typeof valid.gpu })],
  ])('rest.pods.create refuses %s with nothing sent', async (_name, body) => {
    const { fetch, calls } = recordingFetch(() => json({ id: 'p1' }, { status: 201 }));
    const err = await captureError(createRunpodClient({ ...fast, fetch }).rest.pods.create(body()));
    expect(err).toBeInstanceOf(ValidationError);
    expect(calls).toHaveLength(0);
  });

  it('rp.endpoint(undefined) and other non-ids throw a ValidationError at once', () => {
    const rp = createRunpodClient({ ...fast, fetch: async () => json({}) });
    for (const id of [undefined, null, 42, '', '..']) expect(() => rp.endpoint(id as never)).toThrow(ValidationError);
  });

  it('an Invalid Date option is a ValidationError naming it, with nothing sent', async () => {
    const { fetch, calls } = recordingFetch(() => json({ records: [] }));
    const err = await captureError<ValidationError>(createRunpodClient({ ...fast, fetch }).rest.billing.pods({ startTime: new Date('nope') } as never));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe('startTime');
    expect(calls).toHaveLength(0);
  });
});

describe('redirects change method and body as the Fetch standard says', () => {
  it.each([
    [301, 'GET', false],
    [302, 'GET', false],
    [303, 'GET', false],
    [307, 'POST', true],
    [308, 'POST', true],
  ] as const)('a POST redirected with %i is sent again as %s', async (status, method, keepsBody) => {
    const { fetch, calls } = recordingFetch((_c, i) => (i === 0 ? new Response(null, { status, headers: { location: '/v2/templates2' } }) : json({ id: 't1' })));
    await createRunpodClient({ ...fast, fetch }).rest.templates.create({ name: 't', image: 'i' });
    expect(calls[1]!.method).toBe(method);
    expect(calls[1]!.body !== undefined).toBe(keepsBody);
    expect(calls[1]!.headers.get('content-type') !== null).toBe(keepsBody);
  });
});

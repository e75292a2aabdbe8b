import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  AuthenticationError,
  CapacityUnavailableError,
  createRunpodClient,
  GraphQLResponseError,
  ServerError,
  ValidationError,
  type Pod,
  type PodStatus,
} from '../../src/index.js';
import { podFixture } from '../fixtures.js';
import { captureError, TEST_API_KEY } from '../helpers.js';

const API = 'https://api.runpod.io';

interface GraphQLBody {
  query: string;
  operationName?: string;
  variables?: Record<string, unknown>;
}

/** Intercepts one GraphQL POST and records the body it carried. */
function expectOperation(operationName: string, answer: unknown, status = 200) {
  const seen: { body?: GraphQLBody; headers?: Record<string, string | string[]> } = {};
  const scope = nock(API)
    .post('/graphql', (body: GraphQLBody) => body.operationName === operationName)
    .query({ api_key: TEST_API_KEY })
    .reply(function (_uri, body) {
      seen.body = body as GraphQLBody;
      seen.headers = this.req.headers;
      return [status, answer, { 'content-type': 'application/json' }];
    });
  return { scope, seen };
}

const client = () => createRunpodClient({ apiKey: TEST_API_KEY, maxRetries: 2 });

/** deploy checks GPU type ids against the catalog (once per client) before sending. */
function expectCatalog(ids: string[]) {
  return expectOperation('GpuTypeCatalog', { data: { gpuTypes: ids.map((id) => ({ id, displayName: id })) } });
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

describe('GraphQL operations on the wire', () => {
  it('deploy sends DeployPod with the whole input as one variable and env as key/value pairs', async () => {
    expectCatalog(['NVIDIA GeForce RTX 4090']);
    const { scope, seen } = expectOperation('DeployPod', { data: { podFindAndDeployOnDemand: podFixture() } });
    const pod = await client().pods.deploy({
      name: 'trainer',
      imageName: 'runpod/pytorch:2.4.0',
      gpuTypeId: 'NVIDIA GeForce RTX 4090',
      gpuCount: 1,
      cloudType: 'ALL',
      ports: '8888/http,22/tcp',
      env: { MODEL: 'llama' },
    });
    expect(scope.isDone()).toBe(true);
    expect(seen.headers?.['content-type']).toBe('application/json');
    expect(seen.body?.query).toMatch(/^\s*mutation DeployPod\(\$input: ?PodFindAndDeployOnDemandInput!\)/);
    expect(seen.body?.variables).toEqual({
      input: {
        name: 'trainer',
        imageName: 'runpod/pytorch:2.4.0',
        gpuTypeId: 'NVIDIA GeForce RTX 4090',
        gpuCount: 1,
        cloudType: 'ALL',
        ports: '8888/http,22/tcp',
        env: [
          { key: 'MODEL', value: 'llama' },
          { key: 'RUNPOD_GQL_CREATE_MARKER', value: expect.stringMatching(/^[0-9a-f]{32}$/) },
        ],
      },
    });
    expect(pod).toEqual(podFixture());
    expectTypeOf(pod).toEqualTypeOf<Pod>();
  });

  it('resume sends ResumePod with the whole input as one variable', async () => {
    const first = expectOperation('ResumePod', { data: { podResume: podFixture() } });
    await client().pods.resume({ podId: 'pod-abc123', gpuCount: 1 });
    expect(first.seen.body?.variables).toEqual({ input: { podId: 'pod-abc123', gpuCount: 1 } });
  });

  it('stop sends StopPod and returns id and desiredStatus', async () => {
    const { seen } = expectOperation('StopPod', { data: { podStop: { id: 'pod-abc123', desiredStatus: 'EXITED' } } });
    const stopped = await client().pods.stop('pod-abc123');
    expect(seen.body?.variables).toEqual({ input: { podId: 'pod-abc123' } });
    expect(stopped).toEqual({ id: 'pod-abc123', desiredStatus: 'EXITED' });
    expectTypeOf(stopped.desiredStatus).toEqualTypeOf<PodStatus>();
  });

  it('terminate sends TerminatePod', async () => {
    const { scope, seen } = expectOperation('TerminatePod', { data: { podTerminate: null } });
    await expect(client().pods.terminate('pod-abc123')).resolves.toBeUndefined();
    expect(scope.isDone()).toBe(true);
    expect(seen.body?.variables).toEqual({ input: { podId: 'pod-abc123' } });
  });

  it('get sends Pod and returns the pod, or null when absent', async () => {
    const { seen } = expectOperation('Pod', { data: { pod: podFixture() } });
    expect(await client().pods.get('pod-abc123')).toEqual(podFixture());
    expect(seen.body?.variables).toEqual({ input: { podId: 'pod-abc123' } });

    expectOperation('Pod', { data: { pod: null } });
    expect(await client().pods.get('missing')).toBeNull();
  });

  it('list sends MyPods with no variables and drops null entries', async () => {
    const { seen } = expectOperation('MyPods', { data: { myself: { pods: [podFixture(), null, podFixture({ id: 'pod-2' })] } } });
    const pods = await client().pods.list();
    expect(pods.map((p) => p.id)).toEqual(['pod-abc123', 'pod-2']);
    expect(seen.body?.variables ?? {}).toEqual({});
  });

  it('gpuTypes.list sends GpuTypes with the type filter and the lowestPrice input', async () => {
    const { seen } = expectOperation('GpuTypes', { data: { gpuTypes: [] } });
    await client().gpuTypes.list({ id: 'NVIDIA A100 80GB PCIe', gpuCount: 2, secureCloud: true, minVcpuCount: 8 });
    expect(seen.body?.variables).toEqual({
      input: { id: 'NVIDIA A100 80GB PCIe' },
      lowestPriceInput: { gpuCount: 2, secureCloud: true, minVcpuCount: 8 },
    });
  });

  it('gpuTypes.offers keeps in-stock offers that fit, cheapest first', async () => {
    const type = (id: string, memoryInGb: number, price: number | null, stockStatus: string | null, counts: number[] | null = [1, 2]) => ({
      id,
      displayName: id.toUpperCase(),
      memoryInGb,
      secureCloud: true,
      communityCloud: true,
      lowestPrice: { uninterruptablePrice: price, stockStatus, availableGpuCounts: counts },
    });
    const { seen } = expectOperation('GpuTypes', {
      data: {
        gpuTypes: [
          type('h100', 80, 2.99, 'Low'),
          type('a4000', 16, 0.17, 'High'),
          type('4090', 24, 0.69, 'Medium'),
          type('sold-out', 24, 0.3, 'None'),
          type('unknown-stock', 24, 0.3, null),
          type('no-price', 24, null, 'High'),
          type('only-one', 48, 0.5, 'High', [1]),
          type('too-dear', 48, 5, 'High'),
          null,
        ],
      },
    });
    const offers = await client().gpuTypes.offers({ gpuCount: 2, secureCloud: true, minMemoryInGb: 20, maxPricePerHour: 7 });
    expect(seen.body?.variables).toEqual({ input: null, lowestPriceInput: { gpuCount: 2, secureCloud: true } });
    expect(offers.map((o) => [o.gpuTypeId, o.pricePerHour, o.stockStatus])).toEqual([
      ['4090', 1.38, 'Medium'],
      ['h100', 5.98, 'Low'],
    ]);
    expect(offers[0]).toMatchObject({ pricePerGpuHour: 0.69, gpuCount: 2, cloud: 'SECURE', memoryInGb: 24, availableGpuCounts: [1, 2] });
  });
});

describe('GraphQL failures on the wire', () => {
  it('GraphQL errors keep partial data, the operation name and the code', async () => {
    expectOperation('MyPods', {
      data: { myself: { pods: null } },
      errors: [{ message: 'Something broke', path: ['myself', 'pods'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
    });
    const err = await captureError<GraphQLResponseError>(client().pods.list());
    expect(err).toBeInstanceOf(GraphQLResponseError);
    expect(err).toMatchObject({ operationName: 'MyPods', code: 'INTERNAL_SERVER_ERROR', status: 200, data: { myself: { pods: null } } });
    expect(err.errors[0]?.path).toEqual(['myself', 'pods']);
  });

  it('the no-capacity answer to deploy is a CapacityUnavailableError, and deploy is sent once', async () => {
    expectCatalog(['h100']);
    const { scope } = expectOperation('DeployPod', {
      data: { podFindAndDeployOnDemand: null },
      errors: [{ message: 'There are no longer any instances available with the requested specifications. Please refresh and try again.', extensions: { code: 'RUNPOD' } }],
    });
    const err = await captureError(client().pods.deploy({ imageName: 'x', gpuTypeId: 'h100', gpuCount: 1 }));
    expect(err).toBeInstanceOf(CapacityUnavailableError);
    expect((err as CapacityUnavailableError).operationName).toBe('DeployPod');
    expect(scope.isDone()).toBe(true);
  });

  it('401 is an AuthenticationError and is not retried', async () => {
    const { scope } = expectOperation('Pod', { errors: [{ message: 'Unauthorized' }] }, 401);
    const err = await captureError(client().pods.get('pod-1'));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as AuthenticationError).status).toBe(401);
    expect(scope.isDone()).toBe(true);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('an unknown input field (HTTP 400 with errors) is a GraphQLResponseError with status 400', async () => {
    expectOperation('ResumePod', { errors: [{ message: 'Field "syncMachine" is not defined by type "PodResumeInput".' }] }, 400);
    const err = await captureError<GraphQLResponseError>(client().pods.resume({ podId: 'p', gpuCount: 1, syncMachine: true }));
    expect(err).toBeInstanceOf(GraphQLResponseError);
    expect(err.status).toBe(400);
    expect(err.operationName).toBe('ResumePod');
  });

  it('an HTML error page with status 200 is a ServerError naming the content type', async () => {
    nock(API).post('/graphql').query(true).reply(200, '<html><body>Bad gateway</body></html>', { 'content-type': 'text/html' });
    const err = await captureError(client().pods.list());
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toContain('text/html');
  });

  it('a malformed JSON body is a ServerError, not a SyntaxError', async () => {
    nock(API).post('/graphql').query(true).reply(200, '{"data": {', { 'content-type': 'application/json' });
    const err = await captureError(client().pods.list());
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toMatch(/unexpected answer: expected a GraphQL answer/);
  });

  it('bad input never leaves the machine', async () => {
    const rp = client();
    expect((await captureError<ValidationError>(rp.pods.get(''))).field).toBe('podId');
    expect((await captureError<ValidationError>(rp.pods.stop('  '))).field).toBe('podId');
    expect((await captureError<ValidationError>(rp.pods.deploy({ imageName: 'x', gpuTypeId: 'h', gpuCount: 0 }))).field).toBe('input.gpuCount');
    expect((await captureError<ValidationError>(rp.pods.deploy({ imageName: 'x', gpuTypeId: 'h', gpuCount: 1, ports: '8888:http' }))).field).toBe('input.ports');
    expect((await captureError<ValidationError>(rp.pods.deploy({ imageName: 'x', gpuCount: 1 } as never))).field).toBe('input.gpuTypeId');
    expect((await captureError<ValidationError>(rp.pods.resume({ podId: 'p', gpuCount: -1 }))).field).toBe('input.gpuCount');
    expect((await captureError<ValidationError>(rp.pods.deploy({ imageName: 'x', gpuTypeId: 'h', gpuCount: 1, cloudType: 'EVERYWHERE' as never }))).field).toBe('input.cloudType');
    expect((await captureError<ValidationError>(rp.gpuTypes.offers({ gpuCount: 1.5 }))).field).toBe('gpuCount');
    expect(nock.pendingMocks()).toEqual([]);
  });
});

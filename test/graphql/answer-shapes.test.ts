// Answers that parse but do not have the shape the pods and GPU-type surfaces read: each is a
// ServerError carrying the scrubbed body and naming the request, never a TypeError or a wrong value.
import { describe, expect, it } from 'vitest';
import { createRunpodClient, NotFoundError, PossiblyCreatedError, ServerError } from '../../src/index.js';
import { podFixture } from '../fixtures.js';
import { captureError, json, recordingFetch, TEST_API_KEY, type RecordedCall } from '../helpers.js';

const operationOf = (call: RecordedCall) => (JSON.parse(call.body ?? '{}') as { operationName?: string }).operationName;

/** A client whose every GraphQL request is answered `{ data }` (the catalog as the platform would). */
function clientAnswering(data: unknown) {
  const recorded = recordingFetch((call) => {
    if (operationOf(call) === 'GpuTypeCatalog') return json({ data: { gpuTypes: [{ id: 'NVIDIA RTX A4000', displayName: 'RTX A4000' }] } });
    return json({ data });
  });
  return { ...recorded, rp: createRunpodClient({ apiKey: TEST_API_KEY, fetch: recorded.fetch, maxRetries: 0 }) };
}

async function wrongShape(data: unknown, call: (rp: ReturnType<typeof clientAnswering>['rp']) => Promise<unknown>) {
  const { rp } = clientAnswering(data);
  const err = await captureError<ServerError>(() => call(rp));
  expect(err).toBeInstanceOf(ServerError);
  expect(err.status).toBe(200);
  expect(err.message).toMatch(/unexpected answer: expected/);
  return err;
}

const gpuType = { id: 'NVIDIA RTX A4000', displayName: 'RTX A4000', memoryInGb: 16, secureCloud: true, communityCloud: true, lowestPrice: { uninterruptablePrice: 0.25, stockStatus: 'High', availableGpuCounts: [1, 2] } };

describe('pods: a wrong-shaped answer is a ServerError with the body', () => {
  it.each([
    ['pods a string', { myself: { pods: 'x' } }],
    ['pods an object', { myself: { pods: { id: 'p' } } }],
    ['a pod a number', { myself: { pods: [5] } }],
    ['a pod without desiredStatus', { myself: { pods: [{ id: 'p' }] } }],
    ['ports not a list', { myself: { pods: [podFixture({ runtime: { uptimeInSeconds: 1, gpus: null, container: null, ports: 'x' as never } })] } }],
    ['myself a string', { myself: 'x' }],
    ['myself missing', {}],
  ])('list: %s', async (_name, data) => {
    const err = await wrongShape(data, (rp) => rp.pods.list());
    expect(err.request).toMatchObject({ method: 'POST', operation: 'MyPods' });
    expect(err.message).toContain('myself.pods');
    expect(String(err.body)).toBe(JSON.stringify(data).slice(0, 300));
  });

  it('list: an echoed key in the wrong-shaped body is scrubbed', async () => {
    // captureError fails on any trace of the key.
    const err = await wrongShape({ myself: { pods: `key ${TEST_API_KEY}` } }, (rp) => rp.pods.list());
    expect(String(err.body)).toContain('[REDACTED]');
  });

  it('list: no user or no pods is an empty list; nulls in the list are dropped', async () => {
    for (const data of [{ myself: null }, { myself: { pods: null } }, { myself: { pods: [] } }]) {
      expect(await clientAnswering(data).rp.pods.list()).toEqual([]);
    }
    const pod = podFixture();
    expect(await clientAnswering({ myself: { pods: [null, pod] } }).rp.pods.list()).toEqual([pod]);
  });

  it.each([
    ['a string', { pod: 'x' }],
    ['without an id', { pod: { desiredStatus: 'RUNNING' } }],
    ['missing', {}],
    ['env not a list', { pod: podFixture({ env: 'A=1' as never }) }],
  ])('get: pod %s', async (_name, data) => {
    const err = await wrongShape(data, (rp) => rp.pods.get('p1'));
    expect(err.request?.operation).toBe('Pod');
    expect(String(err.body)).toContain(JSON.stringify(data).slice(1, 40));
  });

  it('get: null is "no such pod"', async () => {
    expect(await clientAnswering({ pod: null }).rp.pods.get('p1')).toBeNull();
  });

  it('waitUntilReady: a pod whose ports are not a list is a ServerError, not a TypeError', async () => {
    const pod = podFixture({ runtime: { uptimeInSeconds: 1, gpus: null, container: null, ports: 'x' as never } });
    await wrongShape({ pod }, (rp) => rp.pods.waitUntilReady('p1', { timeoutMs: 1_000, pollIntervalMs: 1 }));
  });

  it('stop: a string is a ServerError; null is NotFoundError', async () => {
    const err = await wrongShape({ podStop: 'x' }, (rp) => rp.pods.stop('p1'));
    expect(err.request?.operation).toBe('StopPod');
    await expect(clientAnswering({ podStop: null }).rp.pods.stop('p1')).rejects.toBeInstanceOf(NotFoundError);
    expect(await clientAnswering({ podStop: { id: 'p1', desiredStatus: 'EXITED' } }).rp.pods.stop('p1')).toEqual({ id: 'p1', desiredStatus: 'EXITED' });
  });

  it('resume: a pod of the wrong shape is a ServerError (after checking whether the pod runs)', async () => {
    const recorded = recordingFetch((call) => json({ data: operationOf(call) === 'Pod' ? { pod: null } : { podResume: 5 } }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: recorded.fetch, maxRetries: 0 });
    const err = await captureError<ServerError>(() => rp.pods.resume({ podId: 'p1', gpuCount: 1 }));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.request?.operation).toBe('ResumePod');
    expect(err.body).toBe('{"podResume":5}');
  });

  it('deploy: a pod of the wrong shape may have been created: looked up, then PossiblyCreatedError with the ServerError as cause', async () => {
    const recorded = recordingFetch((call) => {
      const op = operationOf(call);
      if (op === 'GpuTypeCatalog') return json({ data: { gpuTypes: [{ id: 'NVIDIA RTX A4000', displayName: 'RTX A4000' }] } });
      if (op === 'MyPods') return json({ data: { myself: { pods: [] } } });
      return json({ data: { podFindAndDeployOnDemand: 'x' } });
    });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: recorded.fetch, maxRetries: 0 });
    const err = await captureError<PossiblyCreatedError>(() => rp.pods.deploy({ imageName: 'img', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 }, { markerLookup: { attempts: 1 } }));
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect(err.cause).toBeInstanceOf(ServerError);
    expect((err.cause as ServerError).body).toBe('{"podFindAndDeployOnDemand":"x"}');
    expect(recorded.calls.map(operationOf)).toEqual(['GpuTypeCatalog', 'DeployPod', 'MyPods']);
  });
});

describe('gpuTypes: a wrong-shaped answer is a ServerError with the body', () => {
  it.each([
    ['gpuTypes a string', { gpuTypes: 'x' }],
    ['gpuTypes missing', {}],
    ['a type a number', { gpuTypes: [5] }],
    ['a price as text', { gpuTypes: [{ ...gpuType, lowestPrice: { ...gpuType.lowestPrice, uninterruptablePrice: 'cheap' } }] }],
    ['lowestPrice a string', { gpuTypes: [{ ...gpuType, lowestPrice: 'x' }] }],
    ['counts not a list', { gpuTypes: [{ ...gpuType, lowestPrice: { ...gpuType.lowestPrice, availableGpuCounts: 'x' } }] }],
    ['counts of text', { gpuTypes: [{ ...gpuType, lowestPrice: { ...gpuType.lowestPrice, availableGpuCounts: ['1'] } }] }],
    ['memory as text', { gpuTypes: [{ ...gpuType, memoryInGb: '16' }] }],
  ])('%s: list and offers', async (_name, data) => {
    for (const call of [(rp: ReturnType<typeof clientAnswering>['rp']) => rp.gpuTypes.list(), (rp: ReturnType<typeof clientAnswering>['rp']) => rp.gpuTypes.offers()]) {
      const err = await wrongShape(data, call);
      expect(err.request?.operation).toBe('GpuTypes');
      expect(err.message).toContain('gpuTypes');
      expect(err.body).toBe(JSON.stringify(data));
    }
  });

  it('null is no GPU types; a well-formed answer still gives offers', async () => {
    expect(await clientAnswering({ gpuTypes: null }).rp.gpuTypes.list()).toEqual([]);
    const offers = await clientAnswering({ gpuTypes: [null, gpuType] }).rp.gpuTypes.offers();
    expect(offers).toMatchObject([{ gpuTypeId: 'NVIDIA RTX A4000', pricePerHour: 0.25, availableGpuCounts: [1, 2] }]);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ApiRetiredError,
  CapacityUnavailableError,
  createRunpodClient,
  GraphQLResponseError,
  InsufficientBalanceError,
  NotFoundError,
  PermissionDeniedError,
  PossiblyCreatedError,
  TimeoutError,
  type RunpodError,
} from '../../src/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import { closestGpuTypeId } from '../../src/gpu-types/closest-id.js';
import { podFixture } from '../fixtures.js';
import { captureError, json, recordingFetch, TEST_API_KEY, type RecordedCall } from '../helpers.js';

const operationOf = (call: RecordedCall) => (JSON.parse(call.body ?? '{}') as { operationName?: string }).operationName;
const catalog = { data: { gpuTypes: [{ id: 'NVIDIA GeForce RTX 4090', displayName: 'RTX 4090' }, { id: 'NVIDIA RTX A4000', displayName: 'RTX A4000' }, { id: 'NVIDIA H100 80GB HBM3', displayName: 'H100 SXM' }] } };
const deployInput = { imageName: 'img', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 };

/** A client whose deploy meets `answer`; the catalog and the marker lookup answer as the platform would. */
function clientAnswering(answer: () => Response, pods: unknown[] = []) {
  const recorded = recordingFetch((call) => {
    const op = operationOf(call);
    if (op === 'GpuTypeCatalog') return json(catalog);
    if (op === 'MyPods') return json({ data: { myself: { pods } } });
    return answer();
  });
  return { ...recorded, rp: createRunpodClient({ apiKey: TEST_API_KEY, fetch: recorded.fetch, maxRetries: 0 }) };
}

const refusal = (message: string, field = 'podFindAndDeployOnDemand') => () => json({ errors: [{ message, path: [field], extensions: { code: 'RUNPOD' } }], data: { [field]: null } });

describe('the platform refusals become typed errors', () => {
  const cases: Array<[string, string, abstract new (...args: never[]) => RunpodError]> = [
    ['no capacity on deploy', 'There are no longer any instances available with the requested specifications. Please refresh and try again.', CapacityUnavailableError],
    ['a machine without the resources', 'This machine does not have the resources to deploy your pod. Please try a different machine', CapacityUnavailableError],
    ['no free GPUs on the host', 'There are not enough free GPUs on the host machine to start this pod.', CapacityUnavailableError],
    ['a low balance', 'Your account balance is too low to rent a pod. Please add funds.', InsufficientBalanceError],
    ["a restricted key's Unauthorized", 'Unauthorized', PermissionDeniedError],
  ];

  it.each(cases)('%s', async (_name, message, type) => {
    const { rp, calls } = clientAnswering(refusal(message));
    const err = await captureError(rp.pods.deploy(deployInput));
    expect(err).toBeInstanceOf(type);
    expect(err.message).toContain(message);
    expect((err as { status?: number }).status).toBe(200);
    // A refusal created nothing: no marker lookup follows.
    expect(calls.map(operationOf)).toEqual(['GpuTypeCatalog', 'DeployPod']);
  });

  it('a missing pod on stop, resume and terminate is NotFoundError', async () => {
    const { fetch } = recordingFetch((call) => refusal('pod p-1 not found', operationOf(call) === 'StopPod' ? 'podStop' : 'podResume')());
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    expect(await captureError(rp.pods.stop('p-1'))).toBeInstanceOf(NotFoundError);
    expect(await captureError(rp.pods.resume({ podId: 'p-1', gpuCount: 1 }))).toBeInstanceOf(NotFoundError);
    expect(await captureError(rp.pods.terminate('p-1'))).toBeInstanceOf(NotFoundError);
  });

  it('HTTP 410 (GraphQL retired) is ApiRetiredError', async () => {
    const { rp } = clientAnswering(() => json({ errors: [{ message: 'Gone' }] }, { status: 410 }));
    expect(await captureError(rp.pods.deploy(deployInput))).toBeInstanceOf(ApiRetiredError);
  });

  it('any other error stays a GraphQLResponseError', async () => {
    const { rp } = clientAnswering(refusal('Template not allowed here'));
    expect(await captureError(rp.pods.deploy(deployInput))).toBeInstanceOf(GraphQLResponseError);
  });
});

describe('deploy after an ambiguous failure', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('returns the pod its marker finds, sending the deploy once', async () => {
    let sentMarker = '';
    const recorded = recordingFetch((call) => {
      const op = operationOf(call);
      if (op === 'GpuTypeCatalog') return json(catalog);
      if (op === 'MyPods') return json({ data: { myself: { pods: [podFixture({ id: 'other', env: ['RUNPOD_GQL_CREATE_MARKER=someone-else'] }), podFixture({ id: 'mine', env: [`RUNPOD_GQL_CREATE_MARKER=${sentMarker}`] })] } } });
      const input = (JSON.parse(call.body!) as { variables: { input: { env: Array<{ key: string; value: string }> } } }).variables.input;
      sentMarker = input.env.find((e) => e.key === 'RUNPOD_GQL_CREATE_MARKER')!.value;
      return refusal('Something went wrong. Please try again later or contact support.')();
    });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: recorded.fetch });
    expect((await rp.pods.deploy(deployInput)).id).toBe('mine');
    expect(recorded.calls.map(operationOf)).toEqual(['GpuTypeCatalog', 'DeployPod', 'MyPods']);
  });

  it('when no pod carries the marker after a bounded number of lookups: PossiblyCreatedError with the marker and the cause', async () => {
    const { rp, calls } = clientAnswering(() => json({ errors: [{ message: 'upstream' }] }, { status: 502 }));
    const pending = rp.pods.deploy(deployInput);
    pending.catch(() => undefined);
    await vi.runAllTimersAsync();
    const err = await captureError<PossiblyCreatedError>(pending);
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect(err.possiblyCreated).toBe(true);
    expect(err.createMarker).toMatch(/^[0-9a-f]{32}$/);
    expect(err.message).toContain(`pods.findByMarker('${err.createMarker}')`);
    expect(err.cause).toMatchObject({ status: 502 });
    expect(calls.map(operationOf)).toEqual(['GpuTypeCatalog', 'DeployPod', 'MyPods', 'MyPods', 'MyPods']);
  });

  it('a failure that proves nothing was sent is not looked up', async () => {
    const { rp, calls } = clientAnswering(() => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    });
    const pending = rp.pods.deploy(deployInput);
    pending.catch(() => undefined);
    await vi.runAllTimersAsync();
    expect((await captureError(pending)).name).toBe('ConnectionError');
    expect(calls.map(operationOf)).toEqual(['GpuTypeCatalog', 'DeployPod']);
  });
});

describe('GPU type ids are checked against the catalog', () => {
  const entries = catalog.data.gpuTypes;

  it('suggests the id for a display name, a case slip, a fragment or a typo', () => {
    expect(closestGpuTypeId('RTX 4090', entries)).toBe('NVIDIA GeForce RTX 4090');
    expect(closestGpuTypeId('nvidia geforce rtx 4090', entries)).toBe('NVIDIA GeForce RTX 4090');
    expect(closestGpuTypeId('H100', entries)).toBe('NVIDIA H100 80GB HBM3');
    expect(closestGpuTypeId('NVIDIA RTX A400', entries)).toBe('NVIDIA RTX A4000');
    expect(closestGpuTypeId('Radeon 9700', entries)).toBeUndefined();
  });

  it('reads the catalog once per client', async () => {
    const { rp, calls } = clientAnswering(() => json({ data: { podFindAndDeployOnDemand: podFixture() } }));
    await rp.pods.deploy(deployInput);
    await rp.pods.deploy(deployInput);
    await captureError(rp.pods.deploy({ ...deployInput, gpuTypeId: 'RTX 4090' }));
    expect(calls.map(operationOf)).toEqual(['GpuTypeCatalog', 'DeployPod', 'DeployPod']);
  });
});

describe('waitUntilReady against the emulator on its manual clock', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('holds the deadline within one poll interval while the pod never comes up', async () => {
    const emulator = createEmulator({ clock: 'manual', podStartupMs: 60_000 });
    const rp = createRunpodClient(emulator.clientOptions());
    const pod = await rp.pods.deploy({ imageName: 'img', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, ports: '8888/http' });
    const polls: number[] = [];
    const started = Date.now();
    let endedAt = 0;
    const pending = rp.pods
      .waitUntilReady(pod.id, { timeoutMs: 20_000, onProgress: (p) => polls.push(p.elapsedMs) })
      .finally(() => (endedAt = Date.now()));
    pending.catch(() => undefined);
    await vi.runAllTimersAsync();
    const err = await captureError<TimeoutError>(pending);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe(`pod ${pod.id} not ready after 20000 ms (last status RUNNING, container not up yet)`);
    // Polls at 0, 2 s, 5 s, 9.5 s and 16.25 s; the next interval would pass the deadline, which ends the wait.
    expect(polls).toEqual([0, 2_000, 5_000, 9_500, 16_250]);
    expect(endedAt - started).toBe(20_000);

    await emulator.clock.advance(60_000);
    const ready = rp.pods.waitUntilReady(pod.id, { timeoutMs: 20_000 });
    await vi.runAllTimersAsync();
    expect((await ready).runtime?.ports?.[0]?.privatePort).toBe(8888);
  });
});

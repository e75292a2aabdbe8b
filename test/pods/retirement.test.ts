import { describe, expect, it } from 'vitest';
import {
  ApiRetiredError,
  CapacityUnavailableError,
  createRunpodClient,
  PodTerminalStateError,
  TransportUnsupportedError,
  ValidationError,
  transportOf,
  type DeployCpuPodInput,
  type DeployPodInput,
  type ResumePodInput,
  type RunpodClientOptions,
  type TransportChangeEvent,
} from '../../src/index.js';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { parsePodEnv } from '../../src/graphql/pod-env.js';
import { CREATE_MARKER_ENV } from '../../src/transport/create-marker.js';
import { captureError } from '../helpers.js';
import { RECORDING_KEY as KEY, recordingClient as setup } from '../recording-client.js';

const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';

function podsOf(emulator: Emulator): number {
  return emulator.inspect.podCount(KEY);
}

describe('a whole session with GraphQL retired', () => {
  it.each(['problem', 'graphql', 'empty'] as const)('every method of rp.pods works over REST v2 (410 body: %s)', async (body) => {
    const { emulator, rp, events, graphqlSent } = setup({ graphqlRetired: { body } });
    const pod = await rp.pods.deploy({ name: 'retired', imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, cloudType: 'SECURE', ports: '8888/http,22/tcp', env: { HF_HOME: '/workspace/hf' } });
    expect(graphqlSent()).toBe(1);
    expect(transportOf(pod)).toBe('rest');
    // REST v2 states the observed status where GraphQL gave free text; machineId has no source ('').
    expect(pod).toMatchObject({ name: 'retired', imageName: image, machineId: '', desiredStatus: 'RUNNING' });
    expect(pod.lastStatusChange).toMatch(/^(PROVISIONING|STARTING|RUNNING since \d{4}-.+)$/);
    // The create answer already carries the SSH proxy's routing token (scripts build <podHostId>@ssh.runpod.io).
    expect(pod.machine?.podHostId).toMatch(new RegExp(`^${pod.id}-[0-9a-f]{8}$`));
    expect(parsePodEnv(pod.env).HF_HOME).toBe('/workspace/hf');
    // The tag is invisible to JSON and equality.
    expect(JSON.parse(JSON.stringify(pod))).toEqual(pod);

    const ready = await rp.pods.waitUntilReady(pod.id, { pollIntervalMs: 10, timeoutMs: 5_000 });
    expect(ready.runtime?.ports?.some((p) => p?.privatePort === 8888 && p.publicPort != null)).toBe(true);
    expect(ready.machine?.podHostId).toMatch(new RegExp(`^${pod.id}-`));
    expect(ready.gpuCount).toBe(1);
    expect(ready.costPerHr).toBeGreaterThan(0);

    expect((await rp.pods.list()).map((p) => p.id)).toContain(pod.id);
    expect((await rp.pods.get(pod.id))?.id).toBe(pod.id);
    expect(await rp.pods.get('no-such-pod')).toBeNull();
    expect((await rp.pods.findByMarker(parsePodEnv(pod.env)[CREATE_MARKER_ENV]!))?.id).toBe(pod.id);

    expect(await rp.pods.stop(pod.id)).toEqual({ id: pod.id, desiredStatus: 'EXITED' });
    expect(await rp.pods.stop(pod.id)).toEqual({ id: pod.id, desiredStatus: 'EXITED' });
    const resumed = await rp.pods.resume({ podId: pod.id });
    expect(resumed.desiredStatus).toBe('RUNNING');
    expect((await rp.pods.resume({ podId: pod.id, gpuCount: 1 })).id).toBe(pod.id);
    await rp.pods.terminate(pod.id);
    expect((await rp.pods.get(pod.id))?.desiredStatus ?? 'TERMINATED').toBe('TERMINATED');

    const cpu = await rp.pods.deployCpu({ instanceId: 'cpu3c-2-4', imageName: 'ubuntu:22.04' });
    expect(cpu.gpuCount).toBe(0);
    expect(transportOf(cpu)).toBe('rest');
    await rp.pods.terminate(cpu.id);

    expect(graphqlSent()).toBe(1);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ surface: 'pods', operation: 'deploy', from: 'graphql', to: 'rest', reason: 'retired', sticky: true });
    expect(events[0]!.error).toBeInstanceOf(ApiRetiredError);
    // Both terminated: nothing left behind.
    expect(podsOf(emulator)).toBe(0);
  });

  it('without a handler, the client warns once through its logger, and logs each switch at info', async () => {
    const lines: Array<[string, string]> = [];
    const logger = { error: (m: string) => lines.push(['error', m]), warn: (m: string) => lines.push(['warn', m]), info: (m: string) => lines.push(['info', m]), debug: () => undefined };
    const { rp } = setup({ graphqlRetired: true }, { onTransportChange: undefined, logger });
    await rp.pods.list();
    await rp.pods.list();
    expect(lines.filter(([level, m]) => level === 'warn' && m.includes('REST v2'))).toHaveLength(1);
    expect(lines.find(([level]) => level === 'warn')![1]).toMatch(/^runpod-gql: rp\.pods switched from GraphQL to REST v2 \(retired.*onTransportChange/);
    // At the default level ('warn') no info line is written.
    expect(lines.filter(([level]) => level === 'info')).toEqual([]);
  });

  it('the one-time warning goes to console.warn when no logger is given, never to process warnings', async () => {
    const { rp } = setup({ graphqlRetired: true }, { onTransportChange: undefined });
    const warned: unknown[][] = [];
    const processWarnings: string[] = [];
    const original = console.warn;
    const listener = (w: Error) => processWarnings.push(w.message);
    console.warn = (...args: unknown[]) => void warned.push(args);
    process.on('warning', listener);
    try {
      await rp.pods.list();
      await rp.pods.list();
      await new Promise((r) => setTimeout(r, 10));
    } finally {
      console.warn = original;
      process.off('warning', listener);
    }
    expect(warned.filter(([m]) => String(m).includes('REST v2'))).toHaveLength(1);
    expect(processWarnings.filter((w) => w.includes('REST v2'))).toEqual([]);
  });

  it("with logLevel 'off' nothing is written, not even the warning", async () => {
    const lines: string[] = [];
    const push = (m: string) => void lines.push(m);
    const { rp, sent } = setup({ graphqlRetired: true }, { onTransportChange: undefined, logLevel: 'off', logger: { error: push, warn: push, info: push, debug: push } });
    await rp.pods.list();
    // It did switch: the call went on over REST v2.
    expect(sent.some((s) => s.path.endsWith('/pods'))).toBe(true);
    expect(lines).toEqual([]);
  });

  it('the latch is per client: another client of the same process still tries GraphQL first', async () => {
    const first = setup({ graphqlRetired: true });
    await first.rp.pods.list();
    const second = setup();
    await second.rp.pods.list();
    expect(second.graphqlSent()).toBe(1);
    expect(second.events).toEqual([]);
  });

  it("users' own GraphQL documents run in process; a field REST v2 has no source for is an error naming it", async () => {
    const { rp, graphqlSent } = setup({ graphqlRetired: true });
    const { myself } = await rp.graphql.request<{ myself: { pods: Array<{ id: string }> } }, Record<string, never>>('query { myself { pods { id } } }');
    expect(myself.pods).toEqual([]);
    const err = await captureError<TransportUnsupportedError>(rp.graphql.request('query { myself { id } }'));
    expect(err).toBeInstanceOf(TransportUnsupportedError);
    expect(err.fields).toEqual(['User.id']);
    expect(graphqlSent()).toBe(1);
  });
});

describe('retirement mid-session', () => {
  it('a pod deployed over GraphQL finishes waitUntilReady over REST v2', async () => {
    const { emulator, rp, events, graphqlSent } = setup({ podStartupMs: 2_000, clock: 'manual' });
    const pod = await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, ports: '8888/http' });
    expect(transportOf(pod)).toBe('graphql');
    emulator.retireGraphql();
    const before = graphqlSent();
    const waiting = rp.pods.waitUntilReady(pod.id, { pollIntervalMs: 5, timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 30));
    await emulator.clock.advance(2_000);
    const ready = await waiting;
    expect(transportOf(ready)).toBe('rest');
    expect(ready.id).toBe(pod.id);
    expect(graphqlSent()).toBe(before + 1);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ operation: 'get', reason: 'retired' });
  });

  it('a 410 on DeployPod yields exactly one pod', async () => {
    const { emulator, rp } = setup();
    emulator.retireGraphql('empty');
    const pod = await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 });
    expect(transportOf(pod)).toBe('rest');
    expect(podsOf(emulator)).toBe(1);
  });

  it('a generic error after a GraphQL create, then the retirement: the marker lookup over REST finds the one pod', async () => {
    // Retired as soon as the create is answered, so the marker lookup meets the 410.
    const { emulator, rp } = setup({}, {}, (body) => body.includes('DeployPod') && emulator.retireGraphql());
    emulator.faults.inject({ match: 'graphql:DeployPod', fault: { type: 'error-after-create' } });
    const pod = await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 }, { markerLookup: { attempts: 2, intervalMs: 1 } });
    expect(transportOf(pod)).toBe('rest');
    expect(podsOf(emulator)).toBe(1);
  });
});

describe('strict and forced modes', () => {
  it("'graphql' is strict: a 410 is an ApiRetiredError whose replacement names the option", async () => {
    const { emulator, rp, events, sent } = setup({ graphqlRetired: true }, { podsTransport: 'graphql' });
    const err = await captureError<ApiRetiredError>(rp.pods.list());
    expect(err).toBeInstanceOf(ApiRetiredError);
    expect(err.replacement).toMatch(/podsTransport/);
    await captureError(rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 }));
    expect(sent.every((s) => s.path.endsWith('/graphql'))).toBe(true);
    expect(events).toEqual([]);
    expect(podsOf(emulator)).toBe(0);
  });

  it("'rest' never touches GraphQL", async () => {
    const { rp, graphqlSent, events } = setup({}, { podsTransport: 'rest' });
    const pod = await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, cloudType: 'SECURE' });
    await rp.pods.waitUntilReady(pod.id, { requirePorts: false, pollIntervalMs: 5 });
    await rp.pods.list();
    await rp.pods.stop(pod.id);
    await rp.pods.resume({ podId: pod.id });
    await rp.pods.terminate(pod.id);
    expect(graphqlSent()).toBe(0);
    expect(events).toEqual([]);
  });

  it('bad options are refused at creation', () => {
    expect(() => createRunpodClient({ podsTransport: 'soap' as never })).toThrow(ValidationError);
    expect(() => createRunpodClient({ fallbackOnRateLimit: 'yes' as never })).toThrow(ValidationError);
    expect(() => createRunpodClient({ onTransportChange: 1 as never })).toThrow(ValidationError);
  });

  it('a 429 standing after the retries falls back for that call only with fallbackOnRateLimit', async () => {
    const limited = { graphqlRateLimit: { requests: 0, intervalMs: 60_000 } };
    const off = setup(limited, { maxRetries: 0 });
    await captureError(off.rp.pods.list());
    const on = setup(limited, { maxRetries: 0, fallbackOnRateLimit: true });
    const pods = await on.rp.pods.list();
    expect(pods).toEqual([]);
    await on.rp.pods.list();
    expect(on.graphqlSent()).toBe(2);
    expect(on.events.map((e) => [e.reason, e.sticky])).toEqual([
      ['rate-limited', false],
      ['rate-limited', false],
    ]);
  });
});

const gpu = { imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 } as const;
const UNSUPPORTED: Array<[string, () => [method: 'deploy' | 'deployCpu' | 'resume', input: object], string[]]> = [
  ['resume with gpuCount 0', () => ['resume', { podId: 'p1', gpuCount: 0 }], ['input.gpuCount']],
  ['resume with syncMachine', () => ['resume', { podId: 'p1', syncMachine: true }], ['input.syncMachine']],
  ['resume with computeType', () => ['resume', { podId: 'p1', computeType: 'CPU' }], ['input.computeType']],
  ...(['minDisk', 'minDownload', 'minUpload', 'port'] as const).map(
    (f): [string, () => ['deploy', object], string[]] => [`deploy with ${f}`, () => ['deploy', { ...gpu, [f]: 8 }], [`input.${f}`]],
  ),
  // These map per GPU only when they divide by the count (test/pods/per-gpu-minimums.test.ts).
  ...(['minVcpuCount', 'minMemoryInGb'] as const).map(
    (f): [string, () => ['deploy', object], string[]] => [`deploy with ${f} 9 over 2 GPUs`, () => ['deploy', { ...gpu, gpuCount: 2, [f]: 9 }], [`input.${f}`]],
  ),
  ['deploy with supportPublicIp on Community Cloud', () => ['deploy', { ...gpu, supportPublicIp: true, cloudType: 'COMMUNITY' }], ['input.supportPublicIp']],
  ['deploy with volumeKey', () => ['deploy', { ...gpu, volumeKey: 'k' }], ['input.volumeKey']],
  ['deploy with stopAfter', () => ['deploy', { ...gpu, stopAfter: '2027-01-01T00:00:00Z' }], ['input.stopAfter']],
  ['deploy with terminateAfter', () => ['deploy', { ...gpu, terminateAfter: '2027-01-01T00:00:00Z' }], ['input.terminateAfter']],
  ['deploy with a 5 GB volume', () => ['deploy', { ...gpu, volumeInGb: 5 }], ['input.volumeInGb']],
  ['deploy with a network volume and a volume', () => ['deploy', { ...gpu, networkVolumeId: 'nv1', volumeInGb: 20 }], ['input.networkVolumeId', 'input.volumeInGb']],
  ['deploy with containerDiskInGb 0', () => ['deploy', { ...gpu, containerDiskInGb: 0 }], ['input.containerDiskInGb']],
  ['deploy with cudaVersion and allowedCudaVersions', () => ['deploy', { ...gpu, cudaVersion: '12.4', allowedCudaVersions: ['12.8'] }], ['input.cudaVersion', 'input.allowedCudaVersions']],
  ['deploy with several at once', () => ['deploy', { ...gpu, gpuCount: 2, minVcpuCount: 5, minDisk: 10, volumeInGb: 3 }], ['input.minVcpuCount', 'input.minDisk', 'input.volumeInGb']],
  ['deployCpu with a volume', () => ['deployCpu', { instanceId: 'cpu3c-2-4', imageName: 'ubuntu', volumeInGb: 20 }], ['input.volumeInGb']],
  // Fields the schema gained from production's current callers (issue 42): REST v2's pod create has no counterpart.
  ...(
    [
      ['modelReferences', ['hf:org/model']],
      ['compliance', ['GDPR']],
      ['dataCenterIds', ['US-KS-2', 'EU-RO-1']],
      ['volumeMounts', [{ volumeId: 'g1', volumeType: 'OBJECT_STORE_VOLUME', mountPath: '/workspace-global' }]],
    ] as const
  ).map(([f, value]): [string, () => ['deploy', object], string[]] => [`deploy with ${f}`, () => ['deploy', { ...gpu, [f]: value }], [`input.${f}`]]),
  ['deploy with cudaVersion and another minCudaVersion', () => ['deploy', { ...gpu, cudaVersion: '12.4', minCudaVersion: '12.8' }], ['input.cudaVersion', 'input.minCudaVersion']],
  ['deploy with minCudaVersion and allowedCudaVersions', () => ['deploy', { ...gpu, minCudaVersion: '12.4', allowedCudaVersions: ['12.8'] }], ['input.minCudaVersion', 'input.allowedCudaVersions']],
  ['deployCpu with terminateAfter and volumeKey', () => ['deployCpu', { instanceId: 'cpu3c-2-4', imageName: 'ubuntu', terminateAfter: '2027-01-01T00:00:00Z', volumeKey: 'k' }], ['input.terminateAfter', 'input.volumeKey']],
  ['deployCpu with supportPublicIp on Community Cloud', () => ['deployCpu', { instanceId: 'cpu3c-2-4', imageName: 'ubuntu', supportPublicIp: true, cloudType: 'COMMUNITY' }], ['input.supportPublicIp']],
  ['deployCpu with a field the schema does not have', () => ['deployCpu', { instanceId: 'cpu3c-2-4', imageName: 'ubuntu', bidPerGpu: 0.2 }], ['input.bidPerGpu']],
  ['deployCpu with an instanceId REST cannot split', () => ['deployCpu', { instanceId: 'cpu3c', imageName: 'ubuntu' }], ['input.instanceId']],
];

describe('every input REST v2 cannot honour is refused, and nothing is sent', () => {
  it.each(UNSUPPORTED)('%s', async (_name, make, fields) => {
    const { rp, sent } = setup({}, { podsTransport: 'rest' });
    const [method, input] = make();
    const call =
      method === 'deploy' ? rp.pods.deploy(input as DeployPodInput) : method === 'deployCpu' ? rp.pods.deployCpu(input as DeployCpuPodInput) : rp.pods.resume(input as ResumePodInput);
    const err = await captureError<TransportUnsupportedError>(call);
    expect(err).toBeInstanceOf(TransportUnsupportedError);
    expect(err).toBeInstanceOf(ValidationError);
    expect([...err.fields].sort()).toEqual([...fields].sort());
    expect(sent).toEqual([]);
  });

  it('what the schema gained and REST v2 honours is sent: minCudaVersion, an empty modelReferences, a CPU pod\'s registry, Jupyter and public IP', async () => {
    const bodies: string[] = [];
    const { rp, emulator } = setup({}, { podsTransport: 'rest' }, (body) => body.includes('"name"') && bodies.push(body));
    await rp.pods.deploy({ ...gpu, minCudaVersion: '12.4', modelReferences: [], compliance: [] });
    expect(JSON.parse(bodies.at(-1)!).gpu).toMatchObject({ id: gpu.gpuTypeId, minCudaVersion: '12.4' });
    await rp.pods.deployCpu({ instanceId: 'cpu3c-2-4', imageName: 'ubuntu', startJupyter: true, supportPublicIp: true });
    expect(JSON.parse(bodies.at(-1)!)).toMatchObject({ cpu: { id: 'cpu3c', vcpuCount: 2 }, cloud: 'SECURE', startJupyter: true });
    expect(podsOf(emulator)).toBe(2);
  });

  it('the same inputs go through on GraphQL, which honours them', async () => {
    const { rp, emulator } = setup();
    await rp.pods.deploy({ ...gpu, volumeInGb: 5, containerDiskInGb: 10 });
    expect(podsOf(emulator)).toBe(1);
  });

  it('a resume with another GPU count than the pod had: read, refused, the pod left as it was', async () => {
    const { rp, sent, emulator } = setup({}, { podsTransport: 'rest' });
    const pod = await rp.pods.deploy({ ...gpu, cloudType: 'SECURE' });
    await rp.pods.stop(pod.id);
    sent.length = 0;
    const err = await captureError<TransportUnsupportedError>(rp.pods.resume({ podId: pod.id, gpuCount: 2 }));
    expect(err.fields).toEqual(['input.gpuCount']);
    expect(sent.filter((s) => s.method !== 'GET')).toEqual([]);
    expect(emulator.inspect.pod(pod.id)?.desiredStatus).toBe('EXITED');
  });

  it('a deployCpu whose memory part disagrees with the flavour: nothing is created', async () => {
    const { rp, sent, emulator } = setup({}, { podsTransport: 'rest' });
    const err = await captureError<TransportUnsupportedError>(rp.pods.deployCpu({ instanceId: 'cpu3c-2-16', imageName: 'ubuntu' }));
    expect(err.fields).toEqual(['input.instanceId']);
    expect(sent.filter((s) => s.method !== 'GET')).toEqual([]);
    expect(podsOf(emulator)).toBe(0);
    expect((await rp.pods.deployCpu({ instanceId: 'cpu3c-2-4', imageName: 'ubuntu' })).desiredStatus).toBe('RUNNING');
  });
});

describe('input checks before anything is sent, on both paths', () => {
  it.each(['auto', 'rest'] as const)('%s: an empty name, a cycle, no GPU type or no image', async (mode) => {
    const { rp, sent } = setup({}, { podsTransport: mode });
    expect((await captureError<ValidationError>(rp.pods.deploy({ ...gpu, name: '' }))).field).toBe('input.name');
    expect((await captureError<ValidationError>(rp.pods.deployCpu({ instanceId: 'cpu3c-2-4', imageName: 'u', name: ' ' }))).field).toBe('input.name');
    const cyclic: Record<string, unknown> = { ...gpu };
    cyclic.self = cyclic;
    expect(await captureError(rp.pods.deploy(cyclic as unknown as DeployPodInput))).toBeInstanceOf(ValidationError);
    expect(await captureError(rp.pods.deploy({ imageName: 'x' } as unknown as DeployPodInput))).toBeInstanceOf(ValidationError);
    expect(await captureError(rp.pods.deploy({ gpuTypeId: 'x' } as unknown as DeployPodInput))).toBeInstanceOf(ValidationError);
    expect(sent).toEqual([]);
  });
});

describe("cloudType 'ALL' and gpuTypeIdList on REST v2", () => {
  it('reads both clouds and takes the cheapest offer in stock', async () => {
    const { rp, emulator, sent } = setup({}, { podsTransport: 'rest' });
    const pod = await rp.pods.deploy(gpu);
    expect(sent.filter((s) => s.path.endsWith('/catalog/gpus'))).toHaveLength(2);
    // The A4000 costs 0.17 in the community cloud, 0.25 in the secure one.
    expect(emulator.inspect.pod(pod.id)?.hostId).toBe('host-a4000-community');
  });

  it('moves to the next offer after a clean no-capacity refusal', async () => {
    const { rp, emulator } = setup({}, { podsTransport: 'rest' });
    emulator.faults.inject({
      match: 'POST /v2/pods',
      fault: { type: 'status', status: 400, body: { title: 'Bad Request', status: 400, detail: 'There are no longer any instances available with the requested specifications.' } },
    });
    const pod = await rp.pods.deploy({ ...gpu, cloudType: 'ALL' });
    expect(emulator.inspect.pod(pod.id)?.hostId).toBe('host-a4000-secure');
    expect(podsOf(emulator)).toBe(1);
  });

  it('never moves on after an ambiguous failure: the marker settles it, one pod', async () => {
    const { rp, emulator } = setup({}, { podsTransport: 'rest' });
    emulator.faults.inject({ match: 'POST /v2/pods', fault: { type: 'error-after-create', status: 502 } });
    const pod = await rp.pods.deploy(gpu, { markerLookup: { attempts: 2, intervalMs: 1 } });
    expect(emulator.inspect.pod(pod.id)?.hostId).toBe('host-a4000-community');
    expect(podsOf(emulator)).toBe(1);
  });

  it('gpuTypeIdList: the cheapest type in stock; an unknown id is a ValidationError before any create', async () => {
    const { rp, emulator, sent } = setup({}, { podsTransport: 'rest' });
    const pod = await rp.pods.deploy({ imageName: image, gpuTypeIdList: ['NVIDIA L40S', 'NVIDIA GeForce RTX 4090'], gpuCount: 1, cloudType: 'SECURE' });
    expect(emulator.inspect.pod(pod.id)?.hostId).toMatch(/^host-4090/);
    sent.length = 0;
    const err = await captureError<ValidationError>(rp.pods.deploy({ imageName: image, gpuTypeId: 'RTX 9999', gpuCount: 1 }));
    expect(err.field).toBe('input.gpuTypeId');
    expect(sent.filter((s) => s.method !== 'GET')).toEqual([]);
  });

  it('no stock anywhere: CapacityUnavailableError, and no create is sent', async () => {
    const { rp, sent } = setup({}, { podsTransport: 'rest' });
    const err = await captureError(rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA H100 80GB HBM3', gpuCount: 4 }));
    expect(err).toBeInstanceOf(CapacityUnavailableError);
    expect(sent.filter((s) => s.method !== 'GET')).toEqual([]);
  });
});

describe('waitUntilReady on REST v2', () => {
  it("a failed pod's reason comes from its system log", async () => {
    const { rp } = setup({}, { podsTransport: 'rest' });
    const cuda128 = 'runpod/pytorch:2.8.0-py3.11-cuda12.8.1-cudnn-devel-ubuntu22.04';
    const pod = await rp.pods.deploy({ imageName: cuda128, gpuTypeId: 'NVIDIA GeForce RTX 4090', gpuCount: 1, cloudType: 'SECURE', dataCenterId: 'EU-RO-1' });
    const err = await captureError<PodTerminalStateError>(rp.pods.waitUntilReady(pod.id, { pollIntervalMs: 5, timeoutMs: 5_000 }));
    expect(err).toBeInstanceOf(PodTerminalStateError);
    expect(err.desiredStatus).toBe('EXITED');
    expect(err.reason).toMatch(/cuda/i);
  });
});

describe('resume on REST v2 onto a host whose GPUs were taken', () => {
  it('is a CapacityUnavailableError, and the pod stays stopped', async () => {
    const { rp, emulator } = setup({}, { podsTransport: 'rest' });
    const h100 = { imageName: image, gpuTypeId: 'NVIDIA H100 80GB HBM3', gpuCount: 1, cloudType: 'SECURE' } as const;
    const pod = await rp.pods.deploy(h100);
    await rp.pods.stop(pod.id);
    await rp.pods.deploy(h100);
    const err = await captureError(rp.pods.resume({ podId: pod.id }));
    expect(err).toBeInstanceOf(CapacityUnavailableError);
    expect(emulator.inspect.pod(pod.id)?.desiredStatus).toBe('EXITED');
  });
});

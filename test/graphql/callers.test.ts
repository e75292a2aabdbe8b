// The GraphQL that runpod-python and runpodctl send (test/fixtures/graphql-callers/, one document
// per call), run in process over the emulator's REST v2: what REST v2 carries is answered, each
// field with no source is one error naming it, a create that succeeded is answered as the pod.
import { readFileSync } from 'node:fs';
import type { ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { TransportUnsupportedError } from '../../src/index.js';
import { captureError } from '../helpers.js';
import { RECORDING_KEY as KEY, recordingClient } from '../recording-client.js';

const doc = (name: string) => readFileSync(new URL(`../fixtures/graphql-callers/${name}.graphql`, import.meta.url), 'utf8');
const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';
const GPU = 'NVIDIA RTX A4000';

/** The informational fields the answer names in `extensions.warnings` (null, no error). */
const warned = (result: ExecutionResult): string[] => ((result.extensions?.warnings ?? []) as Array<{ field: string }>).map((w) => w.field).sort();

/** The fields named by the result's errors, each error naming one field with no source. */
function unanswered(result: ExecutionResult): string[] {
  return (result.errors ?? []).map((e) => {
    expect(e.extensions?.code, e.message).toBe('TransportUnsupportedError');
    const fields = e.extensions?.fields as string[];
    expect(fields).toHaveLength(1);
    return fields[0]!;
  });
}

const setup = () => recordingClient({}, { graphqlTransport: 'rest' });

describe("runpodctl's GraphQL in process over REST v2", () => {
  it('create, list, stop, start and remove: the create is answered as the pod, stop and start carry lastStatusChange', async () => {
    const { rp, emulator, graphqlSent } = setup();
    const input = {
      cloudType: 'SECURE', containerDiskInGb: 20, dockerArgs: '', env: [], gpuCount: 1, gpuTypeId: GPU, imageName: image,
      minMemoryInGb: 0, minVcpuCount: 0, name: 'ctl', ports: '8888/http,22/tcp', templateId: '', volumeInGb: 20, volumeMountPath: '/workspace',
    };
    const created = await rp.graphql.execute<{ podFindAndDeployOnDemand: { id: string; costPerHr: number; desiredStatus: string; lastStatusChange: string } }>(doc('runpodctl-create-pod'), { input });
    expect(created.errors).toBeUndefined();
    const pod = created.data!.podFindAndDeployOnDemand;
    expect(pod).toMatchObject({ desiredStatus: 'RUNNING', costPerHr: expect.any(Number), lastStatusChange: expect.any(String) });
    expect(emulator.inspect.podCount(KEY)).toBe(1);

    const listed = await rp.graphql.execute<{ myself: { pods: Array<Record<string, unknown>> } }>(doc('runpodctl-get-pods'));
    // Informational: null with a warning each, and no error.
    expect(unanswered(listed)).toEqual([]);
    expect(warned(listed)).toEqual(['Pod.dockerId', 'Pod.port']);
    const [one] = listed.data!.myself.pods;
    expect(one).toMatchObject({
      id: pod.id, containerDiskInGb: 20, volumeInGb: 20, volumeMountPath: '/workspace', dockerArgs: '', ports: '8888/http,22/tcp', podType: 'RESERVED',
      memoryInGb: expect.any(Number), vcpuCount: expect.any(Number), uptimeSeconds: expect.any(Number), machineId: '', dockerId: null, port: null,
      machine: { gpuDisplayName: 'RTX A4000' },
    });

    const stopped = await rp.graphql.execute(doc('runpodctl-stop-pod'), { podId: pod.id });
    expect(stopped.errors).toBeUndefined();
    expect(stopped.data).toEqual({ podStop: { id: pod.id, desiredStatus: 'EXITED', lastStatusChange: 'EXITED' } });
    const started = await rp.graphql.execute(doc('runpodctl-start-pod'), { podId: pod.id });
    expect(started.errors).toBeUndefined();
    expect(started.data).toMatchObject({ podResume: { id: pod.id, desiredStatus: 'RUNNING', lastStatusChange: expect.any(String) } });
    const removed = await rp.graphql.execute(doc('runpodctl-remove-pod'), { podId: pod.id });
    expect(removed).toEqual({ data: { podTerminate: null } });
    expect(graphqlSent()).toBe(0);
  });

  it('request names every decisive field with no source at once, before anything is sent; informational ones do not stop it', async () => {
    const { rp, sent } = setup();
    expect(await rp.graphql.request(doc('runpodctl-get-pods'))).toEqual({ myself: { pods: [] } });
    sent.length = 0;
    const err = await captureError(rp.graphql.request(doc('runpod-python-get-pods')));
    expect(err).toBeInstanceOf(TransportUnsupportedError);
    expect((err as TransportUnsupportedError).fields).toEqual(['PodMachineInfo.gpuAvailable']);
    expect(sent).toEqual([]);
  });
});

describe("runpod-python's GraphQL in process over REST v2", () => {
  it('create_pod: supportPublicIp is honoured on Secure Cloud (where every pod has a public IP), and refused by name on Community Cloud', async () => {
    const { rp, emulator } = setup();
    const created = await rp.graphql.execute<{ podFindAndDeployOnDemand: { id: string } }>(doc('runpod-python-create-pod'), { name: 'py', imageName: image, gpuTypeId: GPU });
    expect(created.errors).toBeUndefined();
    const placed = await rp.graphql.execute<{ pod: { machine: { secureCloud: boolean | null } } }>('query($id: String!) { pod(input: { podId: $id }) { machine { secureCloud } } }', { id: created.data!.podFindAndDeployOnDemand.id });
    expect(placed.data!.pod.machine.secureCloud).toBe(true);
    const community = await rp.graphql.execute(doc('runpod-python-create-pod').replace('cloudType: ALL', 'cloudType: COMMUNITY'), { name: 'py', imageName: image, gpuTypeId: GPU });
    expect(community.errors![0]!.extensions).toMatchObject({ code: 'TransportUnsupportedError', fields: ['input.supportPublicIp'] });
    expect(community.errors![0]!.message).toMatch(/cloudType SECURE or ALL/);
    expect(community.errors![0]!.message).not.toMatch(/podsTransport|graphqlTransport/);
    expect(emulator.inspect.podCount(KEY)).toBe(1);
  });

  it('create, stop, resume, get and terminate: machine.podHostId is filled on the created and the resumed pod', async () => {
    const { rp, emulator } = setup();
    const createDoc = doc('runpod-python-create-pod');
    const created = await rp.graphql.execute<{ podFindAndDeployOnDemand: { id: string; machine: { podHostId: string | null }; machineId: string } }>(createDoc, { name: 'py', imageName: image, gpuTypeId: GPU });
    expect(created.errors).toBeUndefined();
    const pod = created.data!.podFindAndDeployOnDemand;
    expect(pod.machine.podHostId).toMatch(new RegExp(`^${pod.id}-`));
    expect(pod.machineId).toBe('');
    expect(emulator.inspect.podCount(KEY)).toBe(1);

    expect((await rp.graphql.execute(doc('runpod-python-stop-pod'), { podId: pod.id })).data).toEqual({ podStop: { id: pod.id, desiredStatus: 'EXITED' } });
    const resumed = await rp.graphql.execute<{ podResume: { machine: { podHostId: string | null } } }>(doc('runpod-python-resume-pod'), { podId: pod.id, gpuCount: 1 });
    expect(resumed.errors).toBeUndefined();
    expect(resumed.data!.podResume.machine.podHostId).toMatch(new RegExp(`^${pod.id}-`));

    const got = await rp.graphql.execute<{ pod: Record<string, unknown> }>(doc('runpod-python-get-pod'), { podId: pod.id });
    expect(unanswered(got)).toEqual(['PodMachineInfo.gpuAvailable']);
    expect(warned(got)).toEqual(['Pod.dockerId', 'Pod.port', 'PodMachineInfo.maintenanceEnd', 'PodMachineInfo.maintenanceNote', 'PodMachineInfo.maintenanceStart']);
    expect(got.data!.pod).toMatchObject({ id: pod.id, desiredStatus: 'RUNNING', imageName: image, gpuCount: 1, machine: { gpuDisplayName: 'RTX A4000' } });
    const listed = await rp.graphql.execute<{ myself: { pods: unknown[] } }>(doc('runpod-python-get-pods'));
    expect(listed.data!.myself.pods).toHaveLength(1);
    expect(await rp.graphql.execute(doc('runpod-python-terminate-pod'), { podId: pod.id })).toEqual({ data: { podTerminate: null } });
  });

  it('get_gpus and get_gpu: everything the catalog carries is answered', async () => {
    const { rp } = setup();
    const all = await rp.graphql.execute<{ gpuTypes: Array<{ id: string }> }>(doc('runpod-python-get-gpus'));
    expect(all.errors).toBeUndefined();
    expect(all.data!.gpuTypes.length).toBeGreaterThan(1);
    const one = await rp.graphql.execute<{ gpuTypes: Array<Record<string, unknown>> }>(doc('runpod-python-get-gpu'), { id: GPU, gpuCount: 1 });
    // Every field it lacks is informational: runpod-python's get_gpu raises nothing.
    expect(one.errors).toBeUndefined();
    expect(warned(one)).toEqual(['GpuType.communitySpotPrice', 'GpuType.cudaCores', 'GpuType.oneMonthPrice', 'GpuType.oneWeekPrice', 'GpuType.secureSpotPrice', 'GpuType.threeMonthPrice', 'LowestPrice.minimumBidPrice']);
    expect(one.data!.gpuTypes).toEqual([
      expect.objectContaining({
        id: GPU, displayName: 'RTX A4000', manufacturer: 'NVIDIA', securePrice: expect.any(Number), communityPrice: expect.any(Number), maxGpuCount: expect.any(Number),
        lowestPrice: { minimumBidPrice: null, uninterruptablePrice: expect.any(Number) },
      }),
    ]);
  });
});

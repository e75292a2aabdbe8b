// The in-process executor as the field map drives it: the static pass names every field with no
// source before anything is sent (fragments followed), a non-null one refuses the operation rather
// than null its parent, and a REST v2 answer of the wrong shape is a typed field error.
import { describe, expect, it } from 'vitest';
import { createRunpodClient, TransportUnsupportedError } from '../../src/index.js';
import { captureError } from '../helpers.js';
import { recordingClient } from '../recording-client.js';

const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';

async function withPod() {
  const client = recordingClient({}, { graphqlTransport: 'rest' });
  const pod = await client.rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', cloudType: 'SECURE', ports: '22/tcp' });
  client.sent.length = 0;
  return { ...client, pod };
}

describe('the static pass', () => {
  it('request: every field with no source in the document, fragments followed, in one error; nothing is sent', async () => {
    const { rp, sent } = await withPod();
    const doc = `query Mine {
      myself { pods { ...Shown ... on Pod { machineType dockerId machine { runpodIp note } } } }
    }
    fragment Shown on Pod { id version machine { gpuAvailable podHostId } }`;
    const err = await captureError(rp.graphql.request(doc));
    expect(err).toBeInstanceOf(TransportUnsupportedError);
    expect((err as TransportUnsupportedError).fields).toEqual(['Pod.version', 'PodMachineInfo.gpuAvailable', 'Pod.machineType', 'PodMachineInfo.runpodIp']);
    expect(sent).toEqual([]);
  });

  it('execute: a non-null field with no source refuses the operation, naming every such field, and nothing is sent (never "pods": [null])', async () => {
    const { rp, sent } = await withPod();
    const result = await rp.graphql.execute('query { myself { pods { id volumeEncrypted version gpus { id } } } }');
    expect(result.data).toBeUndefined();
    expect(result.errors?.map((e) => e.extensions)).toEqual([
      { code: 'TransportUnsupportedError', fields: ['Pod.volumeEncrypted'] },
      { code: 'TransportUnsupportedError', fields: ['Pod.version'] },
      { code: 'TransportUnsupportedError', fields: ['Pod.gpus'] },
    ]);
    expect(sent).toEqual([]);
  });

  it('execute: nullable fields with no source are null, one error each at its path; the rest is answered', async () => {
    const { rp, pod } = await withPod();
    const result = await rp.graphql.execute<{ pod: Record<string, unknown> }>('query($id: String!) { pod(input: { podId: $id }) { id version containerDiskInGb machine { runpodIp dataCenterId } } }', { id: pod.id });
    expect(result.data!.pod).toMatchObject({ id: pod.id, version: null, containerDiskInGb: expect.any(Number), machine: { runpodIp: null, dataCenterId: expect.any(String) } });
    expect(result.errors?.map((e) => [e.path, e.extensions?.fields])).toEqual([
      [['pod', 'version'], ['Pod.version']],
      [['pod', 'machine', 'runpodIp'], ['PodMachineInfo.runpodIp']],
    ]);
  });

  it('execute: informational fields with no source are null with no error, each named once in extensions.warnings', async () => {
    const { rp, pod } = await withPod();
    const result = await rp.graphql.execute<{ pod: Record<string, unknown> }>(
      'query($id: String!) { pod(input: { podId: $id }) { id dockerId port machine { note maintenanceNote } } again: pod(input: { podId: $id }) { dockerId } }',
      { id: pod.id },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data!.pod).toEqual({ id: pod.id, dockerId: null, port: null, machine: { note: null, maintenanceNote: null } });
    expect(result.extensions?.warnings).toEqual([
      { field: 'Pod.dockerId', reason: 'REST v2 has no container id' },
      { field: 'Pod.port', reason: expect.stringContaining('legacy single port') },
      { field: 'PodMachineInfo.note', reason: expect.any(String) },
      { field: 'PodMachineInfo.maintenanceNote', reason: expect.any(String) },
    ]);
    // The static pass names no informational field: request answers the data.
    expect(await rp.graphql.request('query($id: String!) { pod(input: { podId: $id }) { id dockerId } }', { id: pod.id })).toEqual({ pod: { id: pod.id, dockerId: null } });
  });
});

describe('a REST v2 answer of the wrong shape', () => {
  const restPod = {
    id: 'p1', name: 'n', status: 'RUNNING', cost: 0.5, image: 'img', env: { HF_TOKEN: 'hf_secret_value_123' }, ports: ['22/tcp'], disk: 20,
    gpu: { id: 'NVIDIA RTX A4000', count: 1, vcpuCount: 8, memory: 31 }, mounts: {}, ssh: { proxy: null, direct: null }, runtime: null, createdAt: '2026-11-28T00:00:00Z',
  };
  const client = (pod: unknown) =>
    createRunpodClient({
      apiKey: 'rpa_shape_key',
      graphqlTransport: 'rest',
      rateLimits: false,
      maxRetries: 0,
      fetch: async () => new Response(JSON.stringify(pod), { status: 200, headers: { 'content-type': 'application/json' } }),
    });

  it('is a ServerError on the field that reads it, naming the REST path, never the value; the other fields are answered', async () => {
    const rp = client({ ...restPod, disk: 'twenty', env: { HF_TOKEN: 7 }, gpu: { ...restPod.gpu, memory: 'lots' } });
    const result = await rp.graphql.execute<{ pod: Record<string, unknown> | null }>('{ pod(input: { podId: "p1" }) { id containerDiskInGb env name } }');
    expect(result.data!.pod).toEqual({ id: 'p1', containerDiskInGb: null, env: null, name: 'n' });
    expect(result.errors?.map((e) => [e.path?.join('.'), e.extensions?.code])).toEqual([
      ['pod.containerDiskInGb', 'ServerError'],
      ['pod.env', 'ServerError'],
    ]);
    expect(result.errors![0]!.message).toContain('disk');
    expect(result.errors![1]!.message).toContain('env');
    expect(JSON.stringify(result)).not.toContain('twenty');
    // A non-null field answered wrongly nulls its parent, with a typed error naming it.
    const bad = await client({ ...restPod, gpu: { ...restPod.gpu, memory: 'lots' } }).graphql.execute('{ pod(input: { podId: "p1" }) { id memoryInGb } }');
    expect(bad.data).toEqual({ pod: null });
    expect(bad.errors?.[0]?.extensions?.code).toBe('ServerError');
    expect(bad.errors?.[0]?.message).toMatch(/Pod\.memoryInGb.*gpu\.memory/);
  });

  it('a pod that is not an object is a ServerError, never a TypeError', async () => {
    for (const answer of ['text', 42, [1, 2], { id: 5 }]) {
      const result = await client(answer).graphql.execute('{ pod(input: { podId: "p1" }) { id name env } }');
      for (const e of result.errors ?? []) expect(e.extensions?.code, e.message).toMatch(/ServerError|GraphQLResponseError/);
      expect(result.errors?.length).toBeGreaterThan(0);
    }
  });
});

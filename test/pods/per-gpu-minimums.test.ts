// GraphQL's per-pod vCPU and RAM minimums over REST v2: sent as per-GPU filters when they divide
// by the GPU count, refused otherwise; the emulator places on them, on both APIs alike.
import { describe, expect, it } from 'vitest';
import { CapacityUnavailableError, TransportUnsupportedError, type DeployPodInput } from '../../src/index.js';
import { DEFAULT_HOSTS, type HostSpec } from '../../src/emulator/index.js';
import { captureError } from '../helpers.js';
import { recordingClient } from '../recording-client.js';

const A4000 = 'NVIDIA RTX A4000';
/** Two secure A4000 hosts: the first tried is the smaller one. */
const hosts: HostSpec[] = [
  { id: 'small', gpuTypeId: A4000, gpuTotal: 4, cudaVersion: '12.8', dataCenterId: 'US-TX-3', secureCloud: true, priority: 0, vcpuPerGpu: 4, memoryPerGpuInGb: 32 },
  { id: 'large', gpuTypeId: A4000, gpuTotal: 4, cudaVersion: '12.8', dataCenterId: 'US-TX-3', secureCloud: true, priority: 1, vcpuPerGpu: 16, memoryPerGpuInGb: 96 },
  ...DEFAULT_HOSTS.filter((h) => h.gpuTypeId !== A4000),
];
const deploy: DeployPodInput = { imageName: 'img:1', gpuTypeId: A4000, cloudType: 'SECURE', gpuCount: 2 };

function setup(transport: 'rest' | 'graphql') {
  const bodies: string[] = [];
  const client = recordingClient({ hosts }, { graphqlTransport: transport }, (body) => bodies.push(body));
  const creates = () => bodies.filter((b) => b.includes('"gpu"')).map((b) => JSON.parse(b) as { gpu: Record<string, unknown> });
  return { ...client, creates };
}

describe('per-pod minimums become per-GPU filters on REST v2', () => {
  it('a total that divides by gpuCount is sent as its share per GPU, at the fetch seam', async () => {
    const { rp, creates } = setup('rest');
    await rp.pods.deploy({ ...deploy, minMemoryInGb: 128, minVcpuCount: 16 });
    expect(creates()).toHaveLength(1);
    expect(creates()[0]!.gpu).toEqual({ id: A4000, count: 2, minRamPerGpu: 64, minVcpuCountPerGpu: 8 });
  });

  it('with one GPU the total is the share, and an absent or 0 minimum sends nothing', async () => {
    const { rp, creates } = setup('rest');
    await rp.pods.deploy({ ...deploy, gpuCount: 1, minMemoryInGb: 30 });
    await rp.pods.deploy({ ...deploy, minMemoryInGb: 0, minVcpuCount: null });
    expect(creates().map((c) => c.gpu)).toEqual([
      { id: A4000, count: 1, minRamPerGpu: 30 },
      { id: A4000, count: 2 },
    ]);
  });

  it.each([
    ['minMemoryInGb', { minMemoryInGb: 129 }],
    ['minVcpuCount', { minVcpuCount: 9 }],
  ])('%s that does not divide by gpuCount is refused: no whole number per GPU says the same', async (field, extra) => {
    const { rp, sent } = setup('rest');
    const err = await captureError<TransportUnsupportedError>(rp.pods.deploy({ ...deploy, ...extra }));
    expect(err).toBeInstanceOf(TransportUnsupportedError);
    expect(err.fields).toEqual([`input.${field}`]);
    expect(err.message).toMatch(/divide by gpuCount/);
    expect(sent).toEqual([]);
  });
});

describe('the emulator places on the minimums', () => {
  it.each(['rest', 'graphql'] as const)('%s: a pod asking more than the first host gives lands on the one that has it', async (transport) => {
    const { rp, emulator } = setup(transport);
    const plain = await rp.pods.deploy(deploy);
    const picky = await rp.pods.deploy({ ...deploy, minMemoryInGb: 128, minVcpuCount: 16 });
    expect(emulator.inspect.pod(plain.id)?.hostId).toBe('small');
    expect(emulator.inspect.pod(picky.id)?.hostId).toBe('large');
  });

  it.each(['rest', 'graphql'] as const)('%s: minimums no host meets are a capacity refusal, and nothing is created', async (transport) => {
    const { rp, emulator } = setup(transport);
    const err = await captureError(rp.pods.deploy({ ...deploy, minMemoryInGb: 256 }));
    expect(err).toBeInstanceOf(CapacityUnavailableError);
    expect(emulator.inspect.podCount('rpa_retirement_key')).toBe(0);
  });

  it('rp.rest.pods.create: the answer gives the machine share of the host it placed on', async () => {
    const { rp } = setup('rest');
    const pod = await rp.rest.pods.create({ name: 'p', image: 'img:1', cloud: 'SECURE', gpu: { id: A4000, count: 2, minRamPerGpu: 90, minVcpuCountPerGpu: 10 } });
    expect(pod.gpu).toMatchObject({ id: A4000, count: 2, vcpuCount: 32, memory: 192 });
    const plain = await rp.rest.pods.create({ name: 'q', image: 'img:1', cloud: 'SECURE', gpu: { id: A4000, count: 1 } });
    expect(plain.gpu).toMatchObject({ vcpuCount: 4, memory: 32 });
  });
});

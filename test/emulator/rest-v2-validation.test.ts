import { describe, expect, it } from 'vitest';
import { contractErrors } from '../../src/emulator/rest-v2/contract.js';

describe('REST v2 emulator: request bodies against the contract', () => {
  it('names each unknown field with its path, and never a known field of a failing branch', () => {
    // `gpu.count: 0` fails inside allOf, which drops that branch's annotations: `name`, `gpu` stay known.
    expect(contractErrors('CreatePodRequest', { name: 'p', image: 'i', gpu: { id: 'g', count: 0, vram: 1 }, volumeInGb: 20 }).sort()).toEqual([
      '$.gpu.count: minimum: 0 is less than 1.',
      "$.gpu: additional properties 'vram' not allowed",
      "$: additional properties 'volumeInGb' not allowed",
    ]);
    expect(contractErrors('CreatePodRequest', { name: 'p', image: 'i', mounts: { persistent: { size: 20, path: '/w', encrypted: true } } })).toEqual([
      "$.mounts.persistent: additional properties 'encrypted' not allowed",
    ]);
    expect(contractErrors('CreateEndpointRequest', { name: 'e', image: 'i', type: 'QUEUE', scaling: { type: 'QUEUE_DELAY', queueDelay: 4 }, workers: { min: 0, idle: 5 } })).toEqual([
      "$.workers: additional properties 'idle' not allowed",
    ]);
  });

  it('applies the cross-field rules the schema carries', () => {
    expect(contractErrors('CreatePodRequest', { name: 'p' })).toEqual(["$: missing property 'image'"]);
    expect(contractErrors('CreatePodRequest', { name: 'p', templateId: 't' })).toEqual([]);
    expect(contractErrors('CreateEndpointRequest', { name: 'e', templateId: 't', type: 'LOAD_BALANCER', scaling: { type: 'REQUEST_COUNT', requestCount: 2 } })).toEqual([]);
    expect(contractErrors('CreateEndpointRequest', { name: 'e', templateId: 't', type: 'LOAD_BALANCER', scaling: { type: 'QUEUE_DELAY', queueDelay: 2 } })).not.toEqual([]);
    expect(contractErrors('UpdateEndpointRequest', { gpu: { excludedTypes: ['NVIDIA B200'] } })).not.toEqual([]);
    expect(contractErrors('UpdateEndpointRequest', { gpu: { pools: ['ADA_24'], excludedTypes: ['NVIDIA B200'] } })).toEqual([]);
    expect(contractErrors('UpdateNetworkVolumeRequest', {})).not.toEqual([]);
    expect(contractErrors('CreateNetworkVolumeRequest', { name: 'v', size: 4097, dataCenter: 'EU-RO-1' })).toEqual(['$.size: maximum: 4097 is greater than 4096.']);
    expect(contractErrors('UpdateSshKeysRequest', { keys: ['not a key'] })).not.toEqual([]);
    expect(contractErrors('PodActionRequest', { action: 'reset' })).not.toEqual([]);
  });

  it('accepts full, valid bodies of every kind the routes take', () => {
    expect(
      contractErrors('CreatePodRequest', {
        name: 'p',
        image: 'i',
        args: '--x',
        disk: 20,
        env: { A: '1' },
        ports: ['8888/http'],
        registry: null,
        cloud: 'COMMUNITY',
        gpu: { id: 'NVIDIA L40S', count: 2, allowedCudaVersions: ['12.8'], minCudaVersion: '12.4' },
        dataCenterIds: ['EU-SE-1'],
        globalNetworking: false,
        mounts: { persistent: { size: 20, path: '/workspace' } },
        startJupyter: true,
        startSsh: true,
      }),
    ).toEqual([]);
    expect(contractErrors('CreateTemplateRequest', { name: 't', image: 'i', category: 'CPU', public: false, serverless: true, mounts: { persistent: { size: 10, path: '/w' } }, allowedCudaVersions: ['12.4'] })).toEqual([]);
    expect(contractErrors('CreateClusterRequest', { name: 'c', type: 'SLURM', compute: { gpuTypeId: 'g', gpuCountPerPod: 8, podCount: 2 }, image: 'i' })).toEqual([]);
    expect(contractErrors('CreateRegistryRequest', { name: 'r', username: 'u', password: 'p' })).toEqual([]);
  });
});

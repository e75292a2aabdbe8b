// Issue 28 acceptance: the same documents give the same results with the emulator's GraphQL alive
// and then retired (410), except the documented lossy fields, and no GraphQL request after the switch.
import { describe, expect, it } from 'vitest';
import { createRunpodClient, type TransportChangeEvent } from '../../src/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import { GpuTypeCatalogDocument, GpuTypesDocument, MyPodsDocument, PodDocument } from '../../src/graphql/__generated__/operations.js';

const KEY = 'rpa_same_results_key';
const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';

/**
 * The lossy fields of the table in README "GraphQL after the retirement" (and src/pods/README.md),
 * by name: each is replaced by a placeholder on both sides, everything else must be equal.
 */
const LOSSY = new Set(['machineId', 'lastStatusChange', 'costPerHr', 'gpuCount', 'availableGpuCounts', 'uninterruptablePrice', 'stockStatus']);
const LOSSY_PATHS = [/\.runtime\.gpus\.\d+\.id$/, /\.desiredStatus$/];

function normalise(value: unknown, path = ''): unknown {
  if (Array.isArray(value)) return value.map((v, i) => normalise(v, `${path}.${i}`));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const at = `${path}.${key}`;
    out[key] = LOSSY.has(key) || LOSSY_PATHS.some((p) => p.test(at)) ? '<lossy>' : normalise(v, at);
  }
  return out;
}

const CUSTOM_PODS = `query CustomPods {
  myself { pods { id name imageName env desiredStatus runtime { uptimeInSeconds ports { ip isIpPublic privatePort publicPort type } } } }
}`;
const CUSTOM_POD = `query CustomPod($id: String!) {
  pod(input: { podId: $id }) { id name runtime { ports { ip isIpPublic privatePort publicPort type } } machine { podHostId } }
}`;
const CUSTOM_GPUS = `query CustomGpus {
  gpuTypes { id displayName memoryInGb secureCloud communityCloud lowestPrice(input: { gpuCount: 1 }) { uninterruptablePrice stockStatus } }
}`;

describe('the same documents before and after the retirement', () => {
  it('give equal results except the documented lossy fields, and send no GraphQL request after the switch', async () => {
    // A manual clock: uptime does not move between the two runs.
    const emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 0, clock: 'manual' });
    const base = emulator.clientOptions(KEY);
    let graphqlRequests = 0;
    const events: TransportChangeEvent[] = [];
    const rp = createRunpodClient({
      ...base,
      rateLimits: false,
      onTransportChange: (e) => events.push(e),
      fetch: (input, init) => {
        if (String(input instanceof Request ? input.url : input).includes('/graphql')) graphqlRequests++;
        return base.fetch!(input, init);
      },
    });
    const pod = await rp.pods.deploy({ name: 'same', imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, cloudType: 'SECURE', ports: '8888/http,22/tcp' });

    const run = async () => ({
      myPods: await rp.graphql.request(MyPodsDocument),
      pod: await rp.graphql.request(PodDocument, { input: { podId: pod.id } }),
      missing: await rp.graphql.request(PodDocument, { input: { podId: 'no-such-pod' } }),
      gpuTypes: await rp.graphql.request(GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } }),
      filtered: await rp.graphql.request(GpuTypesDocument, { input: { id: 'NVIDIA RTX A4000' }, lowestPriceInput: { gpuCount: 1, secureCloud: true } }),
      catalog: await rp.graphql.request(GpuTypeCatalogDocument),
      customPods: await rp.graphql.request(CUSTOM_PODS),
      customPod: await rp.graphql.request(CUSTOM_POD, { id: pod.id }),
      customGpus: await rp.graphql.request(CUSTOM_GPUS),
      executed: await rp.graphql.execute(CUSTOM_POD, { id: pod.id }),
    });

    const before = await run();
    const sentBefore = graphqlRequests;
    expect(sentBefore).toBeGreaterThanOrEqual(10);
    expect(before.pod.pod?.runtime?.ports?.length).toBeGreaterThan(0);

    emulator.retireGraphql();
    const after = await run();
    // The first document met the 410 and was re-run in process; nothing after it went to GraphQL.
    expect(graphqlRequests).toBe(sentBefore + 1);
    expect(events.filter((e) => e.surface === 'graphql')).toHaveLength(1);
    expect(normalise(after)).toEqual(normalise(before));
    expect(after.missing.pod).toBeNull();
  });
});

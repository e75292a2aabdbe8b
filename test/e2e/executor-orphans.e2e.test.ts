// Issue 28 acceptance: 100 podFindAndDeployOnDemand mutations through the in-process executor,
// each under an ambiguous failure after the create (error, drop, hang): 0 duplicates, 0 orphans.
import { describe, expect, it } from 'vitest';
import type { Fault } from '../../src/emulator/index.js';
import { DeployPodDocument } from '../../src/graphql/__generated__/operations.js';
import { parsePodEnv } from '../../src/graphql/pod-env.js';
import { CREATE_MARKER_ENV } from '../../src/transport/create-marker.js';
import { useEmulator } from './harness.js';

const ctx = useEmulator({
  podStartupMs: 0,
  graphqlRetired: true,
  hosts: [{ id: 'host-roomy', gpuTypeId: 'NVIDIA RTX A4000', gpuTotal: 1_000, cudaVersion: '12.8', dataCenterId: 'EU-RO-1', secureCloud: true }],
  apiKeys: ['rpa_exec_500', 'rpa_exec_drop', 'rpa_exec_timeout'],
});
const DEPLOYS = 100;
const input = { imageName: 'img:1', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, cloudType: 'SECURE' } as const;

describe(`${DEPLOYS} DeployPod documents in process, each under an ambiguous REST failure after the create`, () => {
  const scenarios: Array<[string, string, Fault, number | undefined]> = [
    ['an HTTP 500 after the pod was created', 'rpa_exec_500', { type: 'error-after-create', status: 500 }, undefined],
    ['the connection dropped after the pod was created', 'rpa_exec_drop', { type: 'drop-after-create' }, undefined],
    ['a time-out after the pod was created', 'rpa_exec_timeout', { type: 'hang-after-create', ms: 1_500 }, 500],
  ];

  it.each(scenarios)('%s: pods afterwards = mutations that answered, no duplicate, no orphan', async (_name, apiKey, fault, timeoutMs) => {
    const rule = ctx.emulator.faults.inject({ match: 'POST /v2/pods', fault, times: DEPLOYS });
    let graphqlRequests = 0;
    // In process from the first document ('rest'); GraphQL requests counted at the fetch seam.
    const rp = ctx.client(apiKey, {
      rateLimits: false,
      graphqlTransport: 'rest',
      fetch: (url, init) => {
        if (String(url instanceof Request ? url.url : url).includes('/graphql')) graphqlRequests++;
        return fetch(url, init);
      },
    });
    const ids: string[] = [];
    const failures: unknown[] = [];
    let next = 0;
    const worker = async () => {
      while (next < DEPLOYS) {
        next++;
        try {
          const data = await rp.graphql.request(DeployPodDocument, { input }, { ...(timeoutMs && { timeoutMs }) });
          ids.push(data.podFindAndDeployOnDemand!.id);
        } catch (err) {
          failures.push(err);
        }
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    expect(failures.map((e) => `${(e as Error).name}: ${(e as Error).message}`)).toEqual([]);
    expect(rule.hits()).toBe(DEPLOYS);
    expect(ids).toHaveLength(DEPLOYS);
    expect(new Set(ids).size).toBe(DEPLOYS);
    expect(graphqlRequests).toBe(0);

    const existing = await ctx.client(apiKey, { graphqlTransport: 'rest' }).pods.list();
    expect(existing.map((p) => p.id).sort()).toEqual([...ids].sort());
    expect(ctx.emulator.inspect.podCount(apiKey)).toBe(DEPLOYS);
    expect(new Set(existing.map((p) => parsePodEnv(p.env)[CREATE_MARKER_ENV])).size).toBe(DEPLOYS);
  });
});

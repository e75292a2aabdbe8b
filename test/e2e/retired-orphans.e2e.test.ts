import { describe, expect, it } from 'vitest';
import { transportOf, type Pod } from '../../src/index.js';
import type { Fault } from '../../src/emulator/index.js';
import { CREATE_MARKER_ENV } from '../../src/transport/create-marker.js';
import { parsePodEnv } from '../../src/graphql/pod-env.js';
import { useEmulator } from './harness.js';

// GraphQL retired from the start, served over loopback: every deploy meets the 410 first, then goes
// over REST v2, where the fault strikes after the pod was created.
const ctx = useEmulator({
  podStartupMs: 0,
  graphqlRetired: true,
  hosts: [{ id: 'host-roomy', gpuTypeId: 'NVIDIA RTX A4000', gpuTotal: 1_000, cudaVersion: '12.8', dataCenterId: 'EU-RO-1', secureCloud: true }],
  apiKeys: ['rpa_retired_500', 'rpa_retired_drop', 'rpa_retired_timeout'],
});
const DEPLOYS = 100;
const deployInput = { imageName: 'img:1', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, cloudType: 'SECURE' } as const;

describe(`${DEPLOYS} deploys under GraphQL's retirement and each ambiguous REST failure: pods afterwards = calls that resolved`, () => {
  const scenarios: Array<[string, string, Fault, number | undefined]> = [
    ['an HTTP 500 after the pod was created', 'rpa_retired_500', { type: 'error-after-create', status: 500 }, undefined],
    ['the connection dropped after the pod was created', 'rpa_retired_drop', { type: 'drop-after-create' }, undefined],
    ['a time-out after the pod was created', 'rpa_retired_timeout', { type: 'hang-after-create', ms: 1_500 }, 500],
  ];

  it.each(scenarios)('%s', async (_name, apiKey, fault, timeoutMs) => {
    const rule = ctx.emulator.faults.inject({ match: 'POST /v2/pods', fault, times: DEPLOYS });
    const events: unknown[] = [];
    const rp = ctx.client(apiKey, { rateLimits: false, onTransportChange: (e) => events.push(e) });
    const resolved: Pod[] = [];
    const failures: unknown[] = [];
    let next = 0;
    const worker = async () => {
      while (next < DEPLOYS) {
        next++;
        try {
          resolved.push(await rp.pods.deploy(deployInput, { ...(timeoutMs && { timeoutMs }), markerLookup: { attempts: 3, intervalMs: 200 } }));
        } catch (err) {
          failures.push(err);
        }
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    expect(rule.hits()).toBe(DEPLOYS);
    expect(failures).toEqual([]);
    expect(resolved).toHaveLength(DEPLOYS);
    expect(resolved.every((p) => transportOf(p) === 'rest')).toBe(true);
    expect(events).toHaveLength(1);

    const existing = await ctx.client(apiKey, { podsTransport: 'rest' }).pods.list();
    const ids = resolved.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(existing.map((p) => p.id).sort()).toEqual([...ids].sort());
    expect(ctx.emulator.inspect.podCount(apiKey)).toBe(DEPLOYS);
    expect(new Set(existing.map((p) => parsePodEnv(p.env)[CREATE_MARKER_ENV])).size).toBe(DEPLOYS);
  });
});

import { describe, expect, it } from 'vitest';
import { PossiblyCreatedError, type Pod } from '../../src/index.js';
import type { Fault } from '../../src/emulator/index.js';
import { CREATE_MARKER_ENV } from '../../src/transport/create-marker.js';
import { parsePodEnv } from '../../src/graphql/pod-env.js';
import { useEmulator } from './harness.js';

// One roomy host, so capacity never decides; each scenario has an account of its own.
const ctx = useEmulator({
  podStartupMs: 0,
  hosts: [{ id: 'host-roomy', gpuTypeId: 'NVIDIA RTX A4000', gpuTotal: 1_000, cudaVersion: '12.8', dataCenterId: 'EU-RO-1', secureCloud: true }],
  apiKeys: ['rpa_orphans_generic', 'rpa_orphans_500', 'rpa_orphans_drop', 'rpa_orphans_timeout', 'rpa_orphans_mixed'],
});
const DEPLOYS = 100;
const deployInput = { imageName: 'img:1', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 };

interface Outcome {
  resolved: Pod[];
  failures: unknown[];
}

/** Runs `count` deploys, `concurrency` at a time, and sorts them into resolved and failed. */
async function deployMany(apiKey: string, count: number, concurrency: number, timeoutMs?: number): Promise<Outcome> {
  // Client-side pacing is not what this measures; without it the 100 calls run at loopback speed.
  const rp = ctx.client(apiKey, { rateLimits: false });
  const outcome: Outcome = { resolved: [], failures: [] };
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      try {
        outcome.resolved.push(await rp.pods.deploy(deployInput, timeoutMs === undefined ? undefined : { timeoutMs }));
      } catch (err) {
        outcome.failures.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return outcome;
}

/** Pods existing afterwards are exactly the pods the calls resolved with: no orphan, no duplicate. */
async function expectNoOrphanNoDuplicate(apiKey: string, outcome: Outcome): Promise<void> {
  const existing = await ctx.client(apiKey).pods.list();
  const resolvedIds = outcome.resolved.map((p) => p.id);
  expect(new Set(resolvedIds).size).toBe(resolvedIds.length);
  expect(existing.map((p) => p.id).sort()).toEqual([...resolvedIds].sort());
  expect(ctx.emulator.inspect.podCount(apiKey)).toBe(outcome.resolved.length);
  const markers = existing.map((p) => parsePodEnv(p.env)[CREATE_MARKER_ENV]);
  expect(new Set(markers).size).toBe(existing.length);
}

describe(`${DEPLOYS} deploys under each ambiguous failure: pods existing afterwards = calls that resolved`, () => {
  const scenarios: Array<[string, string, Fault, number | undefined]> = [
    ['the generic error on HTTP 200 after the pod was created', 'rpa_orphans_generic', { type: 'error-after-create' }, undefined],
    ['an HTTP 500 after the pod was created', 'rpa_orphans_500', { type: 'error-after-create', status: 500 }, undefined],
    ['the connection dropped after the pod was created', 'rpa_orphans_drop', { type: 'drop-after-create' }, undefined],
    ['a time-out after the pod was created', 'rpa_orphans_timeout', { type: 'hang-after-create', ms: 1_500 }, 500],
  ];

  it.each(scenarios)('%s', async (_name, apiKey, fault, timeoutMs) => {
    const rule = ctx.emulator.faults.inject({ match: 'graphql:DeployPod', fault, times: DEPLOYS });
    const outcome = await deployMany(apiKey, DEPLOYS, 20, timeoutMs);
    expect(rule.hits()).toBe(DEPLOYS);
    expect(outcome.failures).toEqual([]);
    expect(outcome.resolved).toHaveLength(DEPLOYS);
    await expectNoOrphanNoDuplicate(apiKey, outcome);
  });

  it('mixed with failures before anything was created: those end in PossiblyCreatedError, and no pod carries their markers', async () => {
    const apiKey = 'rpa_orphans_mixed';
    const kinds: Fault[] = [{ type: 'error-after-create' }, { type: 'error-after-create', status: 502 }, { type: 'drop-after-create' }];
    for (let i = 0; i < DEPLOYS; i++) {
      const fault: Fault = i % 10 === 9 ? { type: 'status', status: 503 } : kinds[i % kinds.length]!;
      ctx.emulator.faults.inject({ match: 'graphql:DeployPod', fault });
    }
    const outcome = await deployMany(apiKey, DEPLOYS, 25);
    expect(ctx.emulator.faults.pending()).toEqual([]);
    expect(outcome.resolved).toHaveLength(90);
    expect(outcome.failures).toHaveLength(10);
    const markers = new Set<string>();
    for (const err of outcome.failures) {
      expect(err).toBeInstanceOf(PossiblyCreatedError);
      expect((err as PossiblyCreatedError).possiblyCreated).toBe(true);
      markers.add((err as PossiblyCreatedError).createMarker);
    }
    expect(markers.size).toBe(10);
    const existing = await ctx.client(apiKey).pods.list();
    expect(existing.filter((p) => markers.has(parsePodEnv(p.env)[CREATE_MARKER_ENV] ?? ''))).toEqual([]);
    await expectNoOrphanNoDuplicate(apiKey, outcome);
  });
});

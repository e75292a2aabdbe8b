// Issue 28's acceptance: 100 podFindAndDeployOnDemand mutations through the gateway under each
// ambiguous failure after create (an error, a dropped connection, a hang past the time limit):
// the pods that exist afterwards are exactly the pods the gateway answered with. 0 duplicates, 0 orphans.
import { describe, expect, it } from 'vitest';
import { createEmulator, type Fault } from '../../src/emulator/index.js';
import { createGateway } from '../../src/gateway/index.js';
import { createRunpodClient } from '../../src/index.js';

const DEPLOYS = 100;
const TOKEN = 'faults-write-token-0123456789abcdef';
const DEPLOY = 'mutation Deploy($input: PodFindAndDeployOnDemandInput) { podFindAndDeployOnDemand(input: $input) { id } }';

describe(`${DEPLOYS} deploys through the gateway under each ambiguous failure: pods afterwards = mutations that answered`, () => {
  const scenarios: Array<[string, Fault, number | undefined]> = [
    ['an HTTP 500 after the pod was created', { type: 'error-after-create', status: 500 }, undefined],
    ['the connection dropped after the pod was created', { type: 'drop-after-create' }, undefined],
    ['a time-out after the pod was created', { type: 'hang-after-create', ms: 1_500 }, 500],
  ];

  it.each(scenarios)('%s', async (_name, fault, timeoutMs) => {
    const emulator = createEmulator({
      podStartupMs: 0,
      hosts: [{ id: 'host-roomy', gpuTypeId: 'NVIDIA RTX A4000', gpuTotal: 1_000, cudaVersion: '12.8', dataCenterId: 'EU-RO-1', secureCloud: true }],
    });
    try {
      const options = emulator.clientOptions();
      const gateway = createGateway({ tokens: `write:${TOKEN}`, limits: { rate: false, maxInFlight: 20 }, client: { ...options, rateLimits: false, timeoutMs } });
      const rule = emulator.faults.inject({ match: 'POST /v2/pods', fault, times: DEPLOYS });
      const answered: string[] = [];
      const refused: unknown[] = [];
      let next = 0;
      const worker = async () => {
        while (next < DEPLOYS) {
          next++;
          const response = await gateway.fetch(new Request('http://127.0.0.1/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
            body: JSON.stringify({ query: DEPLOY, variables: { input: { imageName: 'img:1', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 } } }),
          }));
          const body = (await response.json()) as { data?: { podFindAndDeployOnDemand?: { id: string } }; errors?: unknown[] };
          if (body.data?.podFindAndDeployOnDemand?.id) answered.push(body.data.podFindAndDeployOnDemand.id);
          else refused.push({ status: response.status, errors: body.errors });
        }
      };
      await Promise.all(Array.from({ length: 20 }, worker));
      expect(rule.hits()).toBe(DEPLOYS);
      expect(refused).toEqual([]);
      expect(new Set(answered).size).toBe(DEPLOYS);
      const existing = await createRunpodClient({ ...options, rateLimits: false }).rest.pods.list();
      expect(existing.map((p) => p.id).sort()).toEqual([...answered].sort());
    } finally {
      emulator.dispose();
    }
  }, 120_000);
});

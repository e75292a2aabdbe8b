// GraphQL's per-pod RAM and vCPU minimums over REST v2, for any total and GPU count: either the
// create carries exactly the total over the count per GPU, or it is refused with nothing sent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunpodError, TransportUnsupportedError } from '../../src/index.js';
import { recordingClient } from '../recording-client.js';
import { counted, FUZZ_TIMEOUT_MS, params } from './harness.js';

describe('per-GPU minimums', () => {
  it('are the exact share per GPU, or a refusal naming the field; never rounded, never a TypeError', async () => {
    const bodies: string[] = [];
    const { rp, sent } = recordingClient({}, { graphqlTransport: 'rest' }, (body) => bodies.push(body));
    const minimum = fc.option(fc.oneof(fc.integer({ min: 1, max: 600 }), fc.constantFrom(0, -4, 1.5)), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        minimum,
        minimum,
        counted('per-gpu-minimums', async (gpuCount, minMemoryInGb, minVcpuCount) => {
          sent.length = 0;
          bodies.length = 0;
          const input = { imageName: 'img:1', gpuTypeId: 'NVIDIA RTX A4000', gpuCount, minMemoryInGb, minVcpuCount };
          const outcome: unknown = await rp.pods.deploy(input).then(
            (pod) => pod,
            (err: unknown) => err,
          );
          const create = bodies.map((b) => (b.includes('"gpu"') ? (JSON.parse(b) as { gpu: Record<string, number> }) : undefined)).find(Boolean);
          const exact = (v: number | undefined) => !v || Number.isInteger(v / gpuCount);
          if (outcome instanceof TransportUnsupportedError) {
            const fields = [...outcome.fields];
            expect(sent).toEqual([]);
            expect(fields.length).toBeGreaterThan(0);
            expect(fields.includes('input.minMemoryInGb')).toBe(!exact(minMemoryInGb));
            expect(fields.includes('input.minVcpuCount')).toBe(!exact(minVcpuCount));
            return;
          }
          if (create) {
            expect(exact(minMemoryInGb) && exact(minVcpuCount)).toBe(true);
            expect(create.gpu.minRamPerGpu).toBe(minMemoryInGb ? minMemoryInGb / gpuCount : undefined);
            expect(create.gpu.minVcpuCountPerGpu).toBe(minVcpuCount ? minVcpuCount / gpuCount : undefined);
          }
          // A whole share below 1 (a negative total) fails the contract before sending; a host that cannot meet it is a capacity refusal.
          if (!(outcome instanceof Error)) {
            expect(create).toBeDefined();
            // Freed, so that capacity never runs out over the runs.
            await rp.pods.terminate((outcome as { id: string }).id);
          }
          else expect(outcome).toBeInstanceOf(RunpodError);
        }),
      ),
      params(40),
    );
  }, FUZZ_TIMEOUT_MS);
});

// The emulator's GraphQL answers a field it holds no value for by the field map's kind: informational
// is null with a warning and no error; decisive is null with no error, as production's GraphQL
// (which the emulator stands in for before the 410) answers a field it holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, EMULATOR_API_KEY, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';

let server: ListeningEmulator;
beforeAll(async () => {
  server = await listen(createEmulator(), { port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server.close();
});

async function graphql(query: string): Promise<{ status: number; json: any }> {
  const res = await fetch(server.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${EMULATOR_API_KEY}` }, body: JSON.stringify({ query }) });
  return { status: res.status, json: await res.json() };
}

describe("the emulator's GraphQL and the two kinds of no-source field", () => {
  it('informational: data, null for the field, one warning per field and answer, no error', async () => {
    const { status, json } = await graphql('{ gpuTypes(input: { id: "NVIDIA RTX A4000" }) { id oneMonthPrice lowestPrice(input: { gpuCount: 1 }) { minimumBidPrice uninterruptablePrice } } all: gpuTypes { oneMonthPrice } }');
    expect(status).toBe(200);
    expect(json.errors).toBeUndefined();
    expect(json.data.gpuTypes).toEqual([{ id: 'NVIDIA RTX A4000', oneMonthPrice: null, lowestPrice: { minimumBidPrice: null, uninterruptablePrice: expect.any(Number) } }]);
    expect(json.extensions.warnings).toEqual([
      { field: 'GpuType.oneMonthPrice', reason: expect.any(String) },
      { field: 'LowestPrice.minimumBidPrice', reason: expect.stringContaining('spot') },
    ]);
  });

  it('decisive, with nothing in the emulator\'s state: null and no error, as production answers a field it holds (never a warning that would hide it)', async () => {
    const { status, json } = await graphql('{ gpuTypes(input: { id: "NVIDIA RTX A4000" }) { id throughput } }');
    expect(status).toBe(200);
    expect(json.data.gpuTypes).toEqual([{ id: 'NVIDIA RTX A4000', throughput: null }]);
    expect(json.errors).toBeUndefined();
    expect(json.extensions).toBeUndefined();
  });
});

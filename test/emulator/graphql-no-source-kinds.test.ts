// The emulator's GraphQL answers a field it holds no value for by the field map's kind, as the
// in-process executor does: informational is null with a warning and no error; decisive is an error
// naming the field, never a silent null a caller would decide from.
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

  it('decisive: an error naming the field, the rest answered', async () => {
    const { status, json } = await graphql('{ gpuTypes(input: { id: "NVIDIA RTX A4000" }) { id throughput } }');
    expect(status).toBe(200);
    expect(json.data.gpuTypes).toEqual([{ id: 'NVIDIA RTX A4000', throughput: null }]);
    expect(json.errors).toEqual([{ message: expect.stringContaining('GpuType.throughput'), path: ['gpuTypes', 0, 'throughput'], extensions: { code: 'NO_SOURCE' } }]);
    expect(json.extensions).toBeUndefined();
  });
});

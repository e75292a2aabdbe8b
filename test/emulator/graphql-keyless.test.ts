import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, EMULATOR_API_KEY, type Emulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';

// Production serves the catalog to a request that carries no key at all (the platform's MCP server
// reads GPU types, prices, stock and data centres that way: src/graphql/README.md, "Public
// queries"); every other operation needs one, and a wrong key is refused outright.
let emulator: Emulator;
let server: ListeningEmulator;
beforeAll(async () => {
  emulator = createEmulator();
  server = await listen(emulator, { port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server.close();
});

async function graphql(body: unknown, init: { headers?: Record<string, string>; query?: string } = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.graphqlUrl}${init.query ?? ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const GPU_TYPES = 'query GpuTypes { gpuTypes { id displayName memoryInGb } }';

describe('GraphQL without a key', () => {
  it('answers an operation that reads only gpuTypes', async () => {
    const { status, json } = await graphql({ query: GPU_TYPES });
    expect(status).toBe(200);
    expect(json.errors).toBeUndefined();
    expect(json.data.gpuTypes.length).toBeGreaterThan(2);
    expect(json.data.gpuTypes[0]).toEqual({ id: expect.any(String), displayName: expect.any(String), memoryInGb: expect.any(Number) });
  });

  it('answers gpuTypes through fragments, lowestPrice included, and picks the named operation', async () => {
    const query = `
      fragment Gpu on GpuType { id lowestPrice(input: { gpuCount: 1 }) { uninterruptablePrice } }
      query Catalog { __typename gpuTypes(input: { id: "NVIDIA GeForce RTX 4090" }) { ...Gpu ... on GpuType { memoryInGb } } }
      query Me { myself { id } }`;
    const catalog = await graphql({ query, operationName: 'Catalog' });
    expect(catalog.status).toBe(200);
    expect(catalog.json.data.gpuTypes).toEqual([{ id: 'NVIDIA GeForce RTX 4090', memoryInGb: 24, lowestPrice: { uninterruptablePrice: expect.any(Number) } }]);
    // The same document, asking for the other operation: refused.
    expect((await graphql({ query, operationName: 'Me' })).status).toBe(401);
    // Two operations and no name: which one would run is not known, so no key means no answer.
    expect((await graphql({ query })).status).toBe(401);
  });

  it("answers runpod-mcp's keyless catalog documents as it sends them (list-gpu-types, list-data-centers), and cpuTypes", async () => {
    // src/tools/catalog.ts of runpod/runpod-mcp: `graphql()` sends these with no credential.
    const gpus = await graphql({ query: 'query { gpuTypes { id displayName memoryInGb secureCloud communityCloud lowestPrice(input: { gpuCount: 1 }) { stockStatus } } }' });
    expect(gpus.status).toBe(200);
    expect(gpus.json.data.gpuTypes[0].lowestPrice).toEqual({ stockStatus: expect.any(String) });
    const centres = await graphql({ query: 'query { dataCenters { id name location } }' });
    expect(centres.status).toBe(200);
    expect(centres.json.data.dataCenters.length).toBeGreaterThan(1);
    expect(centres.json.data.dataCenters[0]).toMatchObject({ id: expect.any(String), name: expect.any(String) });
    const cpus = await graphql({ query: '{ cpuTypes { id displayName } }' });
    expect(cpus.status).toBe(200);
    expect(cpus.json.data.cpuTypes.length).toBeGreaterThan(0);
  });

  it('refuses every other operation with 401', async () => {
    for (const query of [
      'query { myself { id } }',
      'query { gpuTypes { id } myself { id } }',
      'query { pod(input: { podId: "x" }) { id } }',
      'mutation { podTerminate(input: { podId: "x" }) }',
      'fragment Me on User { id } query { gpuTypes { id } ...on Query { myself { ...Me } } }',
      'query { dataCenters { id } podTemplate(id: "x") { id } }',
      'query { gpuTypes { id ', // not a document at all
    ]) {
      const { status, json } = await graphql({ query });
      expect({ query, status }).toEqual({ query, status: 401 });
      expect(json.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
    expect((await graphql({})).status).toBe(401);
  });

  it('a wrong key stays 401, even for gpuTypes, in either spelling', async () => {
    expect((await graphql({ query: GPU_TYPES }, { headers: { authorization: 'Bearer rpa_wrong' } })).status).toBe(401);
    expect((await graphql({ query: GPU_TYPES }, { headers: { authorization: 'Basic abc' } })).status).toBe(401);
    expect((await graphql({ query: GPU_TYPES }, { query: '?api_key=rpa_wrong' })).status).toBe(401);
    expect((await graphql({ query: GPU_TYPES }, { query: '?api_key=' })).status).toBe(401);
  });

  it('a good key still reads everything', async () => {
    const { status, json } = await graphql({ query: 'query { myself { id } gpuTypes { id } }' }, { headers: { authorization: `Bearer ${EMULATOR_API_KEY}` } });
    expect(status).toBe(200);
    expect(json.data.myself.id).toEqual(expect.any(String));
  });
});

describe('GraphQL without a key, asking for a field outside the schema', () => {
  it('gets GraphQL\'s validation error (HTTP 400), not 401', async () => {
    const { status, json } = await graphql({ query: 'query { gpuTypes { id notAField } }' });
    expect(status).not.toBe(401);
    expect(json.errors?.[0]?.message).toMatch(/notAField/);
    // Anything else still needs a key.
    expect((await graphql({ query: 'query { myself { id notAField } }' })).status).toBe(401);
  });
});

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { graphql } from 'graphql';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { buildExecutableSchema } from '../../src/graphql/executable-schema.js';
import { createRunpodClient, type GpuType, type Pod } from '../../src/index.js';
import { podFixture } from '../fixtures.js';
import { TEST_API_KEY } from '../helpers.js';

/** A minimal spec-compliant GraphQL server: graphql-js over schema.graphql, key in `api_key`. */
const schema = buildExecutableSchema();
const seen: Array<{ url: string; authorization: string | undefined; operationName: string }> = [];
const pods = new Map<string, Pod>([['pod-abc123', podFixture()]]);
const rootValue = {
  pod: ({ input }: { input: { podId: string } }) => pods.get(input.podId) ?? null,
  myself: () => ({ id: 'user-1', pods: [...pods.values()] }),
  gpuTypes: () => [
    {
      id: 'NVIDIA GeForce RTX 4090',
      displayName: 'RTX 4090',
      memoryInGb: 24,
      secureCloud: true,
      communityCloud: true,
      lowestPrice: ({ input }: { input: { gpuCount: number } }) => ({
        uninterruptablePrice: 0.69,
        stockStatus: 'High',
        availableGpuCounts: [1, 2, 4].filter((n) => n >= input.gpuCount),
      }),
    },
  ],
  podFindAndDeployOnDemand: ({ input }: { input: { name: string; imageName: string; gpuCount: number } }) => {
    const pod = podFixture({ id: 'pod-new', name: input.name, imageName: input.imageName, gpuCount: input.gpuCount, desiredStatus: 'RUNNING' });
    pods.set(pod.id, pod);
    return pod;
  },
  podResume: ({ input }: { input: { podId: string; gpuCount: number } }) => {
    const pod = { ...pods.get(input.podId)!, desiredStatus: 'RUNNING' as const, gpuCount: input.gpuCount };
    pods.set(pod.id, pod);
    return pod;
  },
  podStop: ({ input }: { input: { podId: string } }) => {
    const pod = { ...pods.get(input.podId)!, desiredStatus: 'EXITED' as const, runtime: null };
    pods.set(pod.id, pod);
    return pod;
  },
  podTerminate: ({ input }: { input: { podId: string } }) => {
    pods.delete(input.podId);
    return null;
  },
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

let server: Server;
let graphqlUrl: string;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.searchParams.get('api_key') !== TEST_API_KEY) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'Unauthorized' }] }));
      return;
    }
    const body = JSON.parse(await readBody(req)) as { query: string; variables?: Record<string, unknown>; operationName: string };
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization, operationName: body.operationName });
    const result = await graphql({ schema, source: body.query, variableValues: body.variables, operationName: body.operationName, rootValue });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  graphqlUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('all operations against a GraphQL server on loopback', () => {
  it('returns correctly typed data with the key only in api_key', async () => {
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, graphqlUrl });

    const offers = await rp.gpuTypes.offers({ gpuCount: 2 });
    expect(offers).toMatchObject([{ gpuTypeId: 'NVIDIA GeForce RTX 4090', pricePerHour: 1.38, availableGpuCounts: [2, 4] }]);
    const types = await rp.gpuTypes.list({ gpuCount: 1 });
    expectTypeOf(types).toEqualTypeOf<GpuType[]>();
    expect(types[0]?.lowestPrice?.stockStatus).toBe('High');

    const deployed = await rp.pods.deploy({ name: 'loop', imageName: 'img:1', gpuTypeId: 'NVIDIA GeForce RTX 4090', gpuCount: 1, ports: '8888/http' });
    expect(deployed).toMatchObject({ id: 'pod-new', name: 'loop', imageName: 'img:1', desiredStatus: 'RUNNING' });
    expect(await rp.pods.waitUntilReady('pod-new')).toMatchObject({ id: 'pod-new' });
    expect((await rp.pods.list()).map((p) => p.id).sort()).toEqual(['pod-abc123', 'pod-new']);
    expect(await rp.pods.stop('pod-new')).toEqual({ id: 'pod-new', desiredStatus: 'EXITED' });
    expect((await rp.pods.get('pod-new'))?.runtime).toBeNull();
    expect(await rp.pods.resume({ podId: 'pod-new', gpuCount: 1 })).toMatchObject({ desiredStatus: 'RUNNING', gpuCount: 1 });
    await rp.pods.terminate('pod-new');
    expect(await rp.pods.get('pod-new')).toBeNull();

    expect(seen.map((s) => s.operationName)).toEqual(['GpuTypes', 'GpuTypes', 'GpuTypeCatalog', 'DeployPod', 'Pod', 'MyPods', 'StopPod', 'Pod', 'ResumePod', 'TerminatePod', 'Pod']);
    for (const request of seen) {
      expect(request.authorization).toBeUndefined();
      expect(new URL(request.url, 'http://x').searchParams.get('api_key')).toBe(TEST_API_KEY);
    }
  });
});

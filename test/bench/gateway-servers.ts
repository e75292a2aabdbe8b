// One GraphQL server for the gateway comparison row, in its own process (pinned to the server core
// when taskset is there): `gateway` (runpod-gql's, from dist/), `yoga` (graphql-yoga with
// graphql-armor's defaults and one hand-written resolver) or `floor` (the project's own listener
// and REST client, no GraphQL: what a socket allows). Each reads the same pod from the same
// emulator, answers `GET /__cpu` with its process's CPU time, and prints one JSON line once listening.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const [kind = '', json = '{}'] = process.argv.slice(2);
const { restUrl, graphqlUrl, apiKey, token, maxInFlight } = JSON.parse(json) as { restUrl: string; graphqlUrl: string; apiKey: string; token: string; maxInFlight?: number };
const dist = (path: string) => new URL(`../../dist/${path}`, import.meta.url).href;

const cpuAnswer = () => JSON.stringify(process.cpuUsage());
const announce = (url: string) => console.log(JSON.stringify({ url, pid: process.pid }));

if (kind === 'gateway' || kind === 'floor') {
  const { createGateway } = (await import(dist('gateway/index.js'))) as typeof import('../../src/gateway/index.js');
  const { listen } = (await import(dist('gateway/node.js'))) as typeof import('../../src/gateway/node.js');
  const { createRunpodClient } = (await import(dist('index.js'))) as typeof import('../../src/index.js');
  let handle: (request: Request, info?: object) => Promise<Response>;
  if (kind === 'gateway') {
    // As `runpod-gql gateway` runs by default, with a per-caller rate no round reaches and an
    // in-flight limit the bench's concurrency fits in (the bench's one client is one caller).
    // The response cache off, so each request runs the document as yoga and the floor do.
    const gateway = createGateway({ tokens: `read:${token}`, cache: false, limits: { rate: { requests: 1_000_000, intervalMs: 60_000 }, ...(maxInFlight ? { maxInFlight } : {}) }, client: { restUrl, graphqlUrl, apiKey, rateLimits: false } });
    // The listener's info (the peer's address, the connection's hang-up) passed on, as `listen(gateway)` passes it.
    handle = (request, info) => gateway.fetch(request, info);
  } else {
    const rp = createRunpodClient({ restUrl, graphqlUrl, apiKey, rateLimits: false });
    handle = async (request) => {
      const { variables } = (await request.json()) as { variables: { id: string } };
      const pod = await rp.rest.pods.get(variables.id);
      const data = { pod: { id: pod.id, name: pod.name, desiredStatus: pod.status, imageName: pod.image } };
      return new Response(JSON.stringify({ data }), { headers: { 'content-type': 'application/json' } });
    };
  }
  const served = await listen({
    fetch: (request, info) => (request.url.endsWith('/__cpu') ? Promise.resolve(new Response(cpuAnswer())) : handle(request, info)),
    ready: Promise.resolve(),
    anonymous: false,
  });
  announce(served.graphqlUrl);
} else if (kind === 'yoga') {
  const { createSchema, createYoga } = await import('graphql-yoga');
  const { EnvelopArmorPlugin } = await import('@escape.tech/graphql-armor');
  const typeDefs = /* GraphQL */ `
    type Pod { id: String! name: String desiredStatus: String imageName: String }
    input PodFilter { podId: String! }
    type Query { pod(input: PodFilter!): Pod }
  `;
  // The one resolver a developer would write: the REST v2 read, its fields renamed.
  const resolvers = {
    Query: {
      pod: async (_: unknown, { input }: { input: { podId: string } }) => {
        const response = await fetch(`${restUrl}/pods/${encodeURIComponent(input.podId)}`, { headers: { authorization: `Bearer ${apiKey}` } });
        if (!response.ok) throw new Error(`REST v2 answered ${response.status}`);
        const pod = (await response.json()) as { id: string; name?: string; status?: string; image?: string };
        return { id: pod.id, name: pod.name, desiredStatus: pod.status, imageName: pod.image };
      },
    },
  };
  const yoga = createYoga({ schema: createSchema({ typeDefs, resolvers }), plugins: [EnvelopArmorPlugin()], graphqlEndpoint: '/graphql', logging: false });
  const server = createServer((req, res) => {
    if (req.url === '/__cpu') return void res.end(cpuAnswer());
    void yoga(req, res);
  });
  Object.assign(server, { keepAliveTimeout: 65_000, headersTimeout: 66_000 });
  server.listen(0, '127.0.0.1', () => announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`));
} else {
  throw new Error(`unknown server ${kind}`);
}

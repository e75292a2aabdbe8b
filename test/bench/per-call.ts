// Per-call client CPU, run in its own (pinned) process against the stub server. Every variant of a
// call runs in short blocks, interleaved and in a rotating order, so drift on a shared machine
// falls on all of them; ratios are taken block against block within a round, then summarised.
// Prints one JSON line.
import { GraphQLClient } from 'graphql-request';
import { referenceClient, referenceGraphQL } from './reference-client.js';
import { spread, type Spread } from './stats.js';

type Api = typeof import('../../src/index.js');

const { url, quick, dist } = JSON.parse(process.argv[2]!) as { url: string; quick: boolean; dist: string };
// The built package, as users run it.
const { createRunpodClient, PodDocument } = (await import(dist)) as Api;

const KEY = 'rpa_bench_key';
const rp = createRunpodClient({ apiKey: KEY, graphqlUrl: `${url}/graphql`, restUrl: `${url}/v2`, serverlessUrl: `${url}/queue/v2` });
const bearer = { accept: 'application/json', authorization: `Bearer ${KEY}` };
const reference = referenceClient(bearer);
const referenceQuery = referenceClient({ accept: 'application/json', 'content-type': 'application/json' });
const podQuery = String(PodDocument);
const podVariables = { input: { podId: 'pod-abc123' } };
const gqlBody = JSON.stringify({ query: podQuery, operationName: 'Pod', variables: podVariables });
const gqlUrl = `${url}/graphql?api_key=${KEY}`;
const graphqlRequest = new GraphQLClient(gqlUrl);
const restUrl = `${url}/v2/pods/pod-abc123`;
const statusUrl = `${url}/queue/v2/ep-1/status/job-1`;

type Variant = readonly [name: string, call: () => Promise<unknown>];
const calls: Record<string, Variant[]> = {
  'pods.get (GraphQL)': [
    ['bare fetch', async () => (await fetch(gqlUrl, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: gqlBody })).json()],
    ['reference client', () => referenceGraphQL(referenceQuery, gqlUrl, gqlBody)],
    ['graphql-request', () => graphqlRequest.request(podQuery, podVariables)],
    ['runpod-gql', () => rp.pods.get('pod-abc123')],
  ],
  'rest.pods.get (REST v2 GET)': [
    ['bare fetch', async () => (await fetch(restUrl, { headers: bearer })).json()],
    ['reference client', () => reference(restUrl)],
    ['runpod-gql', () => rp.rest.pods.get('pod-abc123')],
  ],
  'endpoint(id).status (job status)': [
    ['bare fetch', async () => (await fetch(statusUrl, { headers: bearer })).json()],
    ['reference client', () => reference(statusUrl)],
    ['runpod-gql', () => rp.endpoint('ep-1').status('job-1')],
  ],
};

async function block(size: number, call: () => Promise<unknown>): Promise<number> {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < size; i++) await call();
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / size;
}

const rounds = quick ? 25 : 80;
const blockSize = quick ? 150 : 250;
const out: Record<string, { cpuUs: Record<string, Spread>; ratios: Record<string, Spread> }> = {};
for (const [name, variants] of Object.entries(calls)) {
  // One call each first: a wrong answer stops the bench instead of timing an error path.
  for (const [, call] of variants) await call();
  for (const [, call] of variants) await block(blockSize, call);
  const perVariant: Record<string, number[]> = Object.fromEntries(variants.map(([v]) => [v, []]));
  const ratios: Record<string, number[]> = {};
  const ratio = (key: string, value: number) => (ratios[key] ??= []).push(value);
  for (let round = 0; round < rounds; round++) {
    const cpu: Record<string, number> = {};
    for (let i = 0; i < variants.length; i++) {
      const [variant, call] = variants[(round + i) % variants.length]!;
      cpu[variant] = await block(blockSize, call);
      perVariant[variant]!.push(cpu[variant]);
    }
    ratio('runpod-gql / bare fetch', cpu['runpod-gql']! / cpu['bare fetch']!);
    ratio('runpod-gql / reference client', cpu['runpod-gql']! / cpu['reference client']!);
    ratio('reference client / bare fetch', cpu['reference client']! / cpu['bare fetch']!);
    if (cpu['graphql-request'] !== undefined) {
      ratio('graphql-request / bare fetch', cpu['graphql-request'] / cpu['bare fetch']!);
      ratio('runpod-gql / graphql-request', cpu['runpod-gql']! / cpu['graphql-request']);
    }
  }
  out[name] = {
    cpuUs: Object.fromEntries(Object.entries(perVariant).map(([k, v]) => [k, spread(v)])),
    ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, spread(v)])),
  };
}
console.log(JSON.stringify({ rounds, blockSize, calls: out }));

// Per-call client CPU, run in its own (pinned) process against the stub server. Every variant of a
// call runs in short blocks, interleaved and in a rotating order, so drift on a shared machine
// falls on all of them; ratios are taken block against block within a round, then summarised.
// Prints one JSON line.
import { GraphQLClient } from 'graphql-request';
import { referenceClient, referenceGraphQL } from './reference-client.js';
import { quantile, spread, type Spread } from './stats.js';

type Api = typeof import('../../src/index.js');

const { url, quick, dist } = JSON.parse(process.argv[2]!) as { url: string; quick: boolean; dist: string };
// The built package, as users run it.
const { createRunpodClient, PodDocument } = (await import(dist)) as Api;

const KEY = 'rpa_bench_key';
// Pacing stays on (its bookkeeping is part of each call's cost) with limits no block reaches: the
// defaults (GraphQL 100 per 10 s) would turn a CPU measurement into a wait.
const rateLimits = Object.fromEntries(['graphql', 'rest', 'serverless'].map((key) => [key, { requests: Infinity, concurrency: 1e9 }]));
const rp = createRunpodClient({ apiKey: KEY, graphqlUrl: `${url}/graphql`, restUrl: `${url}/v2`, serverlessUrl: `${url}/queue/v2`, rateLimits });
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
  return cpu.user + cpu.system;
}

// A round is `slices` short blocks of every variant, in rotating order; a ratio is taken per round.
const rounds = quick ? 6 : 40;
const slices = 8;
const blockSize = 25;
const callsPerRound = slices * blockSize;

async function measure(variants: Variant[]) {
  // One call each first: a wrong answer stops the bench instead of timing an error path.
  for (const [, call] of variants) await call();
  for (const [, call] of variants) await block(callsPerRound, call);
  const perVariant: Record<string, number[]> = Object.fromEntries(variants.map(([v]) => [v, []]));
  // Every slice's per-call CPU: interference from other work only ever adds, so the low decile
  // of many short slices is the figure least touched by a busy machine.
  const perSlice: Record<string, number[]> = Object.fromEntries(variants.map(([v]) => [v, []]));
  const ratios: Record<string, number[]> = {};
  const ratio = (key: string, value: number) => (ratios[key] ??= []).push(value);
  for (let round = 0; round < rounds; round++) {
    const cpu: Record<string, number> = Object.fromEntries(variants.map(([v]) => [v, 0]));
    for (let slice = 0; slice < slices; slice++) {
      for (let i = 0; i < variants.length; i++) {
        const [variant, call] = variants[(round * slices + slice + i) % variants.length]!;
        const used = await block(blockSize, call);
        cpu[variant]! += used;
        perSlice[variant]!.push(used / blockSize);
      }
    }
    for (const [variant] of variants) perVariant[variant]!.push(cpu[variant]! / callsPerRound);
    ratio('runpod-gql / bare fetch', cpu['runpod-gql']! / cpu['bare fetch']!);
    ratio('runpod-gql / reference client', cpu['runpod-gql']! / cpu['reference client']!);
    ratio('reference client / bare fetch', cpu['reference client']! / cpu['bare fetch']!);
    if (cpu['graphql-request'] !== undefined) {
      ratio('graphql-request / bare fetch', cpu['graphql-request'] / cpu['bare fetch']!);
      ratio('runpod-gql / graphql-request', cpu['runpod-gql']! / cpu['graphql-request']);
    }
  }
  const low = (variant: string) => quantile(perSlice[variant]!, 0.1);
  const lowDecileRatios: Record<string, number> = {
    'runpod-gql / bare fetch': low('runpod-gql') / low('bare fetch'),
    'runpod-gql / reference client': low('runpod-gql') / low('reference client'),
  };
  return {
    lowDecileRatios,
    cpuUs: Object.fromEntries(Object.entries(perVariant).map(([k, v]) => [k, spread(v)])),
    ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, spread(v)])),
  };
}

const out: Record<string, Awaited<ReturnType<typeof measure>>> = {};
for (const [name, variants] of Object.entries(calls)) out[name] = await measure(variants);

// The client's own JavaScript, without the network: the same calls against a fetch double that
// answers at once, so a trim of a microsecond shows (the network figures above cannot resolve it).
const answers: Array<[string, string]> = [
  ['/graphql', await (await fetch(gqlUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: gqlBody })).text()],
  ['/status/', await (await fetch(statusUrl, { headers: bearer })).text()],
  ['/v2/pods/', await (await fetch(restUrl, { headers: bearer })).text()],
];
const jsonHeaders = { 'content-type': 'application/json' };
const fetchDouble = async (input: string | URL | Request, _init?: RequestInit) => {
  const href = String(input);
  return new Response(answers.find(([part]) => href.includes(part))![1], { status: 200, headers: jsonHeaders });
};
const offline = createRunpodClient({ apiKey: KEY, graphqlUrl: `${url}/graphql`, restUrl: `${url}/v2`, serverlessUrl: `${url}/queue/v2`, rateLimits, fetch: fetchDouble });
const doubleBare = async (u: string) => (await fetchDouble(u)).json();
const doubleRef = async (u: string) => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    return JSON.parse(await (await fetchDouble(u, { headers: bearer, signal: controller.signal })).text()) as unknown;
  } finally {
    clearTimeout(timer);
  }
};
const ownOverhead: Record<string, Record<string, number>> = {};
for (const [name, variants] of Object.entries({
  'pods.get (GraphQL)': [['bare fetch', () => doubleBare(gqlUrl)], ['reference client', () => doubleRef(gqlUrl)], ['runpod-gql', () => offline.pods.get('pod-abc123')]],
  'rest.pods.get (REST v2 GET)': [['bare fetch', () => doubleBare(restUrl)], ['reference client', () => doubleRef(restUrl)], ['runpod-gql', () => offline.rest.pods.get('pod-abc123')]],
  'endpoint(id).status (job status)': [['bare fetch', () => doubleBare(statusUrl)], ['reference client', () => doubleRef(statusUrl)], ['runpod-gql', () => offline.endpoint('ep-1').status('job-1')]],
} satisfies Record<string, Variant[]>)) {
  const samples: Record<string, number[]> = {};
  for (const [, call] of variants) await block(2_000, call);
  for (let round = 0; round < (quick ? 6 : 30); round++) {
    for (let i = 0; i < variants.length; i++) {
      const [variant, call] = variants[(round + i) % variants.length]!;
      (samples[variant] ??= []).push((await block(1_000, call)) / 1_000);
    }
  }
  ownOverhead[name] = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, spread(v).median]));
}

console.log(JSON.stringify({ rounds, slices, blockSize, calls: out, ownOverhead }));

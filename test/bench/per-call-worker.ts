// One variant of one call (say, runpod-gql's `pods.get`), alone in its own pinned process, so its
// code stays monomorphic and its garbage is collected on its own time, as in an application that
// uses one client. The bench sends `block N` on stdin; the worker makes N calls one after another
// and answers with the CPU microseconds its process used for them (user + system, every thread,
// so the collector's work counts against the variant that made the garbage). `exit` ends it.
import { createInterface } from 'node:readline';
import { GraphQLClient } from 'graphql-request';
import type { AblationName } from './ablations.js';
import { referenceClient, referenceGraphQL } from './reference-client.js';

type Api = typeof import('../../src/index.js');

export type CallName = 'graphql' | 'rest' | 'status' | 'rest-ablation';


export type VariantName = 'bare fetch' | 'bare fetch + signal' | 'reference client' | 'graphql-request' | 'graphql-request + signal' | 'runpod-gql' | AblationName;

export interface WorkerInput {
  url: string;
  dist: string;
  call: CallName;
  variant: VariantName;
  /** Answer from memory instead of the network: only the client's own JavaScript is left. */
  fetchDouble: boolean;
}

const input = JSON.parse(process.argv[2]!) as WorkerInput;
const { url, call, variant } = input;
const { createRunpodClient, PodDocument } = (await import(input.dist)) as Api;

const KEY = 'rpa_bench_key';
const jsonHeaders = { accept: 'application/json', 'content-type': 'application/json' };
const bearer = { accept: 'application/json', authorization: `Bearer ${KEY}` };
const podQuery = String(PodDocument);
const podVariables = { input: { podId: 'pod-abc123' } };
const gqlBody = JSON.stringify({ query: podQuery, operationName: 'Pod', variables: podVariables });
const gqlUrl = `${url}/graphql?api_key=${KEY}`;
// Every variant does per call what any client must: the body serialised, the URL built from the
// id (only the answer the double gives is made once).
const restUrl = (id: string) => `${url}/v2/pods/${encodeURIComponent(id)}`;
const statusUrl = (id: string) => `${url}/queue/v2/ep-1/status/${encodeURIComponent(id)}`;
const target = { graphql: () => gqlUrl, rest: () => restUrl('pod-abc123'), 'rest-ablation': () => restUrl('pod-abc123'), status: () => statusUrl('job-1') }[call];

// The double answers every variant with the text the stub gives, read once over the network.
let doFetch: typeof fetch = fetch;
if (input.fetchDouble) {
  const init: RequestInit = call === 'graphql' ? { method: 'POST', headers: jsonHeaders, body: gqlBody } : { headers: bearer };
  const text = await (await fetch(target(), init)).text();
  const headers = { 'content-type': 'application/json' };
  doFetch = (async () => new Response(text, { status: 200, headers })) as typeof fetch;
}

// Pacing stays on (its bookkeeping is part of each call's cost) with limits no block reaches: the
// defaults (GraphQL 100 per 10 s) would turn a CPU measurement into a wait.
const rateLimits = Object.fromEntries(['graphql', 'rest', 'serverless'].map((key) => [key, { requests: Infinity, concurrency: 1e9 }]));
const makeCall = async (): Promise<() => Promise<unknown>> => {
  switch (variant) {
    case 'bare fetch':
      return call === 'graphql'
        ? async () => (await doFetch(gqlUrl, { method: 'POST', headers: jsonHeaders, body: JSON.stringify({ query: podQuery, operationName: 'Pod', variables: podVariables }) })).json()
        : async () => (await doFetch(target(), { headers: bearer })).json();
    // What any per-attempt time limit costs in this runtime: the same fetch, handed an AbortSignal.
    case 'bare fetch + signal':
      // Written as the bare fetch is, so the signal is the only difference.
      return call === 'graphql'
        ? async () => (await doFetch(gqlUrl, { method: 'POST', headers: jsonHeaders, body: JSON.stringify({ query: podQuery, operationName: 'Pod', variables: podVariables }), signal: new AbortController().signal })).json()
        : async () => (await doFetch(target(), { headers: bearer, signal: new AbortController().signal })).json();
    case 'reference client': {
      if (call === 'graphql') {
        const reference = referenceClient(jsonHeaders, { fetch: doFetch });
        return () => referenceGraphQL(reference, gqlUrl, podQuery, 'Pod', podVariables);
      }
      const reference = referenceClient(bearer, { fetch: doFetch });
      return () => reference(target());
    }
    case 'graphql-request': {
      const client = new GraphQLClient(gqlUrl, { fetch: doFetch });
      return () => client.request(podQuery, podVariables);
    }
    // What a careful user of graphql-request writes: a time limit on every call, as the reference
    // client and this client have (a controller and a timer, cleared when the answer is in).
    case 'graphql-request + signal': {
      const client = new GraphQLClient(gqlUrl, { fetch: doFetch });
      return async () => {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), 30_000);
        try {
          return await client.request({ document: podQuery, variables: podVariables, signal: controller.signal });
        } finally {
          clearTimeout(timer);
        }
      };
    }
    case 'ref + User-Agent':
    case "ref + redirect: 'manual'":
    case 'ref + frozen headers':
    case 'ref + body reader':
    case 'ref + rate-limit headers':
    case "ref + client's signal":
    case 'ref + all six':
      return await ablated(variant);
    case 'runpod-gql': {
      const rp = createRunpodClient({ apiKey: KEY, graphqlUrl: `${url}/graphql`, restUrl: `${url}/v2`, serverlessUrl: `${url}/queue/v2`, rateLimits, fetch: doFetch });
      if (call === 'graphql') return () => rp.pods.get('pod-abc123');
      if (call === 'rest') return () => rp.rest.pods.get('pod-abc123');
      // As applications write it: the endpoint looked up on every call.
      return () => rp.endpoint('ep-1').status('job-1');
    }
  }
};
const once = await makeCall();

/**
 * The reference client's REST GET (reference-client.ts, its retries left out: no block meets one)
 * with one of the client's ways, or all of them, put in. Each is what `dist/transport/http-core.js`
 * does for the same call, taken from the same build where it is code (the User-Agent, linkAbort).
 */
async function ablated(variant: AblationName): Promise<() => Promise<unknown>> {
  const all = variant === 'ref + all six';
  const has = (name: AblationName) => all || variant === name;
  const { userAgent } = (await import(new URL('transport/user-agent.js', input.dist).href)) as typeof import('../../src/transport/user-agent.js');
  const { linkAbort } = (await import(new URL('transport/abort.js', input.dist).href)) as typeof import('../../src/transport/abort.js');
  const base: Record<string, string> = { ...bearer };
  if (has('ref + User-Agent')) base['user-agent'] = userAgent()!;
  const headers = has('ref + frozen headers') ? Object.freeze(base) : base;
  const redirect: RequestRedirect | undefined = has("ref + redirect: 'manual'") ? 'manual' : undefined;
  const clientSignal = has("ref + client's signal");
  const bodyReader = has('ref + body reader');
  const rateLimitHeaders = has('ref + rate-limit headers');
  const readResult = async (res: Response) => ({ status: res.status, headers: res.headers, text: await res.text() });
  return async () => {
    let controller: AbortController | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let link: ReturnType<typeof linkAbort> | undefined;
    let signal: AbortSignal;
    if (clientSignal) signal = (link = linkAbort(undefined, 30_000)).signal;
    else {
      controller = new AbortController();
      const c = controller;
      timer = setTimeout(() => c.abort(), 30_000);
      signal = controller.signal;
    }
    try {
      const init: RequestInit = { method: 'GET', headers, signal };
      if (redirect) init.redirect = redirect;
      const res = await doFetch(target(), init);
      if (rateLimitHeaders && (res.headers.has('ratelimit') || res.headers.has('ratelimit-policy'))) throw new Error('unexpected RateLimit header');
      const text = bodyReader ? (await readResult(res)).text : await res.text();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return JSON.parse(text) as unknown;
    } finally {
      if (link) link.dispose();
      else clearTimeout(timer);
    }
  };
}

async function block(size: number): Promise<number> {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < size; i++) await once();
  const cpu = process.cpuUsage(cpu0);
  return cpu.user + cpu.system;
}

// Warm-up: the JIT settles and connections open before anything is measured. A wrong answer
// stops the bench here instead of timing an error path.
await block(2_000);
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const [command, n] = line.split(' ');
  if (command === 'exit') break;
  process.stdout.write(`${await block(Number(n))}\n`);
}
process.exit(0);

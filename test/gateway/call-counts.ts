// Issue 43's four documents whose upstream calls are counted against what a careful client needs,
// run through a gateway in process (over REST v2): the count test (shared-reads.test.ts) and the
// bench row (test/bench/upstream-calls.ts) both run these, so the figures are the same documents.
import { createEmulator } from '../../src/emulator/index.js';
import { createGateway, type GatewayOptions } from '../../src/gateway/index.js';
import type { FetchLike } from '../../src/transport/options.js';

const TOKEN = 'calls-write-token-0123456789abcdef';

/** One document, the calls it made by route, and the fewest a careful client needs. */
export interface CallCount {
  readonly document: string;
  /** Upstream calls by `METHOD /path` (ids folded into `{id}`). */
  readonly calls: Readonly<Record<string, number>>;
  readonly total: number;
  /** What a careful client sends for the same answer. */
  readonly careful: number;
  readonly carefulText: string;
  /** The gateway's answer had no errors. */
  readonly answered: boolean;
}

const VOLUMES = 24;
const DATA_CENTRES = ['EU-RO-1', 'US-KS-2', 'CA-MTL-1'];

/** A REST v2 account of 24 endpoints, each on its own network volume, the volumes in 3 data centres, and 30 templates. */
const account = {
  endpoints: Array.from({ length: VOLUMES }, (_, i) => ({ id: `ep-${i}`, name: `endpoint ${i}`, networkVolumes: [`vol-${i}`] })),
  volumes: Array.from({ length: VOLUMES }, (_, i) => ({ id: `vol-${i}`, name: `volume ${i}`, size: 10, dataCenter: DATA_CENTRES[i % DATA_CENTRES.length] })),
  dataCentres: DATA_CENTRES.map((id) => ({ id, name: `data centre ${id}` })),
  templates: Array.from({ length: 30 }, (_, i) => ({ id: `tpl-${i}`, name: `template ${i}`, image: 'img:1' })),
};

/** REST v2 over the account above, answered at once. */
const accountUpstream: FetchLike = async (input) => {
  const path = new URL(String(input)).pathname.replace(/^\/v2/, '');
  const one = (list: ReadonlyArray<{ id: string }>, id: string) => {
    const found = list.find((item) => item.id === decodeURIComponent(id));
    return found ? Response.json(found) : Response.json({ error: 'not found' }, { status: 404 });
  };
  let m: RegExpExecArray | null;
  if (path === '/serverless') return Response.json({ endpoints: account.endpoints, pagination: { nextCursor: null, hasNextPage: false } });
  if (path === '/network-volumes') return Response.json({ networkVolumes: account.volumes });
  if ((m = /^\/network-volumes\/([^/]+)$/.exec(path))) return one(account.volumes, m[1]!);
  if (path === '/catalog/datacenters') return Response.json({ dataCenters: account.dataCentres });
  if ((m = /^\/catalog\/datacenters\/([^/]+)$/.exec(path))) return one(account.dataCentres, m[1]!);
  if (path === '/templates') return Response.json({ templates: account.templates, pagination: { nextCursor: null, hasNextPage: false } });
  if ((m = /^\/templates\/([^/]+)$/.exec(path))) return one(account.templates, m[1]!);
  return Response.json({ error: 'not found' }, { status: 404 });
};

const routeOf = (method: string, url: string) =>
  `${method} ${new URL(url).pathname
    .replace(/^\/v2/, '')
    .replace(/\/(tpl|vol|ep|pod)-[^/]+/, '/{id}')
    .replace(/\/(EU|US|CA)-[A-Z]+-\d+$/, '/{id}')}`;

/** Runs `document` (with `variables`) through a gateway on `upstream`, counting upstream calls by route. */
async function count(upstream: FetchLike, document: string, variables: Record<string, unknown> | undefined, client: GatewayOptions['client'] = {}) {
  const calls: Record<string, number> = {};
  const counting: FetchLike = (input, init) => {
    const route = routeOf(init?.method ?? 'GET', String(input));
    calls[route] = (calls[route] ?? 0) + 1;
    return upstream(input, init);
  };
  const gateway = createGateway({
    tokens: `write:${TOKEN}`,
    limits: { rate: false, maxInFlight: 50 },
    client: { apiKey: 'rpa_CALLCOUNTS0123456789ABCDEFGHIJKLMNOPQ', restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql', maxRetries: 0, ...client, fetch: counting },
  });
  const response = await gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ query: document, variables }) }));
  const body = (await response.json()) as { errors?: unknown[] };
  return { calls, total: Object.values(calls).reduce((a, b) => a + b, 0), answered: response.status === 200 && !body.errors };
}

const DEPLOY_INPUT = { imageName: 'img:1', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 };

/** The four documents of issue 43, each counted once. */
export async function countDocuments(): Promise<CallCount[]> {
  const rows: CallCount[] = [];
  const templates = `{ ${Array.from({ length: 30 }, (_, i) => `t${i}: podTemplate(id: "tpl-${i}") { id name }`).join(' ')} }`;
  rows.push({ document: '30 aliased podTemplate(id)', ...(await count(accountUpstream, templates, undefined)), careful: 1, carefulText: 'GET /templates' });
  const volumes = '{ myself { endpoints { id networkVolume { id name size } } } }';
  rows.push({ document: `myself { endpoints { networkVolume } } over ${VOLUMES} volumes`, ...(await count(accountUpstream, volumes, undefined)), careful: 2, carefulText: 'GET /serverless, GET /network-volumes' });
  const centres = '{ myself { endpoints { id networkVolume { id name dataCenter { id name } } } } }';
  rows.push({ document: 'the same with the volume\'s data centre', ...(await count(accountUpstream, centres, undefined)), careful: 3, carefulText: 'the two, GET /catalog/datacenters' });

  // Deploys on the emulator: its catalog and its POST /pods, as RunPod answers them.
  const emulator = createEmulator({ podStartupMs: 0, hosts: [{ id: 'host-roomy', gpuTypeId: 'NVIDIA RTX A4000', gpuTotal: 1_000, cudaVersion: '12.8', dataCenterId: 'EU-RO-1', secureCloud: true }] });
  try {
    const { fetch: emulatorFetch, apiKey: _key, ...urls } = emulator.clientOptions();
    const deploys = `mutation Deploys($input: PodFindAndDeployOnDemandInput) { ${Array.from({ length: 10 }, (_, i) => `d${i}: podFindAndDeployOnDemand(input: $input) { id }`).join(' ')} }`;
    const counted = await count(emulatorFetch as FetchLike, deploys, { input: DEPLOY_INPUT }, { ...urls, apiKey: emulator.clientOptions().apiKey, rateLimits: false });
    rows.push({ document: '10 aliased deploys', ...counted, careful: 12, carefulText: '10 × POST /pods, GET /catalog/gpus for each cloud' });
  } finally {
    emulator.dispose();
  }
  return rows;
}

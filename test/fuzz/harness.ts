// Shared ground of the fuzz tests: run counts and seed, the method table, malformed answers and
// the figures `npm run fuzz` prints.
import { inspect } from 'node:util';
import fc from 'fast-check';
import { createRunpodClient, type RunpodClient } from '../../src/client.js';
import { createRunpodRestV1Client, type RunpodRestV1 } from '../../src/rest-v1/index.js';
import type { CallOptions, RunpodClientOptions } from '../../src/transport/options.js';

/** `FUZZ_RUNS` multiplies every property's runs (1 in CI; `npm run fuzz` raises it). */
export const FUZZ_SCALE = Math.max(1, Number(process.env.FUZZ_RUNS ?? 1) || 1);
/** Fixed unless `FUZZ_SEED` is given; printed with every failure by fast-check, and by the soak. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261121);
export const SOAK = process.env.FUZZ_RUNS !== undefined;
/** Time allowed to one property test: the suite's default, scaled with the runs. */
export const FUZZ_TIMEOUT_MS = 20_000 * FUZZ_SCALE;

export function params(numRuns: number): fc.Parameters<unknown> {
  return { numRuns: numRuns * FUZZ_SCALE, seed: FUZZ_SEED, endOnFailure: true };
}

/** Prints one line of acceptance figures under `npm run fuzz`. */
export function reportFigures(title: string, figures: Record<string, number | string>): void {
  if (!SOAK) return;
  const line = Object.entries(figures).map(([k, v]) => `${k}: ${v}`).join(', ');
  process.stdout.write(`\n[fuzz] ${title} (seed ${FUZZ_SEED}) — ${line}\n`);
}

/**
 * The full client, plus the legacy REST v1 client and a client with `podsTransport: 'rest'`
 * (rp.pods and rp.gpuTypes over REST v2, as after GraphQL's retirement) on the same fetch.
 */
export type Client = RunpodClient & { readonly restV1: RunpodRestV1; readonly overRest: RunpodClient };

/**
 * Every client method, with fixed valid arguments. `ids` names which path segments come from the
 * caller (for the route-escape property). Add a row when a method is added: after the merge, the
 * REST v2 client and the moved REST v1 client add theirs.
 */
export interface MethodRow {
  readonly name: string;
  /** `options` are the per-call options, merged where the method takes them. */
  readonly call: (client: Client, id: string, options?: CallOptions) => Promise<unknown>;
  /** Where `id` lands in the path, as a template: `/v1/pods/{id}`; undefined when not in a path. */
  readonly path?: string;
}

const WAIT = { timeoutMs: 20, pollIntervalMs: 2, maxPollIntervalMs: 4 } as const;

async function drain(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

export const METHODS: readonly MethodRow[] = [
  // GraphQL
  { name: 'graphql.request', call: (c, _id, o) => c.graphql.request('query Me { myself { id } }', {}, o) },
  { name: 'graphql.request mutation', call: (c, _id, o) => c.graphql.request('mutation M { podTerminate(input: { podId: "p" }) }', {}, o) },
  { name: 'pods.list', call: (c, _id, o) => c.pods.list(o) },
  { name: 'pods.get', call: (c, id, o) => c.pods.get(id, o) },
  { name: 'pods.deploy', call: (c, _id, o) => c.pods.deploy({ gpuTypeId: 'NVIDIA GeForce RTX 4090', imageName: 'img', gpuCount: 1, cloudType: 'SECURE' }, { markerLookup: { attempts: 1 }, ...o }) },
  { name: 'pods.resume', call: (c, id, o) => c.pods.resume({ podId: id, gpuCount: 1 }, o) },
  { name: 'pods.stop', call: (c, id, o) => c.pods.stop(id, o) },
  { name: 'pods.terminate', call: (c, id, o) => c.pods.terminate(id, { maxRetries: 0, ...o }) },
  { name: 'pods.waitUntilReady', call: (c, id, o) => c.pods.waitUntilReady(id, { ...WAIT, ...o }) },
  { name: 'gpuTypes.list', call: (c, _id, o) => c.gpuTypes.list({}, o) },
  { name: 'gpuTypes.offers', call: (c, _id, o) => c.gpuTypes.offers({}, o) },
  // rp.gpuTypes over REST v2 (podsTransport: 'rest'): one catalog read per cloud, data centres for compliance
  { name: 'gpuTypes.list over REST v2', call: (c, _id, o) => c.overRest.gpuTypes.list({ gpuCount: 2, dataCenterId: 'EU-RO-1', allowedCudaVersions: ['12.4'] }, o) },
  { name: 'gpuTypes.list over REST v2, compliance', call: (c, _id, o) => c.overRest.gpuTypes.list({ compliance: ['GDPR'], globalNetwork: true, secureCloud: true }, o) },
  { name: 'gpuTypes.offers over REST v2', call: (c, _id, o) => c.overRest.gpuTypes.offers({ gpuCount: 1 }, o) },
  { name: 'pods.deploy, GPU catalog over REST v2', call: (c, _id, o) => c.overRest.pods.deploy({ gpuTypeId: 'NVIDIA GeForce RTX 4090', imageName: 'img', gpuCount: 1, cloudType: 'SECURE' }, { markerLookup: { attempts: 1 }, ...o }) },
  // REST v2 (rp.rest)
  { name: 'rest.pods.list', call: (c, _id, o) => c.rest.pods.list({}, o) },
  { name: 'rest.pods.create', call: (c, _id, o) => c.rest.pods.create({ name: 'p', image: 'img', gpu: { id: 'NVIDIA GeForce RTX 4090', count: 1 } }, { ...o, markerLookup: { attempts: 1, intervalMs: 1 } }) },
  { name: 'rest.pods.get', call: (c, id, o) => c.rest.pods.get(id, o), path: '/v2/pods/{id}' },
  { name: 'rest.pods.update', call: (c, id, o) => c.rest.pods.update(id, { name: 'renamed' }, o), path: '/v2/pods/{id}' },
  { name: 'rest.pods.delete', call: (c, id, o) => c.rest.pods.delete(id, o), path: '/v2/pods/{id}' },
  { name: 'rest.pods.start', call: (c, id, o) => c.rest.pods.start(id, o), path: '/v2/pods/{id}/action' },
  { name: 'rest.pods.terminate', call: (c, id, o) => c.rest.pods.terminate(id, o), path: '/v2/pods/{id}/action' },
  { name: 'rest.pods.logs', call: (c, id, o) => drain(c.rest.pods.logs(id, { tail: 10, maxReconnects: 0, ...o })), path: '/v2/pods/{id}/logs' },
  { name: 'rest.endpoints.list', call: (c, _id, o) => c.rest.endpoints.list(o) },
  { name: 'rest.endpoints.get', call: (c, id, o) => c.rest.endpoints.get(id, o), path: '/v2/serverless/{id}' },
  { name: 'rest.endpoints.workers', call: (c, id, o) => c.rest.endpoints.workers(id, o), path: '/v2/serverless/{id}/workers' },
  { name: 'rest.endpoints.delete', call: (c, id, o) => c.rest.endpoints.delete(id, o), path: '/v2/serverless/{id}' },
  { name: 'rest.templates.list', call: (c, _id, o) => c.rest.templates.list(o) },
  { name: 'rest.templates.get', call: (c, id, o) => c.rest.templates.get(id, o), path: '/v2/templates/{id}' },
  { name: 'rest.networkVolumes.list', call: (c, _id, o) => c.rest.networkVolumes.list(o) },
  { name: 'rest.networkVolumes.get', call: (c, id, o) => c.rest.networkVolumes.get(id, o), path: '/v2/network-volumes/{id}' },
  { name: 'rest.registries.get', call: (c, id, o) => c.rest.registries.get(id, o), path: '/v2/registries/{id}' },
  { name: 'rest.catalog.gpus', call: (c, _id, o) => c.rest.catalog.gpus({}, o) },
  { name: 'rest.catalog.gpu', call: (c, id, o) => c.rest.catalog.gpu(id, {}, o), path: '/v2/catalog/gpus/{id}' },
  { name: 'rest.clusters.pods', call: (c, id, o) => c.rest.clusters.pods(id, o), path: '/v2/clusters/{id}/pods' },
  { name: 'rest.billing.pods', call: (c, _id, o) => c.rest.billing.pods({}, o) },
  { name: 'rest.sshKeys.list', call: (c, _id, o) => c.rest.sshKeys.list(o) },
  // REST v1, the retired legacy client (runpod-gql/rest-v1)
  { name: 'restV1.pods.list', call: (c, _id, o) => c.restV1.pods.list({}, o) },
  { name: 'restV1.pods.create', call: (c, _id, o) => c.restV1.pods.create({ imageName: 'img', gpuCount: 1 }, o) },
  { name: 'restV1.pods.get', call: (c, id, o) => c.restV1.pods.get(id, {}, o), path: '/v1/pods/{id}' },
  { name: 'restV1.pods.delete', call: (c, id, o) => c.restV1.pods.delete(id, o), path: '/v1/pods/{id}' },
  { name: 'restV1.pods.start', call: (c, id, o) => c.restV1.pods.start(id, o), path: '/v1/pods/{id}/start' },
  { name: 'restV1.templates.list', call: (c, _id, o) => c.restV1.templates.list({}, o) },
  { name: 'restV1.containerRegistryAuths.get', call: (c, id, o) => c.restV1.containerRegistryAuths.get(id, undefined, o), path: '/v1/containerregistryauth/{id}' },
  { name: 'restV1.billing.pods', call: (c, _id, o) => c.restV1.billing.pods({}, o) },
  // Serverless, queue-based
  // /run backs off through 429s (refused before queueing) until the caller's signal: the caller's deadline here.
  { name: 'endpoint.run', call: (c, id, o) => c.endpoint(id).run({ x: 1 }, { signal: AbortSignal.timeout(1_000), ...o }), path: '/v2/{id}/run' },
  { name: 'endpoint.runSync', call: (c, _id, o) => c.endpoint('ep').runSync({ x: 1 }, { ...WAIT, waitMs: 1_000, ...o }) },
  { name: 'endpoint.status', call: (c, id, o) => c.endpoint('ep').status(id, o), path: '/v2/ep/status/{id}' },
  { name: 'endpoint.cancel', call: (c, id, o) => c.endpoint('ep').cancel(id, o), path: '/v2/ep/cancel/{id}' },
  { name: 'endpoint.retry', call: (c, id, o) => c.endpoint('ep').retry(id, o), path: '/v2/ep/retry/{id}' },
  { name: 'endpoint.health', call: (c, id, o) => c.endpoint(id).health(o), path: '/v2/{id}/health' },
  { name: 'endpoint.purgeQueue', call: (c, id, o) => c.endpoint(id).purgeQueue(o), path: '/v2/{id}/purge-queue' },
  { name: 'job.status', call: (c, id, o) => c.endpoint('ep').job(id).status(o), path: '/v2/ep/status/{id}' },
  { name: 'job.wait', call: (c, _id, o) => c.endpoint('ep').job('j').wait({ ...WAIT, ...o }) },
  { name: 'job.stream', call: (c, id, o) => drain(c.endpoint('ep').job(id).stream({ pollIntervalMs: 2, signal: AbortSignal.timeout(20), ...o })), path: '/v2/ep/stream/{id}' },
  // Serverless, load-balanced
  { name: 'loadBalanced.get', call: (c, _id, o) => c.loadBalanced('https://lb.test', { coldStartTimeoutMs: 30 }).get('/ping', o) },
  { name: 'loadBalanced.post', call: (c, _id, o) => c.loadBalanced('https://lb.test').post('/generate', { json: { x: 1 }, ...o }) },
  { name: 'loadBalanced.fetch', call: (c, _id, o) => c.loadBalanced('https://lb.test').fetch('/raw', { method: 'POST', body: '{}', ...o }) },
];

export const TEST_URLS = {
  graphqlUrl: 'https://api.runpod.test/graphql',
  restUrl: 'https://api.runpod.test/v2',
  restV1Url: 'https://rest.runpod.test/v1',
  serverlessUrl: 'https://api.runpod.test/v2',
} as const;

/** A client whose every request is answered by `respond`; counts what was sent. */
export function fuzzClient(respond: (url: URL, init: RequestInit) => Response | Promise<Response>, options: RunpodClientOptions = {}) {
  const sent: Array<{ url: URL; init: RequestInit }> = [];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(String(input));
    sent.push({ url, init });
    // A real network yields to timers; an instant double must too, or a re-polling loop would
    // starve every timer (its own deadline and the watchdog alike).
    await new Promise((resolve) => setImmediate(resolve));
    if (init.signal?.aborted) throw init.signal.reason;
    return respond(url, init);
  };
  const { restV1Url, ...urls } = TEST_URLS;
  const clientOptions = { apiKey: 'rpa_FUZZ_key_0123456789', ...urls, maxRetries: 0, timeoutMs: 2_000, ...options, fetch };
  const client: Client = Object.assign(createRunpodClient(clientOptions), {
    restV1: createRunpodRestV1Client({ ...clientOptions, restUrl: options.restUrl ?? restV1Url }),
    overRest: createRunpodClient({ ...clientOptions, podsTransport: 'rest' }),
  });
  return { client, sent };
}

/** Runs and settles `run`, or reports `hang` after `ms` of real time (a watchdog, not an assertion on speed). */
export async function settleWithin(run: () => Promise<unknown>, ms = 5_000): Promise<{ kind: 'resolved'; value: unknown } | { kind: 'rejected'; error: unknown } | { kind: 'hang' }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watchdog = new Promise<{ kind: 'hang' }>((resolve) => (timer = setTimeout(() => resolve({ kind: 'hang' }), ms)));
  try {
    // A method may throw before it returns a promise (a bad endpoint id): that counts as a rejection.
    const promise = Promise.resolve().then(run);
    return await Promise.race([
      promise.then(
        (value) => ({ kind: 'resolved' as const, value }),
        (error: unknown) => ({ kind: 'rejected' as const, error }),
      ),
      watchdog,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Everything an error shows: JSON, inspect (hidden fields too), message, stack and its cause chain. */
export function viewsOf(value: unknown): string[] {
  const views = [inspect(value, { depth: 50, showHidden: true, getters: true })];
  try {
    views.push(JSON.stringify(value) ?? '');
  } catch (err) {
    views.push(`unserialisable: ${String(err)}`);
  }
  for (let e: unknown = value, depth = 0; e instanceof Error && depth < 8; depth++) {
    views.push(e.message, e.stack ?? '', String(e));
    e = e.cause;
  }
  return views;
}

const bytes = (s: string) => new TextEncoder().encode(s);
const b64 = (s: string) => btoa(String.fromCharCode(...bytes(s)));

/** Every spelling of `key` a server could echo: what must never survive in an error. */
export function spellingsOf(key: string): string[] {
  const enc = encodeURIComponent(key);
  const strictEnc = enc.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const jsonInner = JSON.stringify(key).slice(1, -1);
  const unicodeEscaped = [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  return [
    ...new Set([
      key,
      enc,
      strictEnc,
      strictEnc.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
      encodeURIComponent(enc),
      new URLSearchParams({ k: key }).toString().slice(2),
      encodeURI(key),
      jsonInner,
      jsonInner.replace(/\//g, '\\/'),
      unicodeEscaped,
      b64(`user:${key}`),
      b64(key),
    ]),
  ];
}

/** An echo of `key` in one of its spellings (what a misbehaving server or proxy sends back). */
export function echoSpelling(key: string, index: number): string {
  const all = spellingsOf(key);
  return all[index % all.length]!;
}

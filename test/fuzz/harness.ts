// Shared ground of the fuzz tests: run counts and seed, the method table, malformed answers and
// the figures `npm run fuzz` prints.
//
// Figures per class. Wrap the predicate of a property in `counted(className, predicate)`: each case
// it checks counts, and a case that throws or returns false counts as a failure (the error goes on
// to fast-check as before). At the end of `npm run fuzz` one line per class is printed, summed over
// every file: `fuzz <class>: N cases, N failures`.
//
//   fc.assert(fc.asyncProperty(arbitrary, counted('sse', async (input) => { … })), params(50));
//
// A hand-made loop reports with `tally(className, failed)` per case instead.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterAll, inject } from 'vitest';
import { createRunpodClient, type RunpodClient } from '../../src/client.js';
import type { CallOptions, RunpodClientOptions } from '../../src/transport/options.js';

/** `FUZZ_RUNS` multiplies every property's runs (1 in CI; `npm run fuzz` raises it). */
export const FUZZ_SCALE = Math.max(1, Number(process.env.FUZZ_RUNS ?? 1) || 1);
/** Fixed unless `FUZZ_SEED` is given; printed with every failure by fast-check, and by the soak. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261121);
export const SOAK = process.env.FUZZ_RUNS !== undefined;
/** Time allowed to one property test: the suite's default (a watchdog, see vitest.config.ts), scaled with the runs. */
export const FUZZ_TIMEOUT_MS = 60_000 * FUZZ_SCALE;

export function params(numRuns: number): fc.Parameters<unknown> {
  return { numRuns: numRuns * FUZZ_SCALE, seed: FUZZ_SEED, endOnFailure: true };
}

/** Prints one line of acceptance figures under `npm run fuzz`. */
export function reportFigures(title: string, figures: Record<string, number | string>): void {
  if (!SOAK) return;
  const line = Object.entries(figures).map(([k, v]) => `${k}: ${v}`).join(', ');
  process.stdout.write(`\n[fuzz] ${title} (seed ${FUZZ_SEED}) — ${line}\n`);
}

const tallies: Record<string, { cases: number; failures: number }> = {};

/** Counts one case of `className`, failed or not (see the top of this file). */
export function tally(className: string, failed: boolean): void {
  const t = (tallies[className] ??= { cases: 0, failures: 0 });
  t.cases++;
  if (failed) t.failures++;
}

/** `predicate`, counting each case it checks under `className`; a throw or `false` is a failure. */
export function counted<Args extends unknown[], R>(className: string, predicate: (...args: Args) => R): (...args: Args) => R {
  return (...args: Args): R => {
    let result: R;
    try {
      result = predicate(...args);
    } catch (err) {
      tally(className, true);
      throw err;
    }
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => (tally(className, value === false), value),
        (err: unknown) => {
          tally(className, true);
          throw err;
        },
      ) as R;
    }
    tally(className, (result as unknown) === false);
    return result;
  };
}

// Each file leaves its tallies in the run's folder (test/fuzz/figures-setup.ts prints them).
afterAll(() => {
  if (Object.keys(tallies).length === 0) return;
  const dir = inject('fuzzFiguresDir');
  if (dir) writeFileSync(join(dir, `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`), JSON.stringify(tallies));
  for (const name of Object.keys(tallies)) delete tallies[name];
});

/**
 * The full client, plus the legacy REST v1 client and a client with `podsTransport: 'rest'`
 * (rp.pods and rp.gpuTypes over REST v2, as after GraphQL's retirement) on the same fetch.
 */
export type Client = RunpodClient & { readonly overRest: RunpodClient; readonly podsOnRest: RunpodClient['pods'] };

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

/** One request through the OpenAI helper's fetch, its answer read in full (JSON, or the SSE text). */
async function openaiCall(c: Client, id: string, route: string, body: unknown, options: CallOptions = {}): Promise<unknown> {
  const { signal, ...helperOptions } = options;
  const helper = c.endpoint(id).openai(helperOptions);
  const init: RequestInit = body === undefined ? { signal } : { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' }, signal };
  const res = await helper.fetch(`${helper.baseURL}${route}`, init);
  return (body as { stream?: boolean } | undefined)?.stream ? res.text() : res.json();
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
  // rp.pods over REST v2 (podsTransport: 'rest'; the path 'auto' takes after a 410)
  { name: 'podsOnRest.list', call: (c, _id, o) => c.podsOnRest.list(o) },
  { name: 'podsOnRest.get', call: (c, id, o) => c.podsOnRest.get(id, o), path: '/v2/pods/{id}' },
  { name: 'podsOnRest.findByMarker', call: (c, id, o) => c.podsOnRest.findByMarker(id, o) },
  {
    name: 'podsOnRest.deploy',
    call: (c, _id, o) => c.podsOnRest.deploy({ gpuTypeId: 'NVIDIA GeForce RTX 4090', imageName: 'img', gpuCount: 1, cloudType: 'ALL', volumeInGb: 20, ports: '22/tcp' }, { markerLookup: { attempts: 1 }, ...o }),
  },
  { name: 'podsOnRest.deployCpu', call: (c, _id, o) => c.podsOnRest.deployCpu({ instanceId: 'cpu3c-2-4', imageName: 'img' }, { markerLookup: { attempts: 1 }, ...o }) },
  { name: 'podsOnRest.resume', call: (c, id, o) => c.podsOnRest.resume({ podId: id, gpuCount: 1 }, o), path: '/v2/pods/{id}' },
  { name: 'podsOnRest.stop', call: (c, id, o) => c.podsOnRest.stop(id, o), path: '/v2/pods/{id}/action' },
  { name: 'podsOnRest.terminate', call: (c, id, o) => c.podsOnRest.terminate(id, o), path: '/v2/pods/{id}' },
  { name: 'podsOnRest.waitUntilReady', call: (c, id, o) => c.podsOnRest.waitUntilReady(id, { ...WAIT, ...o }), path: '/v2/pods/{id}' },
  { name: 'gpuTypes.list', call: (c, _id, o) => c.gpuTypes.list({}, o) },
  { name: 'gpuTypes.offers', call: (c, _id, o) => c.gpuTypes.offers({}, o) },
  // rp.gpuTypes over REST v2 (podsTransport: 'rest'): one catalog read per cloud, data centres for compliance
  { name: 'gpuTypes.list over REST v2', call: (c, _id, o) => c.overRest.gpuTypes.list({ gpuCount: 2, dataCenterId: 'EU-RO-1', allowedCudaVersions: ['12.4'] }, o) },
  { name: 'gpuTypes.list over REST v2, compliance', call: (c, _id, o) => c.overRest.gpuTypes.list({ compliance: ['GDPR'], globalNetwork: true, secureCloud: true }, o) },
  { name: 'gpuTypes.offers over REST v2', call: (c, _id, o) => c.overRest.gpuTypes.offers({ gpuCount: 1 }, o) },
  { name: 'pods.deploy, GPU catalog over REST v2', call: (c, _id, o) => c.overRest.pods.deploy({ gpuTypeId: 'NVIDIA GeForce RTX 4090', imageName: 'img', gpuCount: 1, cloudType: 'SECURE' }, { markerLookup: { attempts: 1 }, ...o }) },
  // rp.graphql in process over REST v2 (podsTransport: 'rest'): schema.graphql's executor, reads shared per document
  { name: 'graphql in process: myself pods and gpuTypes', call: (c, _id, o) => c.overRest.graphql.request('query Q { myself { pods { id name env runtime { ports { ip publicPort } } } } gpuTypes { id lowestPrice(input: { gpuCount: 1 }) { uninterruptablePrice stockStatus } } }', {}, o) },
  { name: 'graphql in process: pod', call: (c, id, o) => c.overRest.graphql.request('query P($id: String!) { pod(input: { podId: $id }) { id desiredStatus machine { podHostId } } }', { id }, o), path: '/v2/pods/{id}' },
  // execute: GraphQL errors (a refused id among them) come back in `errors`; bad options and failed requests are thrown.
  { name: 'graphql in process: execute', call: (c, id, o) => c.overRest.graphql.execute('query P($id: String!) { pod(input: { podId: $id }) { id runtime { ports { ip } } } myself { pods { id } } }', { id }, o) },
  {
    name: 'graphql in process: DeployPod',
    call: (c, _id, o) =>
      c.overRest.graphql.request('mutation D($input: PodFindAndDeployOnDemandInput) { podFindAndDeployOnDemand(input: $input) { id } }', { input: { gpuTypeId: 'NVIDIA GeForce RTX 4090', imageName: 'img', gpuCount: 1, cloudType: 'SECURE' } }, { markerLookup: { attempts: 1 }, ...o } as CallOptions),
  },
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
  { name: 'rest.endpoints.releases', call: (c, id, o) => c.rest.endpoints.releases(id, o), path: '/v2/serverless/{id}/releases' },
  { name: 'rest.endpoints.builds', call: (c, id, o) => c.rest.endpoints.builds(id, o), path: '/v2/serverless/{id}/builds' },
  { name: 'rest.endpoints.build', call: (c, id, o) => c.rest.endpoints.build(id, 'b1', o), path: '/v2/serverless/{id}/builds/b1' },
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
  // Serverless, OpenAI-compatible routes (`endpoint(id).openai()`, read as the openai SDK reads them)
  { name: 'endpoint.openai.chat', call: (c, id, o) => openaiCall(c, id, '/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, o), path: '/v2/{id}/openai/v1/chat/completions' },
  { name: 'endpoint.openai.stream', call: (c, id, o) => openaiCall(c, id, '/completions', { model: 'm', prompt: 'hi', stream: true }, o), path: '/v2/{id}/openai/v1/completions' },
  { name: 'endpoint.openai.models', call: (c, id, o) => openaiCall(c, id, '/models', undefined, o), path: '/v2/{id}/openai/v1/models' },
  // Serverless, load-balanced
  { name: 'loadBalanced.get', call: (c, _id, o) => c.loadBalanced('lb', { coldStartTimeoutMs: 30 }).get('/ping', o) },
  { name: 'loadBalanced.post', call: (c, _id, o) => c.loadBalanced('lb').post('/generate', { json: { x: 1 }, ...o }) },
  { name: 'loadBalanced.fetch', call: (c, _id, o) => c.loadBalanced('lb').fetch('/raw', { method: 'POST', body: '{}', ...o }) },
];

export const TEST_URLS = {
  graphqlUrl: 'https://api.runpod.test/graphql',
  restUrl: 'https://api.runpod.test/v2',
  serverlessUrl: 'https://api.runpod.test/v2',
  loadBalancedUrl: 'https://lb.test/{endpointId}',
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
  const clientOptions = { apiKey: 'rpa_FUZZ_key_0123456789', ...TEST_URLS, maxRetries: 0, timeoutMs: 2_000, ...options, fetch };
  let overRest: RunpodClient | undefined;
  const client = createRunpodClient(clientOptions);
  // Made on first use: most rows never need this second client.
  Object.defineProperty(client, 'overRest', { get: () => (overRest ??= createRunpodClient({ ...clientOptions, podsTransport: 'rest' })) });
  Object.defineProperty(client, 'podsOnRest', { get: () => (client as unknown as Client).overRest.pods });
  return { client: client as Client, sent };
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

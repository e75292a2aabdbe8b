// Shared ground of the fuzz tests: run counts and seed, the method table, malformed answers and
// the figures `npm run fuzz` prints.
import { inspect } from 'node:util';
import fc from 'fast-check';
import { createRunpodClient, type RunpodClient } from '../../src/client.js';
import type { RunpodClientOptions } from '../../src/transport/options.js';

/** `FUZZ_RUNS` multiplies every property's runs (1 in CI; `npm run fuzz` raises it). */
export const FUZZ_SCALE = Math.max(1, Number(process.env.FUZZ_RUNS ?? 1) || 1);
/** Fixed unless `FUZZ_SEED` is given; printed with every failure by fast-check, and by the soak. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261121);
export const SOAK = process.env.FUZZ_RUNS !== undefined;

export function params(numRuns: number): fc.Parameters<unknown> {
  return { numRuns: numRuns * FUZZ_SCALE, seed: FUZZ_SEED, endOnFailure: true };
}

/** Prints one line of acceptance figures under `npm run fuzz`. */
export function reportFigures(title: string, figures: Record<string, number | string>): void {
  if (!SOAK) return;
  const line = Object.entries(figures).map(([k, v]) => `${k}: ${v}`).join(', ');
  process.stdout.write(`\n[fuzz] ${title} (seed ${FUZZ_SEED}) — ${line}\n`);
}

export type Client = RunpodClient;

/**
 * Every client method, with fixed valid arguments. `ids` names which path segments come from the
 * caller (for the route-escape property). Add a row when a method is added: after the merge, the
 * REST v2 client and the moved REST v1 client add theirs.
 */
export interface MethodRow {
  readonly name: string;
  readonly call: (client: Client, id: string) => Promise<unknown>;
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
  { name: 'graphql.request', call: (c) => c.graphql.request('query Me { myself { id } }') },
  { name: 'graphql.request mutation', call: (c) => c.graphql.request('mutation M { podTerminate(input: { podId: "p" }) }') },
  { name: 'pods.list', call: (c) => c.pods.list() },
  { name: 'pods.get', call: (c, id) => c.pods.get(id) },
  { name: 'pods.deploy', call: (c) => c.pods.deploy({ gpuTypeId: 'NVIDIA GeForce RTX 4090', imageName: 'img', gpuCount: 1, cloudType: 'SECURE' }) },
  { name: 'pods.resume', call: (c, id) => c.pods.resume({ podId: id, gpuCount: 1 }) },
  { name: 'pods.stop', call: (c, id) => c.pods.stop(id) },
  { name: 'pods.terminate', call: (c, id) => c.pods.terminate(id) },
  { name: 'pods.waitUntilReady', call: (c, id) => c.pods.waitUntilReady(id, WAIT) },
  { name: 'gpuTypes.list', call: (c) => c.gpuTypes.list() },
  { name: 'gpuTypes.offers', call: (c) => c.gpuTypes.offers() },
  // REST (v1 today; the table grows with REST v2 after the merge)
  { name: 'rest.pods.list', call: (c) => c.rest.pods.list() },
  { name: 'rest.pods.create', call: (c) => c.rest.pods.create({ imageName: 'img', gpuCount: 1 }) },
  { name: 'rest.pods.get', call: (c, id) => c.rest.pods.get(id), path: '/v1/pods/{id}' },
  { name: 'rest.pods.update', call: (c, id) => c.rest.pods.update(id, { containerDiskInGb: 20 }), path: '/v1/pods/{id}' },
  { name: 'rest.pods.delete', call: (c, id) => c.rest.pods.delete(id), path: '/v1/pods/{id}' },
  { name: 'rest.pods.start', call: (c, id) => c.rest.pods.start(id), path: '/v1/pods/{id}/start' },
  { name: 'rest.pods.stop', call: (c, id) => c.rest.pods.stop(id), path: '/v1/pods/{id}/stop' },
  { name: 'rest.endpoints.list', call: (c) => c.rest.endpoints.list() },
  { name: 'rest.endpoints.get', call: (c, id) => c.rest.endpoints.get(id), path: '/v1/endpoints/{id}' },
  { name: 'rest.endpoints.delete', call: (c, id) => c.rest.endpoints.delete(id), path: '/v1/endpoints/{id}' },
  { name: 'rest.templates.list', call: (c) => c.rest.templates.list() },
  { name: 'rest.templates.get', call: (c, id) => c.rest.templates.get(id), path: '/v1/templates/{id}' },
  { name: 'rest.networkVolumes.list', call: (c) => c.rest.networkVolumes.list() },
  { name: 'rest.networkVolumes.get', call: (c, id) => c.rest.networkVolumes.get(id), path: '/v1/networkvolumes/{id}' },
  { name: 'rest.containerRegistryAuths.get', call: (c, id) => c.rest.containerRegistryAuths.get(id), path: '/v1/containerregistryauth/{id}' },
  { name: 'rest.billing.pods', call: (c) => c.rest.billing.pods() },
  // Serverless, queue-based
  { name: 'endpoint.run', call: (c, id) => c.endpoint(id).run({ x: 1 }), path: '/v2/{id}/run' },
  { name: 'endpoint.runSync', call: (c) => c.endpoint('ep').runSync({ x: 1 }, { ...WAIT, waitMs: 1_000 }) },
  { name: 'endpoint.status', call: (c, id) => c.endpoint('ep').status(id), path: '/v2/ep/status/{id}' },
  { name: 'endpoint.cancel', call: (c, id) => c.endpoint('ep').cancel(id), path: '/v2/ep/cancel/{id}' },
  { name: 'endpoint.retry', call: (c, id) => c.endpoint('ep').retry(id), path: '/v2/ep/retry/{id}' },
  { name: 'endpoint.health', call: (c, id) => c.endpoint(id).health(), path: '/v2/{id}/health' },
  { name: 'endpoint.purgeQueue', call: (c, id) => c.endpoint(id).purgeQueue(), path: '/v2/{id}/purge-queue' },
  { name: 'job.wait', call: (c) => c.endpoint('ep').job('j').wait(WAIT) },
  { name: 'job.stream', call: (c) => drain(c.endpoint('ep').job('j').stream({ pollIntervalMs: 2, signal: AbortSignal.timeout(20) })) },
  // Serverless, load-balanced
  { name: 'loadBalanced.get', call: (c) => c.loadBalanced('https://lb.test', { coldStartTimeoutMs: 30 }).get('/ping') },
  { name: 'loadBalanced.post', call: (c) => c.loadBalanced('https://lb.test').post('/generate', { json: { x: 1 } }) },
];

export const TEST_URLS = {
  graphqlUrl: 'https://api.runpod.test/graphql',
  restUrl: 'https://rest.runpod.test/v1',
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
  const client = createRunpodClient({ apiKey: 'rpa_FUZZ_key_0123456789', ...TEST_URLS, maxRetries: 0, timeoutMs: 2_000, ...options, fetch });
  return { client, sent };
}

/** Settles `promise`, or reports `hang` after `ms` of real time (a watchdog, not an assertion on speed). */
export async function settleWithin(promise: Promise<unknown>, ms = 5_000): Promise<{ kind: 'resolved'; value: unknown } | { kind: 'rejected'; error: unknown } | { kind: 'hang' }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watchdog = new Promise<{ kind: 'hang' }>((resolve) => (timer = setTimeout(() => resolve({ kind: 'hang' }), ms)));
  try {
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

// Properties of the transport core's rules (issue 31 items 2, 7, 8; issue 28's create-once): the
// switch re-checked after a pacing turn, a huge Retry-After, whole-call deadlines, bounded log-stream
// reconnects, one rule for `__proto__` env names, and one create-once rule on every path.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AbortError, PossiblyCreatedError, RateLimitError, ServerError, TimeoutError, ValidationError } from '../../src/errors.js';
import { createEmulator } from '../../src/emulator/index.js';
import { createRunpodClient } from '../../src/client.js';
import { CREATE_MARKER_ENV } from '../../src/transport/create-marker.js';
import { MAX_RETRY_AFTER_MS } from '../../src/transport/retry.js';
import { counted, FUZZ_TIMEOUT_MS, fuzzClient, params, settleWithin } from './harness.js';

const KEY = 'rpa_core_rules';
const image = 'img:1';
const GPU = 'NVIDIA RTX A4000';

describe('the switch, re-checked after the pacing turn', () => {
  it('property: whatever the concurrency, number of calls, 410 body and moment of retirement, no GraphQL request goes out after the first 410 is read', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 20, max: 120 }),
        fc.constantFrom('problem', 'graphql', 'empty'),
        fc.integer({ min: 0, max: 15 }),
        counted('switch: re-checked after the pacing turn', async (concurrency, calls, body, retireAt) => {
          const emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 0 });
          const base = emulator.clientOptions(KEY);
          let graphqlSent = 0;
          let sentBeforeGone: number | undefined;
          const rp = createRunpodClient({
            ...base,
            onTransportChange: () => undefined,
            rateLimits: { graphql: { requests: 1_000_000, intervalMs: 1_000, concurrency } },
            fetch: async (input, init) => {
              if (!String(input).includes('/graphql')) return base.fetch!(input, init);
              if (graphqlSent === retireAt) emulator.retireGraphql(body);
              graphqlSent++;
              const res = await base.fetch!(input, init);
              // The moment the client reads the status is the moment it can know.
              return new Proxy(res, {
                get(target, prop) {
                  if (prop === 'status' && target.status === 410) sentBeforeGone ??= graphqlSent;
                  const value: unknown = Reflect.get(target, prop, target);
                  return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
                },
              });
            },
          });
          const settled = await settleWithin(() => Promise.all(Array.from({ length: calls }, (_, i) => (i % 2 ? rp.pods.list() : rp.gpuTypes.list()))), 15_000);
          expect(settled.kind).toBe('resolved');
          expect(sentBeforeGone).toBeDefined();
          expect(graphqlSent - sentBeforeGone!).toBe(0);
        }),
      ),
      params(8),
    );
  }, FUZZ_TIMEOUT_MS * 3);
});

describe('a huge Retry-After', () => {
  it('property: a Retry-After of any length past the cap is a RateLimitError at once, with the hint, and is never retried', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('retry-after', 'retry-after-ms'),
        fc.stringMatching(/^[1-9][0-9]{10,40}$/),
        fc.integer({ min: 0, max: 5 }),
        counted('retry-after: huge', async (header, digits, maxRetries) => {
          const { client, sent } = fuzzClient(() => Response.json({ error: 'slow down' }, { status: 429, headers: { [header]: digits } }), { maxRetries });
          const settled = await settleWithin(() => client.rest.templates.list(), 3_000);
          expect(settled.kind).toBe('rejected');
          const error = (settled as { error: RateLimitError }).error;
          expect(error).toBeInstanceOf(RateLimitError);
          expect(error.retryAfterMs).toBeGreaterThan(MAX_RETRY_AFTER_MS);
          expect(Number.isSafeInteger(Math.round(error.retryAfterMs!))).toBe(true);
          expect(sent).toHaveLength(1);
        }),
      ),
      params(40),
    );
  });
});

/** A fetch double that never answers: it only ever ends when its signal fires. */
const never = (_url: URL, init: RequestInit) =>
  new Promise<Response>((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true }));

describe('whole-call deadlines', () => {
  it('property: whatever the deadline, server and call, the call ends by its deadline in the type its state calls for', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 50, max: 250 }),
        fc.constantFrom('never', 'always-503', 'create-hangs'),
        fc.constantFrom('list', 'create', 'deploy'),
        fc.boolean(),
        counted('deadline: whole call', async (deadlineMs, server, call, asClientDefault) => {
          const respond = (url: URL, init: RequestInit): Response | Promise<Response> => {
            if (server === 'never') return never(url, init);
            if (server === 'always-503') return Response.json({ error: 'down' }, { status: 503 });
            // create-hangs: reads answer, creates and lookups never do.
            if (url.pathname.endsWith('/catalog/gpus')) return Response.json({ gpus: [{ id: GPU, name: 'A4000' }] });
            if (url.pathname.endsWith('/graphql') && String(init.body).includes('GpuTypeCatalog')) return Response.json({ data: { gpuTypes: [{ id: GPU, displayName: 'A4000' }] } });
            return never(url, init);
          };
          const { client, sent } = fuzzClient(respond, { timeoutMs: 60_000, maxRetries: 50, ...(asClientDefault ? { deadlineMs } : {}) });
          const per = asClientDefault ? {} : { deadlineMs };
          const run =
            call === 'list'
              ? () => client.rest.templates.list(per)
              : call === 'create'
                ? () => client.rest.pods.create({ name: 'p', image, gpu: { id: GPU } }, per)
                : () => client.pods.deploy({ imageName: image, gpuTypeId: GPU, gpuCount: 1 }, per);
          const settled = await settleWithin(run, 5_000);
          expect(settled.kind).toBe('rejected');
          const error = (settled as { error: unknown }).error;
          const created = sent.some(({ init, url }) => init.method === 'POST' && (url.pathname.endsWith('/pods') || String(init.body).includes('DeployPod')));
          if (created) {
            // A create that left: whatever ended it, the caller gets its marker.
            expect(error).toBeInstanceOf(PossiblyCreatedError);
            expect((error as PossiblyCreatedError).createMarker).toMatch(/^[0-9a-f]{32}$/);
          } else if (server === 'always-503' && call === 'list') {
            // The backoff would end past the deadline: the last failure ends the call at once.
            expect(error).toBeInstanceOf(ServerError);
          } else {
            // Nothing was sent: the deadline passed first (a create waiting on its catalog read, say).
            expect(error instanceof TimeoutError || (server === 'always-503' && error instanceof ServerError)).toBe(true);
            expect(error).not.toBeInstanceOf(PossiblyCreatedError);
          }
        }),
      ),
      params(20),
    );
  }, FUZZ_TIMEOUT_MS * 3);
});

describe('log stream reconnects', () => {
  it('property: a server that drops after every event and starts its ids again is reconnected to a bounded number of times, each resuming from the last id, then ConnectionError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 }),
        fc.constantFrom('1', '0', 'a', 'same-id'),
        counted('sse: reconnect storm bounded', async (maxReconnects, id) => {
          const lastIds: Array<string | null> = [];
          const { client, sent } = fuzzClient((_url, init) => {
            lastIds.push(new Headers(init.headers).get('last-event-id'));
            let reads = 0;
            const body = new ReadableStream<Uint8Array>({
              pull(controller) {
                if (reads++ === 0) controller.enqueue(new TextEncoder().encode(`id: ${id}\ndata: {"ts":"2026-11-27T00:00:00Z","source":"container","line":"again"}\n\n`));
                else controller.error(new TypeError('terminated'));
              },
            });
            return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
          });
          const settled = await settleWithin(async () => {
            for await (const _line of client.rest.pods.logs('p1', { maxReconnects })) void _line;
          }, 8_000);
          expect(settled.kind).toBe('rejected');
          expect((settled as { error: Error }).error.name).toBe('ConnectionError');
          // The first connection brought a new id; the next ones none: maxReconnects reconnections, then the error.
          expect(sent.length).toBe(maxReconnects + 1);
          expect(lastIds.slice(1).every((header) => header === id)).toBe(true);
        }),
      ),
      params(5),
    );
  }, FUZZ_TIMEOUT_MS * 2);
});

describe('env names', () => {
  const NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'A', 'HF_HOME'];
  it('property: the same env gives the same answer on every path that creates a pod (refused iff it names __proto__, nothing sent then)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        counted('env: one rule for __proto__', async (names, asList) => {
          const text = `{${names.map((n, i) => `"${n}":"v${i}"`).join(',')}}`;
          const env = () => JSON.parse(text) as Record<string, string>;
          const outcomes: string[] = [];
          for (const transport of ['graphql', 'rest'] as const) {
            const emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 0 });
            const rp = createRunpodClient({ ...emulator.clientOptions(KEY), podsTransport: transport, rateLimits: false });
            const deployEnv = asList ? Object.entries(env()).map(([key, value]) => ({ key, value })) : env();
            for (const run of [
              () => rp.pods.deploy({ imageName: image, gpuTypeId: GPU, gpuCount: 1, env: deployEnv }),
              () => rp.rest.pods.create({ name: 'p', image, gpu: { id: GPU }, env: env() }),
            ]) {
              const settled = await settleWithin(run, 5_000);
              outcomes.push(settled.kind === 'rejected' ? ((settled as { error: Error }).error instanceof ValidationError ? 'refused' : 'failed') : 'kept');
            }
            expect(emulator.inspect.podCount(KEY)).toBe(outcomes.slice(-2).filter((o) => o === 'kept').length);
          }
          expect(new Set(outcomes).size).toBe(1);
          expect(outcomes[0]).toBe(names.includes('__proto__') ? 'refused' : 'kept');
        }),
      ),
      params(15),
    );
  }, FUZZ_TIMEOUT_MS * 2);
});

describe('one create-once rule', () => {
  it("property: on every path, an ambiguous failure or the caller's abort after the create left gives the pod its marker found, or PossiblyCreatedError with the marker that was sent; the create is sent once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('pods over GraphQL', 'pods over REST', 'rest.pods.create', 'rest.templates.create'),
        fc.constantFrom('502', 'drop', 'abort'),
        fc.boolean(),
        counted('create-once: one rule', async (path, failure, listed) => {
          const controller = new AbortController();
          let marker = '';
          const isCreate = (url: URL, body: string) => (url.pathname.endsWith('/graphql') ? body.includes('DeployPod') : url.pathname.endsWith('/pods') || url.pathname.endsWith('/templates'));
          const respond = (url: URL, init: RequestInit): Response | Promise<Response> => {
            const body = String(init.body ?? '');
            if (init.method === 'POST' && isCreate(url, body)) {
              marker = /"?RUNPOD_GQL_CREATE_MARKER"?\s*[,:]\s*(?:"value"\s*:\s*)?"([0-9a-f]{32})"/.exec(body)?.[1] ?? '';
              if (failure === 'abort') {
                queueMicrotask(() => controller.abort());
                return never(url, init);
              }
              if (failure === 'drop') throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
              return Response.json({ error: 'bad gateway' }, { status: 502 });
            }
            const item = { id: 'found', name: 'p', imageName: image, image, env: listed ? { [CREATE_MARKER_ENV]: marker } : {} };
            if (url.pathname.endsWith('/graphql')) {
              if (body.includes('GpuTypeCatalog')) return Response.json({ data: { gpuTypes: [{ id: GPU, displayName: 'A4000' }] } });
              return Response.json({ data: { myself: { pods: [] } } });
            }
            if (url.pathname.endsWith('/catalog/gpus')) return Response.json({ gpus: [{ id: GPU, name: 'A4000' }] });
            if (url.pathname.includes('/catalog/cpus/')) return Response.json({ id: 'cpu3c', ramGbPerVcpu: 2 });
            if (url.pathname.endsWith('/templates')) return Response.json({ templates: [item] });
            return Response.json({ pods: [] });
          };
          const { client, sent } = fuzzClient(respond);
          const options = { signal: controller.signal, markerLookup: { attempts: 2, intervalMs: 1 } };
          const run =
            path === 'pods over GraphQL'
              ? () => client.pods.deploy({ imageName: image, gpuTypeId: GPU, gpuCount: 1 }, options)
              : path === 'pods over REST'
                ? () => client.podsOnRest.deployCpu({ instanceId: 'cpu3c-2-4', imageName: image }, options)
                : path === 'rest.pods.create'
                  ? () => client.rest.pods.create({ name: 'p', image, gpu: { id: GPU } }, options)
                  : () => client.rest.templates.create({ name: 't', image } as never, options);
          const settled = await settleWithin(run, 5_000);
          expect(sent.filter(({ url, init }) => init.method === 'POST' && isCreate(url, String(init.body ?? '')))).toHaveLength(1);
          expect(marker).toMatch(/^[0-9a-f]{32}$/);
          if (settled.kind === 'resolved') {
            // Only a template list here carries markers: found by it, never by chance.
            expect(path === 'rest.templates.create' && listed && failure !== 'abort').toBe(true);
            expect((settled.value as { id: string }).id).toBe('found');
            return;
          }
          expect(settled.kind).toBe('rejected');
          const error = (settled as { error: PossiblyCreatedError }).error;
          expect(error).toBeInstanceOf(PossiblyCreatedError);
          expect(error.createMarker).toBe(marker);
          if (failure === 'abort') expect(error.cause).toBeInstanceOf(AbortError);
        }),
      ),
      params(30),
    );
  }, FUZZ_TIMEOUT_MS * 2);
});

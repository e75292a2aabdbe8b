// Issue 22, second round, as properties: long and odd keys, deep and huge error bodies, prototype
// keys, clock jumps both ways, lost answers on every non-create mutation. Small in `npm test`,
// larger under `npm run fuzz` (FUZZ_RUNS), which prints one line per class.
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createRunpodClient } from '../../src/client.js';
import { ApiError, ConflictError, GraphQLResponseError, MAX_MESSAGE_CHARS, PossiblyCreatedError, RunpodError, ValidationError } from '../../src/errors.js';
import { FUZZ_TIMEOUT_MS, fuzzClient, params, settleWithin, SOAK, spellingsOf, viewsOf, type Client } from './harness.js';

const figures = new Map<string, { cases: number; failures: number }>();

/** Counts a case of `cls`, and a failure when `check` throws (which fast-check then reports). */
async function count(cls: string, check: () => Promise<void> | void): Promise<void> {
  const entry = figures.get(cls) ?? { cases: 0, failures: 0 };
  figures.set(cls, entry);
  entry.cases++;
  try {
    await check();
  } catch (err) {
    entry.failures++;
    throw err;
  }
}

afterAll(() => {
  if (!SOAK) return;
  for (const [cls, { cases, failures }] of figures) process.stdout.write(`fuzz ${cls}: ${cases} cases, ${failures} failures\n`);
});

const LATIN1 = fc.integer({ min: 0x20, max: 0xff }).filter((c) => c < 0x7f || c > 0x9f).map((c) => String.fromCharCode(c));
const ANY_CHAR = fc.oneof(LATIN1, fc.constantFrom('\r', '\n', '\0', '\u2028', 'ключ', '😀', '%', '\\', '+', '&#'));

describe('long and odd keys', () => {
  it('property: a key is accepted or refused with a ValidationError that does not echo it; accepted keys never survive in an error', async () => {
    const keyArb = fc.oneof(
      fc.string({ unit: ANY_CHAR, minLength: 1, maxLength: 40 }),
      fc.tuple(LATIN1, fc.integer({ min: 1, max: 12_000 })).map(([c, n]) => `k${c.repeat(n)}z`),
      fc.string({ unit: LATIN1, minLength: 400, maxLength: 700 }),
    );
    await fc.assert(
      fc.asyncProperty(keyArb, fc.nat(), async (key, spelling) => {
        await count('keys', async () => {
          let client: Client | undefined;
          try {
            client = fuzzClient(() => Response.json({}), { apiKey: key }).client;
          } catch (err) {
            expect(err).toBeInstanceOf(ValidationError);
            const message = (err as Error).message;
            expect(message.length).toBeLessThan(300);
            const core = key.trim();
            if (core.length >= 8) expect(message).not.toContain(core.slice(0, 8));
            return;
          }
          expect(key.length).toBeLessThanOrEqual(512);
          const spelled = spellingsOf(key)[spelling % spellingsOf(key).length]!;
          const { client: echoing } = fuzzClient(() => Response.json({ error: `bad ${spelled}`, detail: spelled }, { status: 500 }), { apiKey: key });
          const settled = await settleWithin(() => echoing.rest.pods.list());
          expect(settled.kind).toBe('rejected');
          const error = (settled as { error: unknown }).error;
          expect(error).toBeInstanceOf(RunpodError);
          if (key.trim().length >= 8) {
            const views = viewsOf(error).join('\n');
            expect(spellingsOf(key).filter((s) => views.includes(s))).toEqual([]);
          }
          expect(client).toBeDefined();
        });
      }),
      params(40),
    );
  }, FUZZ_TIMEOUT_MS);
});

/** JSON text of a hostile error body: nested `depth` deep in lists or objects, wide, or long. */
const bodyArb = fc.oneof(
  fc.integer({ min: 1, max: 20_000 }).map((n) => `{"errors":${'['.repeat(n)}1${']'.repeat(n)}}`),
  fc.integer({ min: 1, max: 20_000 }).map((n) => `{"detail":${'{"e":'.repeat(n)}"x"${'}'.repeat(n)}}`),
  fc.integer({ min: 1, max: 3_000_000 }).map((n) => JSON.stringify({ detail: 'd'.repeat(n), errors: ['e'.repeat(Math.min(n, 100_000))] })),
  fc.integer({ min: 1, max: 50_000 }).map((n) => JSON.stringify({ error: 'wide', ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])) })),
  fc.integer({ min: 1, max: 200 }).map((n) => JSON.stringify({ errors: Array.from({ length: n }, (_, i) => ({ message: 'm'.repeat(i * 100) })) })),
  fc.constant('{"errors":[{"message":"x","extensions":{"__proto__":{"code":"ADMIN"}}}],"__proto__":{"data":{"spoof":1}}}'),
);

describe('deep and huge error bodies', () => {
  it('property: a 4xx/5xx stays an HTTP error of its status, sent once when not resendable, with a message of a few KB', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(400, 401, 403, 404, 409, 422, 500, 502), bodyArb, fc.boolean(), async (status, text, create) => {
        await count('bodies', async () => {
          const { client, sent } = fuzzClient(() => new Response(text, { status, headers: { 'content-type': 'application/json' } }), { maxRetries: 1 });
          const run = create
            ? () => client.rest.templates.create({ name: 't', image: 'i' }, { markerLookup: { attempts: 1, intervalMs: 1 } })
            : () => client.rest.pods.list();
          const settled = await settleWithin(run, 20_000);
          expect(settled.kind).toBe('rejected');
          const error = (settled as { error: unknown }).error as RunpodError & { status?: number };
          expect(error).toBeInstanceOf(RunpodError);
          expect(error.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS + 20);
          if (status < 500) {
            // A definite answer: never read as a lost one.
            expect(error).not.toBeInstanceOf(PossiblyCreatedError);
            expect(error.status).toBe(status);
            expect(sent.filter((s) => s.init.method === 'POST' || !create)).toHaveLength(1);
          } else if (create) {
            expect(sent.filter((s) => s.init.method === 'POST')).toHaveLength(1);
          }
          const body = (error as ApiError).body as Record<string, unknown> | undefined;
          if (body && typeof body === 'object') expect((body as { spoof?: unknown }).spoof).toBeUndefined();
          if (error instanceof GraphQLResponseError) expect(error.data).toBeUndefined();
        });
      }),
      params(30),
    );
  }, FUZZ_TIMEOUT_MS * 2);
});

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];

describe('prototype keys', () => {
  it('property: prototype keys in an error body stay data, and in a request body are refused before sending', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PROTO_KEYS), fc.constantFrom('top', 'gpu', 'inherited', 'error body'), async (key, where) => {
        await count('prototype', async () => {
          if (where === 'error body') {
            const text = `{"error":"x","${key}":{"isAdmin":true,"data":{"x":1}},"nested":{"${key}":{"isAdmin":true}}}`;
            const { client } = fuzzClient(() => new Response(text, { status: 400, headers: { 'content-type': 'application/json' } }));
            const settled = await settleWithin(() => client.rest.pods.list());
            const error = (settled as { error: ApiError }).error;
            expect(error).toBeInstanceOf(ApiError);
            const body = error.body as Record<string, Record<string, unknown>>;
            expect((body as { isAdmin?: unknown }).isAdmin).toBeUndefined();
            expect(body.nested!.isAdmin).toBeUndefined();
            expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
            return;
          }
          const valid = { name: 'p', image: 'img', gpu: { id: 'NVIDIA GeForce RTX 4090', count: 1 } };
          const withKey = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o).replace(/^\{/, `{"${key}":1,`)) as T;
          const body = where === 'top' ? withKey(valid) : where === 'gpu' ? { ...valid, gpu: withKey(valid.gpu) } : (Object.create(valid) as typeof valid);
          const { client, sent } = fuzzClient(() => Response.json({ id: 'p1' }, { status: 201 }));
          const settled = await settleWithin(() => client.rest.pods.create(body));
          expect((settled as { error?: unknown }).error).toBeInstanceOf(ValidationError);
          expect(sent).toHaveLength(0);
        });
      }),
      params(30),
    );
  }, FUZZ_TIMEOUT_MS);
});

describe('clock jumps both ways', () => {
  it('property: the wall clock stepped at any poll, either way, changes no wait outcome', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(-86_400_000, -3_600_000, 3_600_000, 86_400_000), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 4 }), async (jump, jumpAt, doneAt) => {
        await count('clock', async () => {
          const realNow = Date.now.bind(Date);
          let offset = 0;
          const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
          try {
            let polls = 0;
            const { client } = fuzzClient(() => {
              polls++;
              if (polls === jumpAt) offset += jump;
              return Response.json({ id: 'j', status: polls >= doneAt ? 'COMPLETED' : 'IN_PROGRESS', output: polls });
            });
            const settled = await settleWithin(() => client.endpoint('ep').job('j').wait({ timeoutMs: 3_000, pollIntervalMs: 2, maxPollIntervalMs: 4 }), 6_000);
            expect(settled.kind).toBe('resolved');
            expect(polls).toBe(doneAt);
          } finally {
            spy.mockRestore();
          }
        });
      }),
      params(12),
    );
  }, FUZZ_TIMEOUT_MS);
});

interface Mutation {
  readonly name: string;
  readonly call: (c: Client) => Promise<unknown>;
  /** Safe to send again after it may have arrived. */
  readonly resendable: boolean;
  /** The answer to a good call. */
  readonly ok: () => Response;
  /** What a resend meets once the first send did the work (404 for a delete, 409 for a state change); undefined: the same as `ok`. */
  readonly afterDone?: () => Response;
  /** The pod as GET shows it after the first send acted. */
  readonly podAfter?: string;
}

const podJson = (status: string) => Response.json({ id: 'p1', status, actions: [] });
const problem = (status: number) => Response.json({ title: 'x', status, detail: 'x' }, { status });

/** Every mutation that creates nothing, with what its resend may be. */
const MUTATIONS: readonly Mutation[] = [
  { name: 'rest.pods.start', call: (c) => c.rest.pods.start('p1'), resendable: true, ok: () => podJson('RUNNING'), afterDone: () => problem(409), podAfter: 'RUNNING' },
  { name: 'rest.pods.stop', call: (c) => c.rest.pods.stop('p1'), resendable: true, ok: () => podJson('EXITED'), afterDone: () => problem(409), podAfter: 'EXITED' },
  { name: 'rest.pods.restart', call: (c) => c.rest.pods.restart('p1'), resendable: true, ok: () => podJson('RUNNING'), afterDone: () => problem(409), podAfter: 'STARTING' },
  { name: 'rest.pods.terminate', call: (c) => c.rest.pods.terminate('p1'), resendable: true, ok: () => new Response(null, { status: 204 }), afterDone: () => problem(404) },
  { name: 'rest.pods.delete', call: (c) => c.rest.pods.delete('p1'), resendable: true, ok: () => new Response(null, { status: 204 }), afterDone: () => problem(404) },
  { name: 'rest.pods.update', call: (c) => c.rest.pods.update('p1', { name: 'n' }), resendable: false, ok: () => podJson('RUNNING') },
  { name: 'rest.templates.update', call: (c) => c.rest.templates.update('t1', { name: 'n' }), resendable: true, ok: () => Response.json({ id: 't1' }) },
  { name: 'rest.templates.delete', call: (c) => c.rest.templates.delete('t1'), resendable: true, ok: () => new Response(null, { status: 204 }), afterDone: () => problem(404) },
  { name: 'rest.endpoints.delete', call: (c) => c.rest.endpoints.delete('e1'), resendable: true, ok: () => new Response(null, { status: 204 }), afterDone: () => problem(404) },
  { name: 'rest.networkVolumes.delete', call: (c) => c.rest.networkVolumes.delete('v1'), resendable: true, ok: () => new Response(null, { status: 204 }), afterDone: () => problem(404) },
  { name: 'rest.registries.delete', call: (c) => c.rest.registries.delete('r1'), resendable: true, ok: () => new Response(null, { status: 204 }), afterDone: () => problem(404) },
  { name: 'rest.sshKeys.replace', call: (c) => c.rest.sshKeys.replace(['ssh-ed25519 AAA me']), resendable: true, ok: () => Response.json({ keys: ['ssh-ed25519 AAA me'] }) },
  { name: 'endpoint.purgeQueue', call: (c) => c.endpoint('ep').purgeQueue(), resendable: false, ok: () => Response.json({ removed: 1, status: 'completed' }) },
  { name: 'endpoint.cancel', call: (c) => c.endpoint('ep').cancel('j1'), resendable: true, ok: () => Response.json({ id: 'j1', status: 'CANCELLED' }) },
  { name: 'endpoint.retry', call: (c) => c.endpoint('ep').retry('j1'), resendable: false, ok: () => Response.json({ id: 'j1', status: 'IN_QUEUE' }) },
];

type Loss = 'status 502' | 'status 503' | 'reset' | 'status 500';

describe('lost answers on every non-create mutation', () => {
  it('property: a resendable mutation ends in success after a lost answer; any other is sent exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...MUTATIONS), fc.constantFrom<Loss>('status 502', 'status 503', 'status 500', 'reset'), fc.boolean(), async (m, loss, firstActed) => {
        await count('lost answers', async () => {
          let mutations = 0;
          const { client } = fuzzClient(
            (_url, init) => {
              const method = init.method ?? 'GET';
              if (method === 'GET' && m.podAfter) return podJson(firstActed ? m.podAfter : 'RUNNING');
              mutations++;
              if (mutations === 1) {
                if (loss === 'reset') throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
                return problem(Number(loss.slice(7)));
              }
              return firstActed && m.afterDone ? m.afterDone() : m.ok();
            },
            { maxRetries: 2, onRetry: () => undefined },
          );
          vi.spyOn(Math, 'random').mockReturnValue(1);
          try {
            const settled = await settleWithin(() => m.call(client), 20_000);
            if (!m.resendable) {
              expect(mutations).toBe(1);
              expect(settled.kind).toBe('rejected');
              return;
            }
            expect(mutations).toBe(2);
            // A 409 after a lost answer with the pod elsewhere is a real conflict; otherwise success.
            if (firstActed || !m.afterDone || m.podAfter === undefined) expect(settled.kind).toBe('resolved');
            else expect((settled as { error?: unknown }).error ?? 'resolved').not.toBeInstanceOf(TypeError);
            if (settled.kind === 'rejected') expect((settled as { error: unknown }).error).toBeInstanceOf(ConflictError);
          } finally {
            vi.restoreAllMocks();
          }
        });
      }),
      params(24),
    );
  }, FUZZ_TIMEOUT_MS * 4);
});

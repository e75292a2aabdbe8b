// Issue 37, causes 6, 7 and 8 and the rate's memory: the work one document may ask for is bounded
// (tokens, fragments, spreads, aliases through every spread), refusals are cached as their
// messages within the cache's bound, and a caller's rate costs the same memory whatever its figure.
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/index.js';
import { DocumentCache, MAX_CACHED_QUERIES_CHARS } from '../../src/graphql/executable-schema.js';
import { bearer, READ_TOKEN } from './harness.js';

function gateway(limits = {}) {
  const calls: string[] = [];
  const g = createGateway({
    tokens: `read:${READ_TOKEN}`,
    limits,
    client: { apiKey: 'rpa_BOUNDSUPSTREAM0123456789ABCDEFGHIJKLMNOP', restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql', rateLimits: false, fetch: async (input) => (calls.push(String(input)), Response.json([])) },
  });
  const ask = async (query: string, token = READ_TOKEN) => {
    const response = await g.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...bearer(token) }, body: JSON.stringify({ query }) }));
    const body = (await response.json()) as { errors?: Array<{ message: string; extensions?: { code?: string } }> };
    return { status: response.status, code: body.errors?.[0]?.extensions?.code, message: body.errors?.[0]?.message };
  };
  return { ask, calls };
}

/** `fragment F on GpuType { a0: id … }` with `n` aliases. */
const aliasFragment = (n: number) => `fragment F on GpuType { ${Array.from({ length: n }, (_, i) => `a${i}: id`).join(' ')} }`;

describe('bounds on one document', () => {
  it('counts aliases through every spread: a fragment of 10 aliases spread three times under three aliases is 33, past 30', async () => {
    const { ask, calls } = gateway();
    const refused = await ask(`{ g1: gpuTypes { ...F } g2: gpuTypes { ...F } g3: gpuTypes { ...F } } ${aliasFragment(10)}`);
    expect([refused.status, refused.code]).toEqual([400, 'ALIAS_LIMIT']);
    const within = await ask(`{ g1: gpuTypes { ...F } g2: gpuTypes { ...F } } ${aliasFragment(10)}`);
    expect(within.code).not.toBe('ALIAS_LIMIT');
    expect(calls.length).toBeGreaterThan(0);
  });

  it('counts aliases through nested spreads (a fragment spreading another twice)', async () => {
    const { ask } = gateway();
    const doc = `{ gpuTypes { ...G ...G2 } } fragment G on GpuType { ...F } fragment G2 on GpuType { b: id ...F } ${aliasFragment(15)}`;
    expect((await ask(doc)).code).toBe('ALIAS_LIMIT');
  });

  it('refuses a document of more than 1,000 tokens (graphql-armor\'s default), before it is built', async () => {
    const { ask, calls } = gateway();
    // About 1,200 tokens, valid, with no alias: it passed the old cap of 5,000.
    const long = `{ gpuTypes { ${'id '.repeat(1_200)} } }`;
    const refused = await ask(long);
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/1000 tokens/);
    expect(calls).toEqual([]);
    expect((await gateway({ maxTokens: 2_000 }).ask(long)).message ?? '').not.toMatch(/tokens/);
  });

  it('refuses more than maxFragments fragments (default 50) and more than maxSpreadsPerSelection spreads in one selection (default 10)', async () => {
    const { ask, calls } = gateway({ maxTokens: 5_000 });
    const fragments = Array.from({ length: 51 }, (_, i) => `fragment F${i} on GpuType { id }`).join(' ');
    const many = await ask(`{ gpuTypes { ...F0 } } ${fragments}`);
    expect([many.status, many.code]).toEqual([400, 'FRAGMENT_LIMIT']);
    const eleven = Array.from({ length: 11 }, (_, i) => `...F${i}`).join(' ');
    const spread = await ask(`{ gpuTypes { ${eleven} } } ${Array.from({ length: 11 }, (_, i) => `fragment F${i} on GpuType { id }`).join(' ')}`);
    expect([spread.status, spread.code]).toEqual([400, 'SPREAD_LIMIT']);
    expect(calls).toEqual([]);
  });

  it('takes the new limits as options, and refuses a wrong one', () => {
    for (const limits of [{ maxTokens: 0 }, { maxFragments: -1 }, { maxSpreadsPerSelection: 1.5 }, { maxInFlight: 0 }, { deadlineMs: Number.NaN }, { pacingWaitMs: -1 }, { refusedKeys: { requests: 0, intervalMs: 1 } }]) {
      expect(() => gateway(limits)).toThrow(/limits\./);
    }
  });
});

describe('the parse cache keeps refusals compactly, within its bound', () => {
  it('keeps a refusal as its messages: each hit is a fresh GraphQLError, and the messages count in the bound', () => {
    const cache = new DocumentCache();
    const original = [new GraphQLError('Cannot query field "x" on type "Query".', { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })];
    cache.set('{ x }', original);
    const hit = cache.get('{ x }') as readonly GraphQLError[];
    expect(hit).not.toBe(original);
    expect(hit[0]).toBeInstanceOf(GraphQLError);
    expect(hit[0]).not.toBe(original[0]);
    expect(hit.map((e) => [e.message, e.extensions])).toEqual([[original[0]!.message, { code: 'GRAPHQL_VALIDATION_FAILED' }]]);
    expect(cache.totalChars).toBeGreaterThan('{ x }'.length + original[0]!.message.length - 1);
  });

  it('200 short invalid documents with 8 KB of messages each stay within the size bound', () => {
    const cache = new DocumentCache();
    const message = 'm'.repeat(8 * 1024);
    for (let i = 0; i < 200; i++) cache.set(`{ bad${i} }`, [new GraphQLError(message)]);
    expect(cache.totalChars).toBeLessThanOrEqual(MAX_CACHED_QUERIES_CHARS);
    expect(cache.size).toBeLessThan(40);
  });
});

describe("the rate's memory does not depend on its figure", () => {
  it('--rate-per-minute 10⁷ over 5 callers keeps well under a megabyte of buffers (8·N bytes per caller before: 400 MB)', async () => {
    const tokens = Array.from({ length: 5 }, (_, i) => `memory-token-${String(i).padStart(2, '0')}-0123456789`);
    const g = createGateway({
      tokens: tokens.map((t) => `read:${t}`).join(','),
      limits: { rate: { requests: 10_000_000, intervalMs: 60_000 } },
      client: { apiKey: 'rpa_BOUNDSUPSTREAM0123456789ABCDEFGHIJKLMNOP', restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql', fetch: () => Promise.reject(new Error('nothing is sent')) },
    });
    const before = process.memoryUsage().arrayBuffers;
    for (const token of tokens) {
      const response = await g.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token) }, body: '{"query":"{ nope }"}' }));
      expect(response.status).toBe(400); // an invalid document: served, refused as such
      await response.text();
    }
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1024 * 1024);
  });
});

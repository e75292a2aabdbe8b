// Upstream calls per document (issue 43): for random list shapes (page sizes, cursors that end,
// never end, or come back), random documents (lists and aliased reads by id) and random bounds,
// a document's calls never exceed its caps: calls, pages of one list, items, calls at once, and
// the caller's rate (one bucket, plus one bucket of debt, plus what was in flight when it stopped).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/index.js';
import { counted, FUZZ_TIMEOUT_MS, params, reportFigures } from './harness.js';

const TOKEN = 'fuzz-budget-read-token-0123456789abcdef';
const LISTS = { '/v2/pods': 'pods', '/v2/serverless': 'endpoints', '/v2/templates': 'templates' } as const;
const FIELDS = { '/v2/pods': 'myself { pods { id } }', '/v2/serverless': 'myself { endpoints { id } }', '/v2/templates': 'myself { podTemplates { id } }' } as const;
type ListPath = keyof typeof LISTS;

/** How a list answers: its page sizes, and after them whether it ends, hands out fresh cursors for ever, or repeats one. */
const listArb = fc.record({
  sizes: fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 6 }),
  tail: fc.constantFrom('ends' as const, 'endless' as const, 'repeats' as const),
});

const caseArb = fc.record({
  lists: fc.uniqueArray(fc.constantFrom(...(Object.keys(LISTS) as ListPath[])), { minLength: 0, maxLength: 3 }),
  shapes: fc.array(listArb, { minLength: 3, maxLength: 3 }),
  reads: fc.integer({ min: 0, max: 25 }),
  limits: fc.record({
    maxUpstreamCalls: fc.integer({ min: 1, max: 400 }),
    maxPages: fc.integer({ min: 1, max: 300 }),
    maxItems: fc.integer({ min: 1, max: 3_000 }),
    maxUpstreamInFlight: fc.integer({ min: 1, max: 8 }),
  }),
  rate: fc.option(fc.integer({ min: 1, max: 120 }), { nil: undefined }),
});

const figures = { documents: 0, calls: 0, mostCalls: 0, stoppedByCalls: 0, stoppedByPages: 0, stoppedByItems: 0, stoppedByRate: 0 };
afterAll(() => reportFigures('gateway: upstream calls per document', figures));

describe('fuzz: upstream calls per document never exceed its caps', () => {
  it('property: calls, pages per list, items, calls at once and the rate hold for any list shape and document', async () => {
    await fc.assert(
      fc.asyncProperty(
        caseArb,
        counted('gateway: upstream calls per document', async ({ lists, shapes, reads, limits, rate }) => {
          let calls = 0;
          let inFlight = 0;
          let most = 0;
          let items = 0;
          let largestPage = 0;
          const pages: Record<string, number> = {};
          const gateway = createGateway({
            tokens: `read:${TOKEN}`,
            limits: { ...limits, maxPages: limits.maxPages, rate: rate === undefined ? false : { requests: rate, intervalMs: 60_000 }, deadlineMs: 20_000 },
            client: {
              apiKey: 'rpa_FUZZBUDGET0123456789ABCDEFGHIJKLMNOPQR',
              restUrl: 'http://127.0.0.1:9/v2',
              graphqlUrl: 'http://127.0.0.1:9/graphql',
              maxRetries: 0,
              fetch: async (input) => {
                calls++;
                most = Math.max(most, ++inFlight);
                // Answered on a later turn, so the document's calls overlap as they would on a wire.
                await new Promise((resolve) => setTimeout(resolve, 0));
                inFlight--;
                const url = new URL(String(input));
                const path = url.pathname as ListPath;
                const key = LISTS[path];
                if (!key) return Response.json({ error: 'not found' }, { status: 404 });
                const shape = shapes[Object.keys(LISTS).indexOf(path)]!;
                const n = (pages[path] = (pages[path] ?? 0) + 1);
                const size = shape.sizes[(n - 1) % shape.sizes.length]!;
                items += size;
                largestPage = Math.max(largestPage, size);
                const more = shape.tail !== 'ends' || n < shape.sizes.length;
                const cursor = shape.tail === 'repeats' && n > shape.sizes.length ? 'c1' : `c${n}`;
                return Response.json({ [key]: Array.from({ length: size }, (_, i) => ({ id: `${key}-${n}-${i}` })), pagination: { nextCursor: more ? cursor : null, hasNextPage: more } });
              },
            },
          });
          const document = `{ ${[...lists.map((path) => FIELDS[path]), ...Array.from({ length: reads }, (_, i) => `r${i}: pod(input: { podId: "pod-${i}" }) { id }`)].join(' ')} }`;
          if (lists.length === 0 && reads === 0) return;
          const response = await gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ query: document }) }));
          const body = (await response.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
          expect(response.status).not.toBe(500);
          expect(calls).toBeLessThanOrEqual(limits.maxUpstreamCalls);
          for (const n of Object.values(pages)) expect(n).toBeLessThanOrEqual(limits.maxPages);
          // The page that passes the item cap is read (and let go); none after it.
          expect(items).toBeLessThanOrEqual(limits.maxItems + largestPage * lists.length);
          expect(most).toBeLessThanOrEqual(limits.maxUpstreamInFlight);
          // One turn, a bucket, a bucket of debt, and what was in flight when the document stopped.
          if (rate !== undefined) expect(calls).toBeLessThanOrEqual(1 + 2 * rate + limits.maxUpstreamInFlight);
          const stops = (body.errors ?? []).map((e) => e.extensions?.code);
          figures.documents++;
          figures.calls += calls;
          figures.mostCalls = Math.max(figures.mostCalls, calls);
          if (stops.includes('CALL_LIMIT')) figures.stoppedByCalls++;
          if (stops.includes('PAGE_LIMIT')) figures.stoppedByPages++;
          if (stops.includes('ITEM_LIMIT')) figures.stoppedByItems++;
          if (stops.includes('RATE_LIMITED')) figures.stoppedByRate++;
        }),
      ),
      params(60),
    );
  }, FUZZ_TIMEOUT_MS);
});

// Pagination properties: whatever way a server cuts a list into pages (sizes, short and empty pages,
// odd cursors), a list resolves to every item in order, in one request per page; a page of the wrong
// shape anywhere, or a cursor handed back twice, is a RunpodError; bad page options are refused
// before anything is sent.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { RunpodError, ServerError, ValidationError } from '../../src/errors.js';
import { counted, fuzzClient, FUZZ_TIMEOUT_MS, params, reportFigures, settleWithin } from './harness.js';

/** How a page may be broken. */
const BREAKS: ReadonlyArray<[string, (page: { items: object[]; next: string | null }) => unknown]> = [
  ['no items key', ({ next }) => ({ pagination: { nextCursor: next, hasNextPage: next !== null } })],
  ['items an object', ({ next }) => ({ items: {}, pagination: { nextCursor: next, hasNextPage: next !== null } })],
  ['item null', ({ items, next }) => ({ items: [...items, null], pagination: { nextCursor: next, hasNextPage: next !== null } })],
  ['item id number', ({ items, next }) => ({ items: [...items, { id: 5 }], pagination: { nextCursor: next, hasNextPage: next !== null } })],
  ['pagination null', ({ items }) => ({ items, pagination: null })],
  ['pagination a string', ({ items }) => ({ items, pagination: 'more' })],
  ['hasNextPage a string', ({ items, next }) => ({ items, pagination: { nextCursor: next, hasNextPage: 'yes' } })],
  ['more without a cursor', ({ items }) => ({ items, pagination: { nextCursor: null, hasNextPage: true } })],
  ['more with an empty cursor', ({ items }) => ({ items, pagination: { nextCursor: '', hasNextPage: true } })],
  ['cursor an object', ({ items }) => ({ items, pagination: { nextCursor: { at: 1 }, hasNextPage: true } })],
  ['a list, not an object', ({ items }) => items],
  ['null', () => null],
  ['not JSON', () => '{"items": ['],
];

const cursorArb = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 });
/** A list cut into pages: each page's item count (0 allowed: a short page need not be the last). */
const pagesArb = fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 9 });

const figures = { lists: 0, pages: 0, broken: 0, repeated: 0, refusedOptions: 0 };
afterAll(() => reportFigures('pagination', figures));

/** A server of `sizes` pages under `key`; page `broken.at` is answered by `broken.how`, and `repeatAt` hands back an old cursor. */
function server(key: string, sizes: number[], cursors: string[], broken?: { at: number; how: number }, repeatAt?: number) {
  let n = 0;
  const items = sizes.map((size, p) => Array.from({ length: size }, (_, i) => ({ id: `i${p}-${i}` })));
  const { client, sent } = fuzzClient((url) => {
    const at = url.searchParams.get('cursor');
    const index = at === null ? 0 : cursors.indexOf(at) + 1;
    n++;
    if (index <= 0 && at !== null) return Response.json({ title: 'Unprocessable Entity', status: 422, detail: 'bad cursor' }, { status: 422 });
    const last = index === sizes.length - 1;
    const next = last ? null : repeatAt === index ? (cursors[index - 1] ?? cursors[0]!) : cursors[index]!;
    const page = { items: items[index]!, next };
    const body = broken?.at === index ? BREAKS[broken.how]![1](page) : { [key]: page.items, pagination: { nextCursor: next, hasNextPage: !last } };
    const text = typeof body === 'string' ? body : JSON.stringify(key === 'items' ? body : renameItems(body, key));
    return new Response(text, { headers: { 'content-type': 'application/json' } });
  });
  return { client, sent, all: items.flat().map((i) => i.id), requests: () => n };
}

/** The broken bodies use `items`; the list's own key is what the client reads. */
function renameItems(body: unknown, key: string): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('items' in body)) return body;
  const { items, ...rest } = body as { items: unknown };
  return { [key]: items, ...rest };
}

const LISTS = [
  { key: 'pods', list: (c: ReturnType<typeof fuzzClient>['client'], o?: object) => c.rest.pods.list({}, o) },
  { key: 'templates', list: (c: ReturnType<typeof fuzzClient>['client'], o?: object) => c.rest.templates.list(o) },
  { key: 'endpoints', list: (c: ReturnType<typeof fuzzClient>['client'], o?: object) => c.rest.endpoints.list(o) },
  { key: 'releases', list: (c: ReturnType<typeof fuzzClient>['client'], o?: object) => c.rest.endpoints.releases('ep', o) },
  { key: 'builds', list: (c: ReturnType<typeof fuzzClient>['client'], o?: object) => c.rest.endpoints.builds('ep', o) },
];

describe('pagination properties', () => {
  it('property: any cut into pages gives every item, in order, one request per page; streaming gives the same', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...LISTS),
        pagesArb,
        fc.uniqueArray(cursorArb, { minLength: 9, maxLength: 9 }),
        counted('pages', async ({ key, list }, sizes, cursors) => {
          figures.lists++;
          figures.pages += sizes.length;
          const a = server(key, sizes, cursors);
          expect(((await list(a.client)) as Array<{ id: string }>).map((i) => i.id)).toEqual(a.all);
          expect(a.requests()).toBe(sizes.length);
          const b = server(key, sizes, cursors);
          const streamed: string[] = [];
          for await (const item of list(b.client) as AsyncIterable<{ id: string }>) streamed.push(item.id);
          expect(streamed).toEqual(b.all);
          expect(b.requests()).toBe(sizes.length);
          // Every cursor went back verbatim.
          expect(b.sent.slice(1).map((s) => s.url.searchParams.get('cursor'))).toEqual(cursors.slice(0, sizes.length - 1));
        }),
      ),
      params(120),
    );
  }, FUZZ_TIMEOUT_MS);

  it('property: a broken page anywhere, or a cursor handed back twice, is a RunpodError (never a TypeError, never a hang)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...LISTS),
        pagesArb,
        fc.uniqueArray(cursorArb, { minLength: 9, maxLength: 9 }),
        fc.nat(),
        fc.integer({ min: 0, max: BREAKS.length }),
        counted('pages', async ({ key, list }, sizes, cursors, where, how) => {
          const at = where % sizes.length;
          // `how === BREAKS.length`: the page at `at` hands back a cursor of an earlier page (a loop).
          const repeat = how === BREAKS.length;
          if (repeat && (at === 0 || at === sizes.length - 1)) return;
          const s = repeat ? server(key, sizes, cursors, undefined, at) : server(key, sizes, cursors, { at, how });
          const settled = await settleWithin(() => list(s.client) as Promise<unknown>);
          if (repeat) figures.repeated++;
          else figures.broken++;
          expect(settled.kind).toBe('rejected');
          const error = (settled as { error: unknown }).error;
          expect(error).toBeInstanceOf(RunpodError);
          expect(error).toBeInstanceOf(ServerError);
          expect(s.requests()).toBeLessThanOrEqual(sizes.length);
        }),
      ),
      params(150),
    );
  }, FUZZ_TIMEOUT_MS);

  it('property: page options are checked before anything is sent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...LISTS),
        fc.oneof(fc.anything(), fc.integer({ min: -5, max: 1100 }), fc.double()),
        fc.oneof(fc.constant(undefined), fc.anything(), cursorArb),
        counted('pages', async ({ key, list }, limit, cursor) => {
          const max = key === 'builds' ? 100 : 1000;
          const limitOk = limit === undefined || limit === null || (Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= max);
          const cursorOk = cursor === undefined || (typeof cursor === 'string' && cursor !== '');
          const { client, sent } = fuzzClient(() => Response.json({ [key]: [], pagination: { nextCursor: null, hasNextPage: false } }));
          const settled = await settleWithin(() => list(client, { limit, cursor }) as Promise<unknown>);
          if (limitOk && cursorOk) {
            expect(settled.kind).toBe('resolved');
            expect(sent).toHaveLength(1);
          } else {
            figures.refusedOptions++;
            expect(settled.kind).toBe('rejected');
            expect((settled as { error: unknown }).error).toBeInstanceOf(ValidationError);
            expect(sent).toHaveLength(0);
          }
        }),
      ),
      params(200),
    );
  }, FUZZ_TIMEOUT_MS);
});

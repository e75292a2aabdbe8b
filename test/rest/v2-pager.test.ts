// The pager at the fetch seam: every list follows nextCursor, page by page, through the HTTP core.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { AbortError, CREATE_MARKER_ENV, createRunpodClient, ServerError, ValidationError } from '../../src/index.js';
import type { Page, PagedList, Pod } from '../../src/rest/index.js';
import { captureError, json, recordingFetch, recordingFetchWithCatalog, TEST_API_KEY, type RecordedCall } from '../helpers.js';

const problem = (status: number, detail: string, extra: object = {}) => json({ title: 'Error', status, detail, ...extra }, { status, headers: { 'content-type': 'application/problem+json' } });
const pod = (id: string, env?: Record<string, string>) => ({ id, name: id, status: 'RUNNING', ...(env && { env }) });

/** A server of `pages`, each `[ids, nextCursor]`; the cursor sent must be the one the page before gave. */
function pagedServer(key: string, pages: Array<[ids: string[], next: string | null]>, item: (id: string) => object = (id) => ({ id })) {
  return recordingFetch((call) => {
    const at = call.url.searchParams.get('cursor');
    const index = at === null ? 0 : pages.findIndex((_p, i) => i > 0 && pages[i - 1]![1] === at);
    if (index < 0) return problem(422, 'cursor not from this list');
    const [ids, next] = pages[index]!;
    return json({ [key]: ids.map(item), pagination: { nextCursor: next, hasNextPage: next !== null } });
  });
}

const client = (fetch: ReturnType<typeof recordingFetch>['fetch'], extra: object = {}) => createRunpodClient({ apiKey: TEST_API_KEY, fetch, ...extra });
const query = (call: RecordedCall) => Object.fromEntries(call.url.searchParams);

describe('rest lists page through one pager', () => {
  it('await: every item of every page, following nextCursor through short and empty pages, verbatim, with the query on each page', async () => {
    const odd = 'a+b/c=%2F?&#é';
    const { fetch, calls } = pagedServer('pods', [
      [['p1', 'p2'], odd],
      [[], 'c2'], // an empty page that is not the last
      [['p3'], 'c3'],
      [['p4', 'p5'], null],
    ], (id) => pod(id));
    const pods = await client(fetch).rest.pods.list({ includeClusterPods: true }, { limit: 2 });
    expect(pods.map((p) => p.id)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(calls).toHaveLength(4);
    expect(calls.map(query)).toEqual([
      { includeClusterPods: 'true', limit: '2' },
      { includeClusterPods: 'true', limit: '2', cursor: odd },
      { includeClusterPods: 'true', limit: '2', cursor: 'c2' },
      { includeClusterPods: 'true', limit: '2', cursor: 'c3' },
    ]);
    expect(calls.every((c) => c.url.pathname === '/v2/pods' && c.method === 'GET')).toBe(true);
  });

  it('for await streams items page by page: the next page is asked for only when the loop gets there', async () => {
    const { fetch, calls } = pagedServer('templates', [[['t1', 't2'], 'n1'], [['t3'], 'n2'], [['t4'], null]]);
    const rp = client(fetch);
    const list = rp.rest.templates.list();
    expect(calls).toHaveLength(0); // nothing is sent until the list is used
    const seen: string[] = [];
    for await (const t of list) {
      seen.push(t.id);
      expect(calls).toHaveLength(seen.length <= 2 ? 1 : seen.length - 1);
      if (t.id === 't3') break;
    }
    expect(seen).toEqual(['t1', 't2', 't3']);
    expect(calls).toHaveLength(2); // leaving the loop reads no further page
  });

  it('page() reads one page with its pagination; pages() walks them; a cursor option starts there', async () => {
    const { fetch, calls } = pagedServer('endpoints', [[['e1'], 'n1'], [['e2'], null]]);
    const rp = client(fetch);
    const first = await rp.rest.endpoints.list({ limit: 1 }).page();
    expectTypeOf(first).toMatchTypeOf<Page<{ id: string }>>();
    expect(first).toEqual({ items: [{ id: 'e1' }], pagination: { nextCursor: 'n1', hasNextPage: true } });
    const second = await rp.rest.endpoints.list({ limit: 1, cursor: first.pagination.nextCursor! }).page();
    expect(second).toEqual({ items: [{ id: 'e2' }], pagination: { nextCursor: null, hasNextPage: false } });
    const sizes: number[] = [];
    for await (const page of rp.rest.endpoints.list().pages()) sizes.push(page.items.length);
    expect(sizes).toEqual([1, 1]);
    expect(calls.map((c) => c.url.searchParams.get('cursor'))).toEqual([null, 'n1', null, 'n1']);
  });

  it('awaiting one list twice reads its pages once; it is typed as a promise of every item', async () => {
    const { fetch, calls } = pagedServer('pods', [[['p1'], 'n'], [['p2'], null]], (id) => pod(id));
    const list = client(fetch).rest.pods.list();
    expectTypeOf(list).toEqualTypeOf<PagedList<Pod>>();
    expectTypeOf(list).toMatchTypeOf<Promise<Pod[]>>();
    const [a, b] = await Promise.all([list, list.then((l) => l.length)]);
    expect(a.map((p) => p.id)).toEqual(['p1', 'p2']);
    expect(b).toBe(2);
    expect(calls).toHaveLength(2);
  });

  it('releases page too (newest first as the server sends them); a bad id rejects the use, it does not throw at the call', async () => {
    const { fetch, calls } = pagedServer('releases', [[['r2'], 'n'], [['r1'], null]]);
    const rp = client(fetch);
    expect((await rp.rest.endpoints.releases('ep-1')).map((r) => r.id)).toEqual(['r2', 'r1']);
    expect(calls[1]!.url.pathname).toBe('/v2/serverless/ep-1/releases');
    const list = rp.rest.endpoints.releases('..');
    expect((await captureError<ValidationError>(list)).field).toBe('id');
  });

  it.each([
    ['limit', { limit: 0 }],
    ['limit', { limit: 1001 }],
    ['limit', { limit: 2.5 }],
    ['limit', { limit: '10' }],
    ['cursor', { cursor: '' }],
    ['cursor', { cursor: 5 }],
  ])('a bad %s (%j) is a ValidationError before anything is sent', async (field, options) => {
    const { fetch, calls } = pagedServer('pods', [[['p1'], null]], (id) => pod(id));
    const rp = client(fetch);
    const err = await captureError<ValidationError>(rp.rest.pods.list(undefined, options as object));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe(field);
    expect((await captureError<ValidationError>(rp.rest.templates.list(options as object).page())).field).toBe(field);
    expect(calls).toHaveLength(0);
  });

  it("a cursor the server refuses (422) is a ValidationError on 'cursor' carrying the server's problems; without a cursor a 422 stays as it was", async () => {
    const { fetch } = recordingFetch(() => problem(422, 'Request validation failed.', { errors: ['query.cursor: the cursor belongs to another list'] }));
    const rp = client(fetch);
    const err = await captureError<ValidationError>(rp.rest.pods.list(undefined, { cursor: 'from-templates' }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ field: 'cursor', status: 422, errors: ['query.cursor: the cursor belongs to another list'] });
    expect(err.message).toMatch(/only valid for the list and query that issued it/);
    const plain = await captureError<ValidationError>(rp.rest.pods.list());
    expect(plain.field).not.toBe('cursor');
  });

  it('a server that hands back a cursor it gave before is a ServerError after a bounded walk, not an endless loop', async () => {
    const loop = recordingFetch((call) => json({ pods: [pod(`p-${call.url.searchParams.get('cursor') ?? 0}`)], pagination: { nextCursor: call.url.searchParams.get('cursor') === 'b' ? 'a' : call.url.searchParams.get('cursor') === 'a' ? 'b' : 'a', hasNextPage: true } }));
    const err = await captureError(client(loop.fetch).rest.pods.list());
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toMatch(/nextCursor not given before/);
    expect(loop.calls).toHaveLength(3);
    // The same cursor handed back at once, and the caller's own starting cursor handed back.
    const same = recordingFetch(() => json({ templates: [], pagination: { nextCursor: 'x', hasNextPage: true } }));
    expect(await captureError(client(same.fetch).rest.templates.list({ cursor: 'x' }))).toBeInstanceOf(ServerError);
    expect(same.calls).toHaveLength(1);
  });

  it.each([
    ['pagination null', { pods: [], pagination: null }],
    ['hasNextPage missing', { pods: [], pagination: { nextCursor: null } }],
    ['hasNextPage a string', { pods: [], pagination: { nextCursor: 'n', hasNextPage: 'true' } }],
    ['more pages, no cursor', { pods: [], pagination: { nextCursor: null, hasNextPage: true } }],
    ['more pages, empty cursor', { pods: [], pagination: { nextCursor: '', hasNextPage: true } }],
    ['cursor a number', { pods: [], pagination: { nextCursor: 5, hasNextPage: true } }],
    ['items not an array', { pods: 'x', pagination: { nextCursor: null, hasNextPage: false } }],
    ['item without id', { pods: [{ name: 'x' }], pagination: { nextCursor: null, hasNextPage: false } }],
  ])('a page of the wrong shape (%s) is a ServerError', async (_name, body) => {
    const { fetch } = recordingFetch(() => json(body));
    const err = await captureError(client(fetch).rest.pods.list());
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toMatch(/pagination/);
  });

  it('a server from before pagination (no pagination block) gives its whole list in one page', async () => {
    const { fetch, calls } = recordingFetch(() => json({ pods: [pod('p1'), pod('p2')] }));
    expect((await client(fetch).rest.pods.list()).map((p) => p.id)).toEqual(['p1', 'p2']);
    expect(calls).toHaveLength(1);
  });

  it('each page goes through the core: a 503 on page 2 is retried, and the caller signal ends the walk between pages', async () => {
    let failed = false;
    const { fetch, calls } = recordingFetch((call) => {
      const at = call.url.searchParams.get('cursor');
      if (at === 'n1' && !failed) {
        failed = true;
        return problem(503, 'busy');
      }
      return json({ pods: [pod(at ?? 'first')], pagination: { nextCursor: at ? null : 'n1', hasNextPage: !at } });
    });
    expect((await client(fetch).rest.pods.list()).map((p) => p.id)).toEqual(['first', 'n1']);
    expect(calls).toHaveLength(3);

    const stop = new AbortController();
    const seen: string[] = [];
    const err = await captureError(async () => {
      for await (const p of client(fetch).rest.pods.list(undefined, { signal: stop.signal })) {
        seen.push(p.id);
        stop.abort();
      }
    });
    expect(err).toBeInstanceOf(AbortError);
    expect(seen).toEqual(['first']);
  });

  it('an ambiguous create finds its resource by its marker on a later page', async () => {
    for (const kind of ['pods', 'templates'] as const) {
      let marker = '';
      const { fetch, calls } = recordingFetchWithCatalog((call) => {
        if (call.method === 'POST') {
          marker = JSON.parse(call.body!).env[CREATE_MARKER_ENV];
          return problem(502, 'bad gateway');
        }
        const at = call.url.searchParams.get('cursor');
        const items = at ? [pod('mine', { [CREATE_MARKER_ENV]: marker })] : [pod('other', { [CREATE_MARKER_ENV]: 'someone-else' })];
        return json({ [kind]: items, pagination: { nextCursor: at ? null : 'page-2', hasNextPage: !at } });
      });
      const rp = client(fetch, { maxRetries: 0 });
      const made = kind === 'pods' ? await rp.rest.pods.create({ name: 'x', image: 'img', cpu: { id: 'cpu3c', vcpuCount: 2 } }) : await rp.rest.templates.create({ name: 'x', image: 'img' });
      expect(made.id).toBe('mine');
      expect(calls.filter((c) => c.method === 'GET').map((c) => c.url.searchParams.get('cursor'))).toEqual([null, 'page-2']);
    }
  });
});

// A list walk ends: against a server that hands out a fresh cursor on every page, it stops after
// `maxPages` pages (10,000 by default) with a ServerError naming the cap and the route.
import { describe, expect, it } from 'vitest';
import { createRunpodClient, ServerError, ValidationError } from '../../src/index.js';
import { MAX_PAGES } from '../../src/rest/pager.js';
import { captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

/** A server whose every page has a next one, with a cursor never given before; it gives up past `stopAt` calls. */
function endlessServer(stopAt: number, key = 'pods') {
  return recordingFetch((_call, i) => {
    // On a pager without a cap this is what ends the walk, so the test fails instead of hanging.
    if (i >= stopAt) throw new Error(`the walk asked for page ${i + 1}: it does not end`);
    return json({ [key]: [{ id: `p${i}` }], pagination: { nextCursor: `fresh-${i}`, hasNextPage: true } });
  });
}

describe('a page cap per list walk', () => {
  it('maxPages: page maxPages + 1 is never asked for, and the walk ends in a ServerError naming the cap and the route', async () => {
    const { fetch, calls } = endlessServer(200);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, rateLimits: false, maxRetries: 0 });
    const err = await captureError<ServerError>(rp.rest.pods.list({}, { maxPages: 50 }));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toContain('GET /pods');
    expect(err.message).toContain('50 pages (maxPages)');
    expect(err.request?.operation).toBe('GET /pods');
    expect(calls).toHaveLength(50);
  });

  it('the default cap is 10,000 pages, for await and pages() alike', async () => {
    expect(MAX_PAGES).toBe(10_000);
    const { fetch, calls } = endlessServer(10_001);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, rateLimits: false, maxRetries: 0 });
    let items = 0;
    const err = await captureError<ServerError>(async () => {
      for await (const _pod of rp.rest.pods.list()) items++;
    });
    expect(err.message).toContain(`${MAX_PAGES} pages (maxPages)`);
    expect(items).toBe(MAX_PAGES);
    expect(calls).toHaveLength(MAX_PAGES);

    const few = endlessServer(10, 'templates');
    const pages: number[] = [];
    const pagesErr = await captureError<ServerError>(async () => {
      for await (const page of createRunpodClient({ apiKey: TEST_API_KEY, fetch: few.fetch, rateLimits: false }).rest.templates.list({ maxPages: 3 }).pages()) pages.push(page.items.length);
    });
    expect(pagesErr.message).toContain('GET /templates');
    expect(pages).toEqual([1, 1, 1]);
  });

  it('a list that ends within the cap is read whole; a cap that is not a positive integer is refused before anything is sent', async () => {
    const { fetch, calls } = recordingFetch((_call, i) => json({ pods: [{ id: `p${i}` }], pagination: { nextCursor: i < 2 ? `c${i}` : null, hasNextPage: i < 2 } }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, rateLimits: false });
    expect((await rp.rest.pods.list({}, { maxPages: 3 })).map((p) => p.id)).toEqual(['p0', 'p1', 'p2']);
    for (const maxPages of [0, -1, 1.5, Number.NaN]) {
      const err = await captureError<ValidationError>(rp.rest.pods.list({}, { maxPages }));
      expect(err.field).toBe('maxPages');
    }
    expect(calls).toHaveLength(3);
  });
});

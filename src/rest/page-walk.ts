// The page walk of every paginated list (pager.ts), loaded with a list's first use.
import { ServerError, ValidationError } from '../errors.js';
import { budgetOf } from '../transport/call-budget.js';
import type { CallOptions } from '../transport/options.js';
import { redactUrl } from '../transport/redact.js';
import { isRecord } from '../transport/shape.js';
import type { Page, PagedRoute, Pagination } from './pager.js';
import type { RestRequester } from './rest-request.js';

/** What an exhausted list says; a server from before pagination (Frontdoor v2.9.0) sends no block and the whole list. */
const LAST_PAGE: Pagination = { nextCursor: null, hasNextPage: false };

/** Reads pages of `route` from `cursor` on, `limit` items each, at most `maxPages` of them, with the call's options. */
export function pageWalk<T>(rest: RestRequester, route: PagedRoute, cursor: string | undefined, limit: number | undefined, callOptions: CallOptions, maxPages: number) {
  // A gateway document's budget caps every walk it makes, whatever the call's own maxPages.
  const budget = budgetOf(callOptions.fetchOptions);
  const cap = budget ? Math.min(maxPages, budget.maxPagesPerWalk) : maxPages;
  const request = (at: string | undefined) => rest.http({ method: 'GET', path: route.path, route: route.route, query: { ...route.query, cursor: at, limit }, idempotent: true }, callOptions);

  async function read(at: string | undefined): Promise<Page<T>> {
    const req = request(at);
    let body: unknown;
    try {
      body = await rest.core.requestJson<unknown>(req);
    } catch (err) {
      // The only part of the query the caller cannot check before sending: it came from a server.
      if (at !== undefined && err instanceof ValidationError && err.status === 422) {
        throw new ValidationError('cursor', `${route.route} refused the cursor (HTTP 422): a cursor is only valid for the list and query that issued it`, { status: 422, errors: err.errors, body: err.body, request: err.request, cause: err });
      }
      throw err;
    }
    const items = isRecord(body) ? body[route.key] : undefined;
    const pagination = isRecord(body) ? (body.pagination === undefined ? LAST_PAGE : body.pagination) : undefined;
    if (!Array.isArray(items) || !items.every((item) => isRecord(item) && typeof item.id === 'string') || !isPagination(pagination)) {
      throw rest.core.wrongShape(req, `an object with an array ${route.key} of objects with a string id and pagination { nextCursor, hasNextPage }`, body);
    }
    budget?.page(route.route, items.length);
    return { items: items as T[], pagination: { nextCursor: pagination.nextCursor, hasNextPage: pagination.hasNextPage } };
  }

  async function* pages(): AsyncGenerator<Page<T>, void, undefined> {
    // Every cursor of this walk: one handed back twice would read the same pages for ever.
    const given = new Set(cursor === undefined ? [] : [cursor]);
    for (let at = cursor, n = 1; ; n++) {
      const page = await read(at);
      yield page;
      const { hasNextPage, nextCursor } = page.pagination;
      if (!hasNextPage) return;
      // Page maxPages + 1 is never asked for: a server handing out a fresh cursor on every page never ends.
      if (n >= cap && cap < maxPages) throw budget!.walkCapped(route.route);
      if (n >= maxPages) throw new ServerError(`${route.route}: still a next page after ${maxPages} pages (maxPages)`, { status: 200, request: { method: 'GET', url: redactUrl(request(at).url), operation: route.route } });
      if (given.has(nextCursor!)) throw rest.core.wrongShape(request(at), 'a nextCursor not given before in this walk', page.pagination);
      given.add((at = nextCursor!));
    }
  }

  return { read, pages };
}

/** `{ nextCursor: string | null, hasNextPage: boolean }`, with a cursor to follow whenever there is a next page. */
function isPagination(value: unknown): value is Pagination {
  if (!isRecord(value) || typeof value.hasNextPage !== 'boolean') return false;
  const next = value.nextCursor;
  return value.hasNextPage ? typeof next === 'string' && next !== '' : next === null || typeof next === 'string';
}

// One pager for every cursor-paginated REST v2 list (pods, templates, endpoints, releases, builds).
// Each page is its own request through the HTTP core, so a walk keeps the call's signal, per-attempt
// time-out, retries and the REST bucket's pacing page after page.
import { ValidationError } from '../errors.js';
import type { CallOptions } from '../transport/options.js';
import { checkInteger, shown } from '../validation.js';
import type { components } from './__generated__/rest-v2.js';
import type { RestRequester } from './rest-request.js';

/** Options of a paginated list: the call's, plus where to start and how many items a page holds. */
export interface PageOptions extends CallOptions {
  /**
   * Items per page, 1–1000 (builds: 1–100). Only the page size: awaiting the list still reads every page.
   * @default the server's: 1000 (builds: 100)
   */
  limit?: number | undefined;
  /**
   * Start at this cursor: a `pagination.nextCursor` this same list (same method, same query) gave,
   * passed back verbatim. A cursor is only valid for the list and query that issued it; the server
   * refuses any other with 422 (a `ValidationError` whose `field` is `cursor`).
   * @default the first page
   */
  cursor?: string | undefined;
  /**
   * Most pages one walk reads (`await list`, `for await`, `pages()`). A server that still has a
   * next page after this many ends the walk in a `ServerError` naming the cap and the route,
   * instead of reading for ever (one that hands out a fresh cursor on every page never ends).
   * @default 10000 (ten million items at the largest page)
   */
  maxPages?: number | undefined;
}

/** Pages one walk reads at most, unless `maxPages` says otherwise. */
export const MAX_PAGES = 10_000;

/** Where a page stands (the contract's `Pagination`): `nextCursor` reads the next page while `hasNextPage` is true. */
export type Pagination = components['schemas']['Pagination'];

/** One page of a list, as the server cut it (a pod page may hold fewer than `limit` items and still not be the last). */
export interface Page<T> {
  readonly items: T[];
  readonly pagination: Pagination;
}

/**
 * A paginated list. Nothing is sent until it is used, in one of three ways:
 * - `await list`: every item across all pages (each page read once, however often it is awaited);
 * - `for await (const item of list)`: items streamed page by page, one request per page, as the loop asks;
 * - `list.page()`: one page (the first, or the one at `cursor`) with its `pagination`; `list.pages()`: page by page.
 *
 * Pages are followed by `nextCursor` until `hasNextPage` is false, never by counting: a short page is not the last.
 * A server that hands back a cursor it already gave in this walk is a `ServerError`, not an endless loop.
 */
export interface PagedList<T> extends Promise<T[]>, AsyncIterable<T> {
  /** One page, the first or the one at `cursor`, with its `pagination`. Each call sends one request. */
  page(): Promise<Page<T>>;
  /** The pages one by one, from the first or from `cursor`: the next request goes out when the loop asks for it. */
  pages(): AsyncIterable<Page<T>>;
}

/** A cursor-paginated list route: where it is, the envelope key of its items, and its largest page. */
export interface PagedRoute {
  readonly path: string;
  /** The contract's route, e.g. `GET /serverless/{id}/builds`: used in errors. */
  readonly route: string;
  readonly key: string;
  readonly query?: object | undefined;
  /** The contract's `limit` maximum: 1000 (`PaginationLimit`), 100 for builds (`PaginationLimitBuilds`). */
  readonly maxLimit: number;
}

/** The contract's largest page (`PaginationLimit`), also the server's default. */
export const PAGE_LIMIT = 1000;
/** The largest page of a build list (`PaginationLimitBuilds`), also its default. */
export const BUILDS_PAGE_LIMIT = 100;

let walker: Promise<typeof import('./page-walk.js')> | undefined;

/**
 * A list that pages with `rest`: lazy, and each of its walks stays on `route`'s query. A `route`
 * given as a function is built on first use, so a bad id rejects the use rather than throwing here.
 */
export function pagedList<T>(rest: RestRequester, where: PagedRoute | (() => PagedRoute), options: PageOptions = {}): PagedList<T> {
  const { limit, cursor, maxPages = MAX_PAGES, ...callOptions } = options;
  let route: PagedRoute;
  const check = () => {
    route ??= typeof where === 'function' ? where() : where;
    checkInteger('limit', limit, 1, route.maxLimit);
    checkInteger('maxPages', maxPages, 1);
    if (cursor !== undefined && (typeof cursor !== 'string' || cursor === '')) throw new ValidationError('cursor', `must be a non-empty string (a nextCursor passed back verbatim), got ${shown(cursor)}`);
  };

  // The walk (reading a page, checking its shape, following cursors) loads with the first use: a
  // list is handed back at once, but nothing of it is needed before a page is asked for.
  const walk = async () => (await (walker ??= import('./page-walk.js'))).pageWalk<T>(rest, route, cursor, limit, callOptions, maxPages);

  async function* pages(): AsyncGenerator<Page<T>, void, undefined> {
    check();
    yield* (await walk()).pages();
  }

  let all: Promise<T[]> | undefined;
  const every = () =>
    (all ??= (async () => {
      const items: T[] = [];
      for await (const page of pages()) for (const item of page.items) items.push(item);
      return items;
    })());

  return {
    then<A = T[], B = never>(onFulfilled?: ((items: T[]) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
      return every().then(onFulfilled, onRejected);
    },
    catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T[] | B> {
      return every().catch(onRejected);
    },
    finally: (onFinally?: (() => void) | null) => every().finally(onFinally),
    [Symbol.toStringTag]: 'PagedList',
    async page() {
      check();
      return (await walk()).read(cursor);
    },
    pages,
    async *[Symbol.asyncIterator]() {
      for await (const page of pages()) yield* page.items;
    },
  };
}

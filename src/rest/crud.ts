import type { CallOptions } from '../transport/options.js';
import type { RequestSchemaName } from './__generated__/request-rules.js';
import type { CreateOptions } from './create-once.js';
import { checkBody, createOnceLazy } from './lazy.js';
import { PAGE_LIMIT, pagedList, type PageOptions, type PagedList } from './pager.js';
import { idSegment, type RestRequester } from './rest-request.js';

export interface CrudSpec {
  /** `/templates` */
  readonly base: string;
  /** The envelope key of the list answer, e.g. `templates`. */
  readonly listKey: string;
  readonly createSchema: RequestSchemaName;
  readonly updateSchema?: RequestSchemaName;
  /** The resource has an `env`: a create carries a marker in it, to be found after an ambiguous failure. */
  readonly marked?: boolean;
}

/** The five routes most resources share; `create` is never resent once it may have arrived. */
export interface CrudApi<T, TCreate, TUpdate> {
  /**
   * Never resent once it may have arrived. After an ambiguous failure the resource is looked up by
   * its marker (where it has an `env`), else a PossiblyCreatedError says it may exist.
   */
  create(body: TCreate, options?: CreateOptions): Promise<T>;
  list(options?: CallOptions): Promise<T[]>;
  get(id: string, options?: CallOptions): Promise<T>;
  update(id: string, body: TUpdate, options?: CallOptions): Promise<T>;
  /** A 404 on a retry, after an attempt whose answer was lost, counts as done. */
  delete(id: string, options?: CallOptions): Promise<void>;
}

/** The five routes, with a list that pages (`GET /templates`, `GET /serverless`). */
export interface PagedCrudApi<T, TCreate, TUpdate> extends Omit<CrudApi<T, TCreate, TUpdate>, 'list'> {
  /**
   * Every item across all pages when awaited; `for await` streams them page by page, and
   * `.page()` reads one page with its `pagination`. `{ limit, cursor }` set the page size and the start.
   */
  list(options?: PageOptions): PagedList<T>;
}

export function pagedCrud<T, TCreate, TUpdate>(rest: RestRequester, spec: CrudSpec): PagedCrudApi<T, TCreate, TUpdate> {
  const { base, listKey: key } = spec;
  return { ...crud<T, TCreate, TUpdate>(rest, spec), list: (options) => pagedList<T>(rest, { path: base, route: `GET ${base}`, key, maxLimit: PAGE_LIMIT }, options) };
}

export function crud<T, TCreate, TUpdate>(rest: RestRequester, spec: CrudSpec): CrudApi<T, TCreate, TUpdate> {
  const { base, listKey } = spec;
  const path = (id: unknown) => `${base}/${idSegment('id', id)}`;
  return {
    async create(body, options) {
      await checkBody(spec.createSchema, body);
      return createOnceLazy<T>(rest, { method: 'POST', path: base, route: `POST ${base}`, body }, options, spec.marked ? { path: base, key: listKey } : undefined);
    },
    list: async (options) => rest.list<T>({ method: 'GET', path: base, route: `GET ${base}`, idempotent: true }, listKey, options),
    get: async (id, options) => rest.object<T>({ method: 'GET', path: path(id), route: `GET ${base}/{id}`, idempotent: true }, options),
    async update(id, body, options) {
      const at = path(id);
      if (spec.updateSchema) await checkBody(spec.updateSchema, body);
      return rest.object<T>({ method: 'PATCH', path: at, route: `PATCH ${base}/{id}`, body, idempotent: true }, options);
    },
    delete: async (id, options) =>
      rest.send({ method: 'DELETE', path: path(id), route: `DELETE ${base}/{id}`, idempotent: true, notFoundOnRetryMeansDone: true }, options),
  };
}

/** `GET {base}/{id}/{sub}`, paginated: the resources listed under `sub` of one resource, page by page. */
export function pagedSubList<T>(rest: RestRequester, base: string, sub: string, maxLimit = PAGE_LIMIT): (id: string, options?: PageOptions) => PagedList<T> {
  return (id, options) => pagedList<T>(rest, () => ({ path: `${base}/${idSegment('id', id)}/${sub}`, route: `GET ${base}/{id}/${sub}`, key: sub, maxLimit }), options);
}

/** `GET {base}/{id}/{sub}`: the resources listed under `sub` of one resource. */
export function subList<T>(rest: RestRequester, base: string, sub: string): (id: string, options?: CallOptions) => Promise<T[]> {
  return async (id, options) => rest.list<T>({ method: 'GET', path: `${base}/${idSegment('id', id)}/${sub}`, route: `GET ${base}/{id}/${sub}`, idempotent: true }, sub, options);
}

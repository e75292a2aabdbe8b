import type { CallOptions } from '../transport/options.js';
import type { RequestSchemaName } from './__generated__/request-rules.js';
import { checkRequestBody } from './request-check.js';
import { idSegment, type RestRequester } from './rest-request.js';

export interface CrudSpec {
  /** `/templates` */
  readonly base: string;
  /** The envelope key of the list answer, e.g. `templates`. */
  readonly listKey: string;
  readonly createSchema: RequestSchemaName;
  readonly updateSchema?: RequestSchemaName;
}

/** The five routes most resources share; `create` is never resent once it may have arrived. */
export interface CrudApi<T, TCreate, TUpdate> {
  create(body: TCreate, options?: CallOptions): Promise<T>;
  list(options?: CallOptions): Promise<T[]>;
  get(id: string, options?: CallOptions): Promise<T>;
  update(id: string, body: TUpdate, options?: CallOptions): Promise<T>;
  /** A 404 on a retry, after an attempt whose answer was lost, counts as done. */
  delete(id: string, options?: CallOptions): Promise<void>;
}

export function crud<T, TCreate, TUpdate>(rest: RestRequester, spec: CrudSpec): CrudApi<T, TCreate, TUpdate> {
  const { base, listKey } = spec;
  const path = (id: unknown) => `${base}/${idSegment('id', id)}`;
  return {
    async create(body, options) {
      checkRequestBody(spec.createSchema, body);
      return rest.object<T>({ method: 'POST', path: base, route: `POST ${base}`, body, idempotent: false }, options);
    },
    list: async (options) => rest.list<T>({ method: 'GET', path: base, route: `GET ${base}`, idempotent: true }, listKey, options),
    get: async (id, options) => rest.object<T>({ method: 'GET', path: path(id), route: `GET ${base}/{id}`, idempotent: true }, options),
    async update(id, body, options) {
      const at = path(id);
      if (spec.updateSchema) checkRequestBody(spec.updateSchema, body);
      return rest.object<T>({ method: 'PATCH', path: at, route: `PATCH ${base}/{id}`, body, idempotent: true }, options);
    },
    delete: async (id, options) =>
      rest.send({ method: 'DELETE', path: path(id), route: `DELETE ${base}/{id}`, idempotent: true, notFoundOnRetryMeansDone: true }, options),
  };
}

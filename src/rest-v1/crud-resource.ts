import type { CallOptions } from '../transport/options.js';
import { isRecord, isString } from '../transport/shape.js';
import { idPath, type ItemShape, type RestRequester } from './rest-request.js';

export interface CrudSpec<T> {
  /** `/templates` */
  readonly base: string;
  /** `templateId`: names the path parameter in errors. */
  readonly idField: string;
  readonly validateCreate?: (body: unknown) => void;
  readonly validateUpdate?: (body: unknown) => void;
  /** What an item must be (default: an object with a string id). */
  readonly shape?: ItemShape;
  readonly normalize?: (item: T) => T;
  /** Whether an update may be resent after it may have arrived (false where an edit has side effects). */
  readonly updateIdempotent: boolean;
}

export interface UpdateOptions extends CallOptions {
  /** `PATCH /{id}` (default) or its synonym `POST /{id}/update`. */
  method?: 'PATCH' | 'POST' | undefined;
}

export interface CrudResource<T, TCreate, TUpdate, TListQuery, TGetQuery> {
  /** Never resent automatically once it may have reached the server. */
  create(body: TCreate, options?: CallOptions): Promise<T>;
  list(query?: TListQuery, options?: CallOptions): Promise<T[]>;
  get(id: string, query?: TGetQuery, options?: CallOptions): Promise<T>;
  update(id: string, body: TUpdate, options?: UpdateOptions): Promise<T>;
  delete(id: string, options?: CallOptions): Promise<void>;
}

/** Every resource of v1 has a string `id`. */
export const RESOURCE: ItemShape = { is: (value) => isRecord(value) && isString(value.id), expected: 'an object with a string id' };

export function crudResource<T, TCreate, TUpdate, TListQuery extends object | undefined, TGetQuery extends object | undefined>(
  rest: RestRequester,
  spec: CrudSpec<T>,
): CrudResource<T, TCreate, TUpdate, TListQuery, TGetQuery> {
  const { base, idField } = spec;
  const one = `${base}/{${idField}}`;
  const normalize = spec.normalize ?? ((item: T) => item);
  const shape = spec.shape ?? RESOURCE;
  return {
    async create(body, options) {
      spec.validateCreate?.(body);
      return normalize(await rest.object<T>({ method: 'POST', path: base, route: `POST ${base}`, body, idempotent: false }, options, shape));
    },
    async list(query, options) {
      const items = await rest.list<T>({ method: 'GET', path: base, route: `GET ${base}`, query, idempotent: true }, options, shape);
      return items.map(normalize);
    },
    async get(id, query, options) {
      const path = idPath(base, idField, id);
      return normalize(await rest.object<T>({ method: 'GET', path, route: `GET ${one}`, query, idempotent: true }, options, shape));
    },
    async update(id, body, options = {}) {
      const { method = 'PATCH', ...callOptions } = options;
      const path = idPath(base, idField, id, method === 'POST' ? '/update' : '');
      spec.validateUpdate?.(body);
      const route = method === 'POST' ? `POST ${one}/update` : `PATCH ${one}`;
      return normalize(await rest.object<T>({ method, path, route, body, idempotent: spec.updateIdempotent }, callOptions, shape));
    },
    async delete(id, options) {
      const path = idPath(base, idField, id);
      await rest.send({ method: 'DELETE', path, route: `DELETE ${one}`, idempotent: true }, options);
    },
  };
}

import { checkBody, createOnceLazy } from './lazy.js';
import type { CallOptions } from '../transport/options.js';
import { idSegment, type RestRequester } from './rest-request.js';
import type { CreateDelegationInput, CreateRegistryInput, EcrDelegation, Registry } from './types.js';

/** Container registry credentials, and ECR delegations. There is no update: delete and create again. */
export interface RestRegistriesApi {
  /** Never resent automatically once it may have arrived. The password is never shown back. */
  create(body: CreateRegistryInput, options?: CallOptions): Promise<Registry>;
  list(options?: CallOptions): Promise<Registry[]>;
  get(id: string, options?: CallOptions): Promise<Registry>;
  delete(id: string, options?: CallOptions): Promise<void>;
  readonly delegations: {
    list(options?: CallOptions): Promise<EcrDelegation[]>;
    create(body: CreateDelegationInput, options?: CallOptions): Promise<EcrDelegation>;
    /** A 404 on a retry, after an attempt whose answer was lost, counts as done. */
    revoke(id: string, options?: CallOptions): Promise<void>;
  };
}

export function createRestRegistriesApi(rest: RestRequester): RestRegistriesApi {
  const one = (id: unknown) => `/registries/${idSegment('id', id)}`;
  return {
    async create(body, options) {
      await checkBody('CreateRegistryRequest', body);
      return createOnceLazy<Registry>(rest, { method: 'POST', path: '/registries', route: 'POST /registries', body }, options);
    },
    list: async (options) => rest.list<Registry>({ method: 'GET', path: '/registries', route: 'GET /registries', idempotent: true }, 'registries', options),
    get: async (id, options) => rest.object<Registry>({ method: 'GET', path: one(id), route: 'GET /registries/{id}', idempotent: true }, options),
    delete: async (id, options) =>
      rest.send({ method: 'DELETE', path: one(id), route: 'DELETE /registries/{id}', idempotent: true, notFoundOnRetryMeansDone: true }, options),
    delegations: {
      list: async (options) =>
        rest.list<EcrDelegation>({ method: 'GET', path: '/registries/delegations', route: 'GET /registries/delegations', idempotent: true }, 'delegations', options),
      async create(body, options) {
        await checkBody('CreateDelegationRequest', body);
        return createOnceLazy<EcrDelegation>(rest, { method: 'POST', path: '/registries/delegations', route: 'POST /registries/delegations', body }, options);
      },
      revoke: async (id, options) =>
        rest.send(
          { method: 'DELETE', path: `/registries/delegations/${idSegment('id', id)}`, route: 'DELETE /registries/delegations/{id}', idempotent: true, notFoundOnRetryMeansDone: true },
          options,
        ),
    },
  };
}

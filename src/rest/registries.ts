import type { CallOptions } from '../transport/options.js';
import { registerSecretValue } from '../transport/redact.js';
import { crud } from './crud.js';
import type { RestRequester } from './rest-request.js';
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
  // The create, list, get and delete of every resource; no update.
  const { create, list, get, delete: remove } = crud<Registry, CreateRegistryInput, never>(rest, { base: '/registries', listKey: 'registries', createSchema: 'CreateRegistryRequest' });
  const delegations = crud<EcrDelegation, CreateDelegationInput, never>(rest, { base: '/registries/delegations', listKey: 'delegations', createSchema: 'CreateDelegationRequest' });
  return {
    create(body, options) {
      // Registered before the body can leave, for as long as the client lives: an echo of the
      // password in any answer, error or URL is scrubbed like the key (GraphQL's saveRegistryAuth comes here too).
      const password = (body as { password?: unknown } | null)?.password;
      if (typeof password === 'string' && password) registerSecretValue(password, rest.core);
      return create(body, options);
    },
    list,
    get,
    delete: remove,
    delegations: { list: delegations.list, create: delegations.create, revoke: delegations.delete },
  };
}

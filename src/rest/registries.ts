import type { CallOptions } from '../transport/options.js';
import { scopeOf, SecretScope, SECRETS } from '../transport/redact.js';
import { crud } from './crud.js';
import { checkBody } from './lazy.js';
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
    async create(body, options) {
      // Checked first, then filed in the call's own scope (a gateway document's, when it runs in
      // one) before the body can leave: an echo of the password in this call's errors is scrubbed
      // like the key, and no other caller's text is scrubbed of it (GraphQL's saveRegistryAuth comes here too).
      await checkBody('CreateRegistryRequest', body);
      const scope = scopeOf(options) ?? new SecretScope();
      scope.add((body as { password?: unknown }).password);
      return create(body, { ...options, [SECRETS]: scope } as typeof options);
    },
    list,
    get,
    delete: remove,
    delegations: { list: delegations.list, create: delegations.create, revoke: delegations.delete },
  };
}

import { ValidationError } from '../errors.js';
import type { CallOptions } from '../transport/options.js';
import { scopeOf, SecretScope, SECRETS } from '../transport/redact.js';
import { checkBody } from './lazy.js';
import { crud } from './crud.js';
import type { RestRequester } from './rest-request.js';
import type { CreateSecretRequest, ListSecretsQuery, Secret, UpdateSecretRequest } from './types.js';

/**
 * Account secrets (`/account/secrets`). A secret's value is write-only: no answer carries it, and the
 * client treats it like the API key (scrubbed from every error, never logged). Pods read a secret
 * through their env as `{{ RUNPOD_SECRET_<name> }}`.
 */
export interface RestSecretsApi {
  /** Never resent once it may have arrived (a name is taken once): an ambiguous failure is a `PossiblyCreatedError`. */
  create(body: CreateSecretRequest, options?: CallOptions): Promise<Secret>;
  /** Every secret of the account, or the one named `query.name`. */
  list(query?: ListSecretsQuery, options?: CallOptions): Promise<Secret[]>;
  get(id: string, options?: CallOptions): Promise<Secret>;
  /** Sets the value, the description (`""` clears it), or both; the name cannot change. */
  update(id: string, body: UpdateSecretRequest, options?: CallOptions): Promise<Secret>;
  /** A 404 on a retry, after an attempt whose answer was lost, counts as done. */
  delete(id: string, options?: CallOptions): Promise<void>;
}

export function createRestSecretsApi(rest: RestRequester): RestSecretsApi {
  const base = crud<Secret, CreateSecretRequest, UpdateSecretRequest>(rest, { base: '/account/secrets', listKey: 'secrets', createSchema: 'CreateSecretRequest', updateSchema: 'UpdateSecretRequest' });
  // Checked, then filed in the call's own scope (a gateway document's, when it runs in one) before
  // the body can leave: an echo of the value in this call's errors is scrubbed like the key, and no
  // other caller's text is scrubbed of it.
  const guard = async (schema: 'CreateSecretRequest' | 'UpdateSecretRequest', body: unknown, options: CallOptions | undefined): Promise<CallOptions> => {
    await checkBody(schema, body);
    const scope = scopeOf(options) ?? new SecretScope();
    scope.add((body as { value?: unknown }).value);
    return { ...options, [SECRETS]: scope } as CallOptions;
  };
  return {
    async create(body, options) {
      // The platform reserves the prefix (case-insensitive); its contract says so in prose only.
      const name = (body as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && /^runpod/i.test(name)) throw new ValidationError('body.name', 'must not start with RUNPOD (reserved by the platform)');
      return base.create(body, await guard('CreateSecretRequest', body, options));
    },
    list: async (query, options) => rest.list<Secret>({ method: 'GET', path: '/account/secrets', route: 'GET /account/secrets', query, idempotent: true }, 'secrets', options),
    get: base.get,
    async update(id, body, options) {
      return base.update(id, body, await guard('UpdateSecretRequest', body, options));
    },
    delete: base.delete,
  };
}

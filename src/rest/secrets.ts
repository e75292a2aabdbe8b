import { ValidationError } from '../errors.js';
import type { CallOptions } from '../transport/options.js';
import { registerSecretValue } from '../transport/redact.js';
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
  // Registered before the body can leave, for as long as the client lives: an echo of the value in
  // any answer, error or URL is scrubbed like the key.
  const guard = (body: unknown) => {
    const value = (body as { value?: unknown } | null)?.value;
    if (typeof value === 'string' && value) registerSecretValue(value, rest.core);
  };
  return {
    async create(body, options) {
      guard(body);
      // The platform reserves the prefix (case-insensitive); its contract says so in prose only.
      const name = (body as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && /^runpod/i.test(name)) throw new ValidationError('body.name', 'must not start with RUNPOD (reserved by the platform)');
      return base.create(body, options);
    },
    list: async (query, options) => rest.list<Secret>({ method: 'GET', path: '/account/secrets', route: 'GET /account/secrets', query, idempotent: true }, 'secrets', options),
    get: base.get,
    async update(id, body, options) {
      guard(body);
      return base.update(id, body, options);
    },
    delete: base.delete,
  };
}

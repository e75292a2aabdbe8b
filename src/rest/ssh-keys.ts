import type { CallOptions } from '../transport/options.js';
import { isArrayOf, isString } from '../transport/shape.js';
import { checkBody } from './lazy.js';
import type { RestRequester } from './rest-request.js';

/** The account's SSH public keys, put on every new pod. */
export interface RestSshKeysApi {
  list(options?: CallOptions): Promise<string[]>;
  /** Replaces the whole list (PUT); resolves to the list now stored. */
  replace(keys: readonly string[], options?: CallOptions): Promise<string[]>;
}

export function createRestSshKeysApi(rest: RestRequester): RestSshKeysApi {
  const keysOf = async (call: Parameters<RestRequester['object']>[0], options?: CallOptions) => {
    const body = await rest.object<{ keys?: unknown }>(call, options, 'object');
    if (!isArrayOf(body.keys, isString)) throw rest.core.wrongShape(rest.http(call, options), 'an object with keys: string[]', body);
    return body.keys;
  };
  return {
    list: (options) => keysOf({ method: 'GET', path: '/account/ssh-keys', route: 'GET /account/ssh-keys', idempotent: true }, options),
    async replace(keys, options) {
      const body = { keys };
      await checkBody('UpdateSshKeysRequest', body);
      return keysOf({ method: 'PUT', path: '/account/ssh-keys', route: 'PUT /account/ssh-keys', body, idempotent: true }, options);
    },
  };
}

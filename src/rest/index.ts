// The `runpod-gql/rest` entry: the REST v1 client alone, on the same HTTP core and options.
import { createHttpCoreFromOptions } from '../transport/http-core.js';
import type { RunpodClientOptions } from '../transport/options.js';
import { createRestClient, type RunpodRest } from './rest-client.js';

/** A REST-only client: `restUrl`, Bearer auth, and the same timeouts, retries and errors as the full client. */
export function createRunpodRestClient(options: RunpodClientOptions = {}): RunpodRest {
  return createRestClient(createHttpCoreFromOptions(options));
}

export type { RunpodRest } from './rest-client.js';
export type { CrudResource, UpdateOptions } from './crud-resource.js';
export type { RestPodsApi } from './pods.js';
export type { RestEndpointsApi } from './endpoints.js';
export type { RestTemplatesApi } from './templates.js';
export type { RestNetworkVolumesApi } from './network-volumes.js';
export type { RestContainerRegistryAuthsApi } from './container-registry-auths.js';
export type { RestBillingApi } from './billing.js';
export type * from './types.js';
export type { CallOptions, RunpodClientOptions } from '../transport/options.js';
export * from '../errors.js';

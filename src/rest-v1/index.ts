// The `runpod-gql/rest-v1` entry: the retired REST v1 client (the spec's legacy contract).
import { createHttpCoreFromOptions } from '../transport/http-core.js';
import type { RunpodClientOptions } from '../transport/options.js';
import { createRestClient, type RunpodRestV1 } from './rest-client.js';

/** REST v1's base URL. It answers 410 Gone since 2026-11-15; REST v2 is `runpod-gql/rest`. */
export const DEFAULT_REST_V1_URL = 'https://rest.runpod.io/v1';

/**
 * A REST v1 client: `restUrl` (default {@link DEFAULT_REST_V1_URL}), Bearer auth, and the same
 * timeouts, retries and errors as the full client. A 410 becomes an `ApiRetiredError` naming the
 * v2 method to use instead.
 */
export function createRunpodRestV1Client(options: RunpodClientOptions = {}): RunpodRestV1 {
  return createRestClient(createHttpCoreFromOptions({ ...options, restUrl: options.restUrl ?? DEFAULT_REST_V1_URL }));
}

export type { RunpodRestV1 } from './rest-client.js';
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

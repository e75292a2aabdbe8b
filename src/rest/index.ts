// The `runpod-gql/rest` entry: the REST v2 client alone, on the same HTTP core and options.
import { createHttpCoreFromOptions } from '../transport/http-core.js';
import type { RunpodClientOptions } from '../transport/options.js';
import { createRestClient, type RunpodRest } from './rest-client.js';

/** A REST v2 client: `restUrl`, Bearer auth, and the same timeouts, retries and errors as the full client. */
export function createRunpodRestClient(options: RunpodClientOptions = {}): RunpodRest {
  return createRestClient(createHttpCoreFromOptions(options));
}

export type { RunpodRest } from './rest-client.js';
export type { CrudApi } from './crud.js';
export type { PodCreateOptions, RestPodsApi } from './pods.js';
export type { RestEndpointsApi } from './endpoints.js';
export type { RestTemplatesApi } from './templates.js';
export type { RestNetworkVolumesApi } from './network-volumes.js';
export type { RestRegistriesApi } from './registries.js';
export type { RestCatalogApi } from './catalog.js';
export type { RestBillingApi } from './billing.js';
export type { RestClustersApi } from './clusters.js';
export type { RestSshKeysApi } from './ssh-keys.js';
export type { LogLine, LogOptions } from './logs.js';
export type * from './types.js';
export type { CallOptions, ResponseInfo, RunpodClientOptions } from '../transport/options.js';
export type { RateLimitInfo, RateLimitWindow } from '../transport/rate-limit-headers.js';
export { CREATE_MARKER_ENV } from '../transport/create-marker.js';
export * from '../errors.js';

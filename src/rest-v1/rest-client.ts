import type { HttpCore } from '../transport/http-core.js';
import { createRestBillingApi, type RestBillingApi } from './billing.js';
import { createRestContainerRegistryAuthsApi, type RestContainerRegistryAuthsApi } from './container-registry-auths.js';
import { createRestEndpointsApi, type RestEndpointsApi } from './endpoints.js';
import { createRestNetworkVolumesApi, type RestNetworkVolumesApi } from './network-volumes.js';
import { createRestPodsApi, type RestPodsApi } from './pods.js';
import { createRestRequester } from './rest-request.js';
import { createRestTemplatesApi, type RestTemplatesApi } from './templates.js';

/** Every REST v1 route (retired: 410 Gone since 2026-11-15), under `restUrl` with `Authorization: Bearer KEY`. */
export interface RunpodRestV1 {
  readonly pods: RestPodsApi;
  readonly endpoints: RestEndpointsApi;
  readonly templates: RestTemplatesApi;
  readonly networkVolumes: RestNetworkVolumesApi;
  readonly containerRegistryAuths: RestContainerRegistryAuthsApi;
  readonly billing: RestBillingApi;
}

export function createRestClient(core: HttpCore): RunpodRestV1 {
  const rest = createRestRequester(core);
  return {
    pods: createRestPodsApi(rest),
    endpoints: createRestEndpointsApi(rest),
    templates: createRestTemplatesApi(rest),
    networkVolumes: createRestNetworkVolumesApi(rest),
    containerRegistryAuths: createRestContainerRegistryAuthsApi(rest),
    billing: createRestBillingApi(rest),
  };
}

import type { HttpCore } from '../transport/http-core.js';
import { createRestBillingApi, type RestBillingApi } from './billing.js';
import { createRestCatalogApi, type RestCatalogApi } from './catalog.js';
import { createRestClustersApi, type RestClustersApi } from './clusters.js';
import { createRestEndpointsApi, type RestEndpointsApi } from './endpoints.js';
import { createRestNetworkVolumesApi, type RestNetworkVolumesApi } from './network-volumes.js';
import { createRestPodsApi, type RestPodsApi } from './pods.js';
import { createRestRegistriesApi, type RestRegistriesApi } from './registries.js';
import { createRestRequester } from './rest-request.js';
import { createRestSecretsApi, type RestSecretsApi } from './secrets.js';
import { createRestSshKeysApi, type RestSshKeysApi } from './ssh-keys.js';
import { createRestTemplatesApi, type RestTemplatesApi } from './templates.js';

/** Every REST v2 operation, under `restUrl` with `Authorization: Bearer KEY`. */
export interface RunpodRest {
  readonly pods: RestPodsApi;
  /** Serverless endpoints (`/serverless`). */
  readonly endpoints: RestEndpointsApi;
  readonly templates: RestTemplatesApi;
  readonly networkVolumes: RestNetworkVolumesApi;
  readonly registries: RestRegistriesApi;
  readonly catalog: RestCatalogApi;
  readonly billing: RestBillingApi;
  readonly clusters: RestClustersApi;
  readonly sshKeys: RestSshKeysApi;
  /** Account secrets: the value is write-only and treated like the API key. */
  readonly secrets: RestSecretsApi;
}

export function createRestClient(core: HttpCore): RunpodRest {
  const rest = createRestRequester(core);
  return {
    pods: createRestPodsApi(rest),
    endpoints: createRestEndpointsApi(rest),
    templates: createRestTemplatesApi(rest),
    networkVolumes: createRestNetworkVolumesApi(rest),
    registries: createRestRegistriesApi(rest),
    catalog: createRestCatalogApi(rest),
    billing: createRestBillingApi(rest),
    clusters: createRestClustersApi(rest),
    sshKeys: createRestSshKeysApi(rest),
    secrets: createRestSecretsApi(rest),
  };
}

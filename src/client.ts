import { createDeployCatalog, createGpuTypesApi, type GpuTypesApi } from './gpu-types/index.js';
import { createGraphQLClient, type RunpodGraphQL } from './graphql/graphql-client.js';
import { createPodsApi, type PodsApi } from './pods/index.js';
import { createRestClient, type RunpodRest } from './rest/rest-client.js';
import { createRestRequester } from './rest/rest-request.js';
import { createServerlessClient, type RunpodServerless } from './serverless/serverless-client.js';
import { createHttpCoreFromOptions } from './transport/http-core.js';
import { createTransportChoice } from './transport/transport-choice.js';
import { validateTransportOptions, type RunpodClientOptions } from './transport/options.js';

export interface RunpodClient extends RunpodServerless {
  /** Pods, typed as GraphQL selects them, over GraphQL or REST v2 (`podsTransport`). */
  readonly pods: PodsApi;
  /** GPU types, prices and stock. */
  readonly gpuTypes: GpuTypesApi;
  /** Run any typed document, e.g. one generated from your own `.graphql` file. */
  readonly graphql: RunpodGraphQL;
  /** REST v2: pods, serverless endpoints, templates, network volumes, registries, catalog, billing, clusters, SSH keys. */
  readonly rest: RunpodRest;
}

/**
 * Creates a client. All surfaces share one HTTP core: timeouts, retries by idempotency, error
 * mapping and redaction. The API key lives only in a closure: it is not a property of the client.
 */
export function createRunpodClient(options: RunpodClientOptions = {}): RunpodClient {
  const core = createHttpCoreFromOptions(options);
  validateTransportOptions(options);
  // One per client: the latch a 410 from graphqlUrl sets never reaches another client.
  const choice = createTransportChoice({
    mode: options.podsTransport ?? 'auto',
    fallbackOnRateLimit: options.fallbackOnRateLimit ?? false,
    onTransportChange: options.onTransportChange,
    log: core.log,
  });
  const graphql = createGraphQLClient(core, choice);
  // rp.gpuTypes and deploy's catalog read REST v2 through src/rest/, as rp.rest does.
  const restRequester = createRestRequester(core);
  return {
    pods: createPodsApi({ graphql, core, choice, catalog: createDeployCatalog(graphql, restRequester, choice) }),
    gpuTypes: createGpuTypesApi(graphql, restRequester, choice),
    graphql,
    rest: createRestClient(core),
    ...createServerlessClient(core),
  };
}

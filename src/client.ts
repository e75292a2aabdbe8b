import { createGpuTypesApi, type GpuTypesApi } from './graphql/gpu-types.js';
import { createGraphQLClient, type RunpodGraphQL } from './graphql/graphql-client.js';
import { createPodsApi, type PodsApi } from './graphql/pods.js';
import { createRestClient, type RunpodRest } from './rest/rest-client.js';
import { createLoadBalancedClient, type LoadBalancedClient, type LoadBalancedOptions } from './serverless/load-balanced.js';
import { createEndpointClient, type EndpointClient } from './serverless/queue.js';
import { createHttpCore } from './transport/http-core.js';
import { resolveOptions, type RunpodClientOptions } from './transport/options.js';

export interface RunpodClient {
  /** Typed GraphQL pod operations. */
  readonly pods: PodsApi;
  /** GPU types, prices and stock. */
  readonly gpuTypes: GpuTypesApi;
  /** Run any typed document, e.g. one generated from your own `.graphql` file. */
  readonly graphql: RunpodGraphQL;
  /** Every REST v1 route: pods, endpoints, templates, network volumes, registry auths, billing. */
  readonly rest: RunpodRest;
  /** A queue-based serverless endpoint: run jobs, wait, stream, cancel, retry. Type its input and output. */
  endpoint<Input = unknown, Output = unknown>(endpointId: string): EndpointClient<Input, Output>;
  /** A load-balanced endpoint, by URL or id, with cold-start retries. */
  loadBalanced(endpointUrlOrId: string, options?: LoadBalancedOptions): LoadBalancedClient;
}

/**
 * Creates a client. All surfaces share one HTTP core: timeouts, retries by idempotency, error
 * mapping and redaction. The API key lives only in a closure: it is not a property of the client.
 */
export function createRunpodClient(options: RunpodClientOptions = {}): RunpodClient {
  const { apiKey, resolved } = resolveOptions(options);
  const core = createHttpCore(resolved, apiKey);
  const graphql = createGraphQLClient(core);
  return {
    pods: createPodsApi(graphql),
    gpuTypes: createGpuTypesApi(graphql),
    graphql,
    rest: createRestClient(core),
    endpoint: (endpointId) => createEndpointClient(core, endpointId),
    loadBalanced: (endpointUrlOrId, lbOptions) => createLoadBalancedClient(core, endpointUrlOrId, lbOptions),
  };
}

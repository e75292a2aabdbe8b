import { createGpuTypeCatalog } from './gpu-types/catalog.js';
import { createGpuTypesApi, type GpuTypesApi } from './gpu-types/index.js';
import { createGraphQLClient, type RunpodGraphQL } from './graphql/graphql-client.js';
import { createPodsApi, type PodsApi } from './graphql/pods.js';
import { createRestClient, type RunpodRest } from './rest/rest-client.js';
import { createRestRequester } from './rest/rest-request.js';
import { createServerlessClient, type RunpodServerless } from './serverless/serverless-client.js';
import { createHttpCoreFromOptions } from './transport/http-core.js';
import type { RunpodClientOptions } from './transport/options.js';
import { ApiRetiredError } from './errors.js';
import { createTransportChoice } from './transport/transport-choice.js';

export interface RunpodClient extends RunpodServerless {
  /** Typed GraphQL pod operations. */
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
  const graphql = createGraphQLClient(core);
  // rp.gpuTypes and deploy's catalog read REST v2 through src/rest/, as rp.rest does.
  const restRequester = createRestRequester(core);
  // TEMPORARY WIRING (h20b): h20a builds the choice here and sets the latch inside the GraphQL
  // client; this stands in for it until that lands.
  const choice = createTransportChoice({ mode: options.podsTransport ?? 'auto', fallbackOnRateLimit: options.fallbackOnRateLimit ?? false, onTransportChange: options.onTransportChange });
  const latching: RunpodGraphQL = {
    request: (async (...args: Parameters<RunpodGraphQL['request']>) => {
      try {
        return await graphql.request(...args);
      } catch (err) {
        if (err instanceof ApiRetiredError) choice.retired(err);
        throw err;
      }
    }) as RunpodGraphQL['request'],
  };
  // END OF TEMPORARY WIRING: with h20a's wiring, pass `graphql` where `latching` is used below.
  return {
    pods: createPodsApi(latching, createGpuTypeCatalog(latching, restRequester, choice)),
    gpuTypes: createGpuTypesApi(latching, restRequester, choice),
    graphql,
    rest: createRestClient(core),
    ...createServerlessClient(core),
  };
}

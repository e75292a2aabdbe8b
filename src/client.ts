import { createDeployCatalog, createGpuTypesApi, type GpuTypesApi } from './gpu-types/index.js';
import { createGraphQLClient, routeGraphQL, type RunpodGraphQL } from './graphql/graphql-client.js';
import { createPodsApi, type PodsApi } from './pods/index.js';
import { createRestClient, type RunpodRest } from './rest/rest-client.js';
import { createRestRequester } from './rest/rest-request.js';
import { createServerlessClient, type RunpodServerless } from './serverless/serverless-client.js';
import { createHttpCoreFromOptions } from './transport/http-core.js';
import { createTransportChoice } from './transport/transport-choice.js';
import { validateTransportOptions, type RunpodClientOptions } from './transport/options.js';

export interface RunpodClient extends RunpodServerless {
  /** Pods, typed as GraphQL selects them, over GraphQL or REST v2 (`graphqlTransport`). */
  readonly pods: PodsApi;
  /** GPU types, prices and stock. */
  readonly gpuTypes: GpuTypesApi;
  /**
   * Run any typed document, e.g. one generated from your own `.graphql` file: on RunPod's GraphQL
   * while it is in use, else in process over REST v2 (`graphqlTransport`).
   */
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
    mode: options.graphqlTransport ?? options.podsTransport ?? 'auto',
    fallbackOnRateLimit: options.fallbackOnRateLimit ?? false,
    onTransportChange: options.onTransportChange,
    log: core.log,
  });
  // rp.pods and rp.gpuTypes route themselves, so they use RunPod's GraphQL directly.
  const upstream = createGraphQLClient(core, choice);
  // rp.gpuTypes and deploy's catalog read REST v2 through src/rest/, as rp.rest does.
  const restRequester = createRestRequester(core);
  const pods = createPodsApi({ graphql: upstream, core, choice, catalog: createDeployCatalog(upstream, restRequester, choice) });
  const rest = createRestClient(core);
  // Documents run in process over rp.pods and REST v2, loaded with the first one that does.
  let routes: ReturnType<typeof loadRoutes> | undefined;
  const loadRoutes = () => import('./graphql/in-process/route.js').then((m) => m.createRoutes({ upstream, choice, pods, rest, requester: restRequester }));
  return {
    pods,
    gpuTypes: createGpuTypesApi(upstream, restRequester, choice),
    graphql: routeGraphQL(upstream, choice, () => (routes ??= loadRoutes())),
    rest,
    ...createServerlessClient(core),
  };
}

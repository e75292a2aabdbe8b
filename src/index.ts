export { createRunpodClient, type RunpodClient } from './client.js';
export * from './errors.js';
export type { CallOptions, FetchLike, RetryEvent, RunpodClientOptions } from './transport/options.js';
export {
  DEFAULT_GRAPHQL_URL,
  DEFAULT_MAX_RETRIES,
  DEFAULT_REST_URL,
  DEFAULT_SERVERLESS_URL,
  DEFAULT_TIMEOUT_MS,
} from './transport/options.js';
export type { GraphQLCallOptions, GraphQLDocument, RunpodGraphQL, VariablesAndOptions } from './graphql/graphql-client.js';
export {
  isPodReady,
  TERMINAL_POD_STATUSES,
  type DeployCpuPodInput,
  type DeployPodInput,
  type Pod,
  type PodEnvInput,
  type PodsApi,
  type ResumePodInput,
  type WaitForPodProgress,
  type WaitUntilReadyOptions,
} from './graphql/pods.js';
export type { GpuOffer, GpuOffersInput, GpuType, GpuTypesApi, GpuTypesListInput, StockStatus } from './graphql/gpu-types.js';
export { parsePodEnv, toEnvironmentInput } from './graphql/pod-env.js';
export * from './graphql/__generated__/operations.js';
export * from './rest/index.js';
export * from './serverless/index.js';

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
  type DeployPodInput,
  type Pod,
  type PodsApi,
  type WaitForPodProgress,
  type WaitUntilReadyOptions,
} from './graphql/pods.js';
export type { GpuOffer, GpuOffersInput, GpuType, GpuTypesApi, GpuTypesListInput, StockStatus } from './graphql/gpu-types.js';
export { parsePodEnv, toEnvironmentInput } from './graphql/pod-env.js';
export * from './graphql/__generated__/operations.js';
export type { RunpodRest } from './rest/rest-client.js';
export type { CrudResource, UpdateOptions } from './rest/crud-resource.js';
export type { RestPodsApi } from './rest/pods.js';
export type { RestEndpointsApi } from './rest/endpoints.js';
export type { RestTemplatesApi } from './rest/templates.js';
export type { RestNetworkVolumesApi } from './rest/network-volumes.js';
export type { RestContainerRegistryAuthsApi } from './rest/container-registry-auths.js';
export type { RestBillingApi } from './rest/billing.js';
export type * from './rest/types.js';
export {
  Job,
  type EndpointClient,
  type JobProgress,
  type JobStream,
  type RunOptions,
  type RunSyncOptions,
  type StreamOptions,
  type WaitOptions,
} from './serverless/queue.js';
export { isTerminalJobStatus, TERMINAL_JOB_STATUSES } from './serverless/types.js';
export type { CompletedJob, EndpointHealth, JobPolicy, JobState, JobStatus, PurgeQueueResult, S3Config, StreamChunk } from './serverless/types.js';
export type { LoadBalancedClient, LoadBalancedOptions, LoadBalancedRequestOptions } from './serverless/load-balanced.js';
export { createRunpodRestClient } from './rest/index.js';
export { createRunpodServerlessClient, type RunpodServerless } from './serverless/index.js';

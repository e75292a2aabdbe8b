export { createRunpodClient, type RunpodClient } from './client.js';
export * from './errors.js';
export type { MarkerLookupOptions } from './transport/create-marker.js';
export { transportOf } from './transport/transport-tag.js';
export type { CallOptions, FetchLike, FetchOptions, RateLimitSetting, ResponseInfo, RetryEvent, RunpodClientOptions } from './transport/options.js';
export { VERSION, type AppInfo } from './transport/user-agent.js';
export { LOG_LEVELS, type LogFields, type LogLevel, type RunpodLogger } from './transport/logger.js';
export type { PacingBucket, PacingGrant, PacingLimit, PacingStore } from './transport/pacing.js';
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
  type PodCreateCallOptions,
  type PodsApi,
  type ResumePodInput,
  type StoppedPod,
  type WaitForPodProgress,
  type WaitUntilReadyOptions,
} from './pods/index.js';
export type { PodsTransport, TransportChangeEvent, TransportPath } from './transport/transport-choice.js';
export type { GpuOffer, GpuOffersInput, GpuType, GpuTypesApi, GpuTypesListInput, StockStatus } from './gpu-types/index.js';
export { parsePodEnv, toEnvironmentInput } from './graphql/pod-env.js';
export * from './graphql/__generated__/operations.js';
export { CREATE_MARKER_ENV, createRunpodRestClient } from './rest/index.js';
export type {
  CrudApi,
  LogLine,
  LogOptions,
  PodCreateOptions,
  RateLimitInfo,
  RateLimitWindow,
  RestBillingApi,
  RestCatalogApi,
  RestClustersApi,
  RestEndpointsApi,
  RestNetworkVolumesApi,
  RestPodsApi,
  RestRegistriesApi,
  RestSshKeysApi,
  RestTemplatesApi,
  RunpodRest,
} from './rest/index.js';
/** REST v2's request and answer types (`RestV2.Pod`, `RestV2.PodStatus`, …); `runpod-gql/rest` exports them by name. */
export type * as RestV2 from './rest/types.js';
export * from './serverless/index.js';

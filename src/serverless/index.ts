// The `runpod-gql/serverless` entry: queue-based and load-balanced endpoints alone.
import { createHttpCore } from '../transport/http-core.js';
import { resolveOptions, type RunpodClientOptions } from '../transport/options.js';
import { createLoadBalancedClient, type LoadBalancedClient, type LoadBalancedOptions } from './load-balanced.js';
import { createEndpointClient, type EndpointClient } from './queue.js';

export interface RunpodServerless {
  endpoint<Input = unknown, Output = unknown>(endpointId: string): EndpointClient<Input, Output>;
  loadBalanced(endpointUrlOrId: string, options?: LoadBalancedOptions): LoadBalancedClient;
}

/** A serverless-only client, with the same options, retries and errors as the full client. */
export function createRunpodServerlessClient(options: RunpodClientOptions = {}): RunpodServerless {
  const { apiKey, resolved } = resolveOptions(options);
  const core = createHttpCore(resolved, apiKey);
  return {
    endpoint: (endpointId) => createEndpointClient(core, endpointId),
    loadBalanced: (endpointUrlOrId, lbOptions) => createLoadBalancedClient(core, endpointUrlOrId, lbOptions),
  };
}

export { Job, type EndpointClient, type JobProgress, type JobStream, type RunOptions, type RunSyncOptions, type StreamOptions, type WaitOptions } from './queue.js';
export { isTerminalJobStatus, TERMINAL_JOB_STATUSES } from './types.js';
export type { CompletedJob, EndpointHealth, JobPolicy, JobState, JobStatus, PurgeQueueResult, S3Config, StreamChunk } from './types.js';
export type { LoadBalancedClient, LoadBalancedOptions, LoadBalancedRequestOptions } from './load-balanced.js';
export type { CallOptions, RunpodClientOptions } from '../transport/options.js';
export * from '../errors.js';

// The `runpod-gql/serverless` entry: queue-based and load-balanced endpoints alone.
import { createHttpCoreFromOptions } from '../transport/http-core.js';
import type { RunpodClientOptions } from '../transport/options.js';
import { createServerlessClient, type RunpodServerless } from './serverless-client.js';

/** A serverless-only client, with the same options, retries and errors as the full client. */
export function createRunpodServerlessClient(options: RunpodClientOptions = {}): RunpodServerless {
  return createServerlessClient(createHttpCoreFromOptions(options));
}

export type { RunpodServerless } from './serverless-client.js';
export { Job, type EndpointClient, type JobProgress, type JobStream, type RunOptions, type RunSyncOptions, type StreamOptions, type WaitOptions } from './queue.js';
export { OPENAI_API_KEY_PLACEHOLDER, type OpenAICompatible, type OpenAIHelperOptions } from './openai.js';
export { isTerminalJobStatus, TERMINAL_JOB_STATUSES } from './types.js';
export type { CompletedJob, EndpointHealth, JobPolicy, JobState, JobStatus, PurgeQueueResult, S3Config, StreamChunk } from './types.js';
export type { LoadBalancedClient, LoadBalancedOptions, LoadBalancedRequestOptions, LoadBalancedResponse } from './load-balanced.js';
export type { CallOptions, ResponseInfo, RunpodClientOptions } from '../transport/options.js';
export * from '../errors.js';

import type { HttpCore } from '../transport/http-core.js';
import { createLoadBalancedClient, type LoadBalancedClient, type LoadBalancedOptions } from './load-balanced.js';
import { createEndpointClient, type EndpointClient } from './queue.js';

/** Queue-based and load-balanced serverless endpoints, on `serverlessUrl` with Bearer auth. */
export interface RunpodServerless {
  /** A queue-based endpoint: run jobs, wait, stream, cancel, retry. Type its input and output. */
  endpoint<Input = unknown, Output = unknown>(endpointId: string): EndpointClient<Input, Output>;
  /** A load-balanced endpoint, by URL or id, with cold-start retries. */
  loadBalanced(endpointUrlOrId: string, options?: LoadBalancedOptions): LoadBalancedClient;
}

export function createServerlessClient(core: HttpCore): RunpodServerless {
  return {
    endpoint: (endpointId) => createEndpointClient(core, endpointId),
    loadBalanced: (endpointUrlOrId, options) => createLoadBalancedClient(core, endpointUrlOrId, options),
  };
}

import type { HttpCore } from '../transport/http-core.js';
import { requireId } from '../validation.js';
import { createLoadBalancedClient, type LoadBalancedClient, type LoadBalancedOptions } from './load-balanced.js';
import { createEndpointClient, type EndpointClient } from './queue.js';

/** Queue-based and load-balanced serverless endpoints, on `serverlessUrl` with Bearer auth. */
export interface RunpodServerless {
  /**
   * A queue-based endpoint: run jobs, wait, stream, cancel, retry. Type its input, output and
   * stream chunks. Cheap to call on every request: the client for an id is kept and reused.
   */
  endpoint<Input = unknown, Output = unknown, Chunk = unknown>(endpointId: string): EndpointClient<Input, Output, Chunk>;
  /**
   * A load-balanced endpoint, by id, with cold-start retries. Its address comes from the
   * `loadBalancedUrl` option; a full URL is accepted only when that template makes it.
   */
  loadBalanced(endpointId: string, options?: LoadBalancedOptions): LoadBalancedClient;
}

/** Endpoint clients kept per client; the least recently used goes beyond this. */
const ENDPOINT_CACHE_SIZE = 256;

export function createServerlessClient(core: HttpCore): RunpodServerless {
  const endpoints = new Map<string, EndpointClient>();
  // The one asked for last is already last in the map's order: nothing to move.
  let lastId: string | undefined;
  let last: EndpointClient | undefined;
  return {
    endpoint<Input, Output, Chunk>(endpointId: string): EndpointClient<Input, Output, Chunk> {
      if (last !== undefined && endpointId === lastId) return last as unknown as EndpointClient<Input, Output, Chunk>;
      let client = endpoints.get(endpointId);
      if (client) {
        // Re-inserted so the map's order is least recently used first.
        endpoints.delete(endpointId);
      } else {
        // Checked here, once per id: `endpoint(undefined)` is a ValidationError, not a client that fails later.
        requireId('endpointId', endpointId);
        client = createEndpointClient(core, endpointId);
        if (endpoints.size >= ENDPOINT_CACHE_SIZE) endpoints.delete(endpoints.keys().next().value!);
      }
      endpoints.set(endpointId, client);
      lastId = endpointId;
      last = client;
      // The types are the caller's view of the same endpoint; nothing at run time depends on them.
      return client as unknown as EndpointClient<Input, Output, Chunk>;
    },
    loadBalanced: (endpointId, options) => createLoadBalancedClient(core, endpointId, options),
  };
}

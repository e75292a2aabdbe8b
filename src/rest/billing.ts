import type { CallOptions } from '../transport/options.js';
import { isRecord } from '../transport/shape.js';
import type { RestRequester } from './rest-request.js';
import type {
  BillingQuery,
  ClusterBillingQuery,
  EndpointBillingQuery,
  ListBillingResponse,
  ListClusterBillingResponse,
  ListEndpointBillingResponse,
  ListNetworkVolumeBillingResponse,
  ListPodBillingResponse,
  ListServerlessBillingResponse,
  NetworkVolumeBillingQuery,
  PodBillingQuery,
  ServerlessBillingQuery,
} from './types.js';

/** Billing history; each resolves to `{ records, metadata }`. */
export interface RestBillingApi {
  /** `GET /billing`: the account's totals. */
  summary(query?: BillingQuery, options?: CallOptions): Promise<ListBillingResponse>;
  pods(query?: PodBillingQuery, options?: CallOptions): Promise<ListPodBillingResponse>;
  /** Your serverless endpoints (v1's `billing/endpoints`). */
  serverless(query?: ServerlessBillingQuery, options?: CallOptions): Promise<ListServerlessBillingResponse>;
  /** Public endpoints you called. */
  endpoints(query?: EndpointBillingQuery, options?: CallOptions): Promise<ListEndpointBillingResponse>;
  networkVolumes(query?: NetworkVolumeBillingQuery, options?: CallOptions): Promise<ListNetworkVolumeBillingResponse>;
  clusters(query?: ClusterBillingQuery, options?: CallOptions): Promise<ListClusterBillingResponse>;
}

export function createRestBillingApi(rest: RestRequester): RestBillingApi {
  const history = async <T>(path: string, query: object | undefined, options?: CallOptions): Promise<T> => {
    const call = { method: 'GET' as const, path, route: `GET ${path}`, query, idempotent: true };
    const body = await rest.object<Record<string, unknown>>(call, options, 'object');
    if (!Array.isArray(body.records) || !isRecord(body.metadata)) throw rest.core.wrongShape(rest.http(call, options), 'an object with records[] and metadata', body);
    return { records: body.records, metadata: body.metadata } as T;
  };
  return {
    summary: (query, options) => history('/billing', query, options),
    pods: (query, options) => history('/billing/pods', query, options),
    serverless: (query, options) => history('/billing/serverless', query, options),
    endpoints: (query, options) => history('/billing/endpoints', query, options),
    networkVolumes: (query, options) => history('/billing/network-volumes', query, options),
    clusters: (query, options) => history('/billing/clusters', query, options),
  };
}

import type { CallOptions } from '../transport/options.js';
import { isRecord } from '../transport/shape.js';
import { numericFields, readableNumbers } from './normalize.js';
import type { ItemShape, RestRequester } from './rest-request.js';
import type { BillingRecord, EndpointBillingQuery, NetworkVolumeBillingQuery, NetworkVolumeBillingRecord, PodBillingQuery } from './types.js';

export interface RestBillingApi {
  pods(query?: PodBillingQuery, options?: CallOptions): Promise<BillingRecord[]>;
  endpoints(query?: EndpointBillingQuery, options?: CallOptions): Promise<BillingRecord[]>;
  networkVolumes(query?: NetworkVolumeBillingQuery, options?: CallOptions): Promise<NetworkVolumeBillingRecord[]>;
}

const AMOUNT_FIELDS = ['amount', 'highPerformanceStorageAmount'];
const RECORD: ItemShape = { is: (value) => isRecord(value) && readableNumbers(value, AMOUNT_FIELDS), expected: 'an object with its amounts as numbers' };

export function createRestBillingApi(rest: RestRequester): RestBillingApi {
  const history = async <T>(path: string, query: object | undefined, options?: CallOptions): Promise<T[]> => {
    const records = await rest.list<T>({ method: 'GET', path, route: `GET ${path}`, query, idempotent: true }, options, RECORD);
    return records.map((r) => numericFields(r, AMOUNT_FIELDS));
  };
  return {
    pods: (query, options) => history<BillingRecord>('/billing/pods', query, options),
    endpoints: (query, options) => history<BillingRecord>('/billing/endpoints', query, options),
    networkVolumes: (query, options) => history<NetworkVolumeBillingRecord>('/billing/networkvolumes', query, options),
  };
}

import type { CallOptions } from '../transport/options.js';
import { crud, subList, type CrudApi } from './crud.js';
import type { RestRequester } from './rest-request.js';
import type { Cluster, CreateClusterInput, Pod, UpdateClusterInput } from './types.js';

export interface RestClustersApi extends CrudApi<Cluster, CreateClusterInput, UpdateClusterInput> {
  /** The cluster's pods. */
  pods(id: string, options?: CallOptions): Promise<Pod[]>;
}

export function createRestClustersApi(rest: RestRequester): RestClustersApi {
  return {
    ...crud<Cluster, CreateClusterInput, UpdateClusterInput>(rest, { base: '/clusters', listKey: 'clusters', createSchema: 'CreateClusterRequest', updateSchema: 'UpdateClusterRequest' }),
    pods: subList<Pod>(rest, '/clusters', 'pods'),
  };
}

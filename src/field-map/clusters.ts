// Cluster (`myself { clusters cluster(id) }`) and, once the schema has them, createCluster and
// deleteCluster. The parent object is REST v2's `Cluster` (`GET /v2/clusters/{id}`).
import { call, decisive, derived, holding, path, readPath, WrongRestShape, type Derivations, type FieldMap } from './types.js';

/** GraphQL's ClusterType has no RAY: REST v2's Ray clusters answer null there. */
const GRAPHQL_CLUSTER_TYPES = new Set(['APPLICATION', 'TRAINING', 'SLURM']);

export const clusterTypes: FieldMap = {
  Cluster: {
    rest: 'Cluster',
    scope: 'read',
    fields: {
      id: path('id'),
      name: path('name'),
      userId: decisive(),
      gpuTypeId: path('compute.gpuTypeId'),
      gpuDisplayName: call(['GET /v2/catalog/gpus']),
      podCount: path('compute.podCount'),
      gpuCountPerPod: path('compute.gpuCountPerPod'),
      type: derived('Cluster.type', ['type']),
      templateId: path('template'),
      createdAt: path('createdAt'),
      pods: holding('Pod', call(['GET /v2/clusters/{id}/pods'])),
    },
  },
};

export const clusterDerivations: Derivations = {
  'Cluster.type': (cluster) => {
    const type = readPath(cluster, 'type');
    if (type === undefined || type === null) return null;
    if (typeof type !== 'string') throw new WrongRestShape('type', 'a cluster type');
    return GRAPHQL_CLUSTER_TYPES.has(type) ? type : null;
  },
};

// Cluster over REST v2: `myself { clusters }`, a cluster's GPU name and its pods. Answers are REST v2
// `Cluster` and `Pod` objects; the generic resolver maps them through the field map.
import type { Cluster, Pod } from '../../../rest/types.js';
import { sharedCatalog } from '../pod-resolvers.js';
import type { ResolverContext, ResolverTable } from '../resolver-types.js';

export const listClusters = (ctx: ResolverContext): Promise<Cluster[]> => ctx.once('GET /v2/clusters', () => ctx.rest.clusters.list(ctx.options));

const idOf = (source: unknown): string | undefined => {
  const id = (source as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : undefined;
};

export const clusterResolvers: ResolverTable = {
  User: {
    clusters: (_args, ctx) => listClusters(ctx),
  },
  Cluster: {
    gpuDisplayName: async (_args, ctx, _info, source) => {
      const gpu = (source as { compute?: { gpuTypeId?: unknown } } | null)?.compute?.gpuTypeId;
      if (typeof gpu !== 'string') return null;
      const types = await sharedCatalog(ctx, ctx.rest.catalog).gpus(undefined, ctx.options);
      return types.find((t) => t.id === gpu)?.name ?? null;
    },
    pods: (_args, ctx, _info, source): Promise<Pod[]> | null => {
      const id = idOf(source);
      return id ? ctx.once(`GET /v2/clusters/${id}/pods`, () => ctx.rest.clusters.pods(id, ctx.options)) : null;
    },
  },
};

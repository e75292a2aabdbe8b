/**
 * Methods that still throw a TypeError on some malformed answers on this branch, because the
 * surface reads fields without a shape check. Each belongs to the surface's owner (issue 13, part 4:
 * "every answer's shape checked where it is read"). For these the fuzz tests count TypeErrors and
 * print them instead of failing; hangs and other non-RunpodErrors still fail. Remove a row once its
 * surface checks shapes: the soak prints rows that have become clean.
 */
export const KNOWN_GAPS: Readonly<Record<string, string>> = {
  'pods.list': 'src/graphql/pods.ts: non-array myself.pods',
  'gpuTypes.list': 'src/graphql/gpu-types.ts: non-array gpuTypes',
  'gpuTypes.offers': 'src/graphql/gpu-types.ts: non-array gpuTypes / availableGpuCounts',
  'restV1.pods.list': 'src/rest-v1 (list): non-array answer, null items',
  'restV1.pods.create': 'src/rest-v1/pods.ts normalizePod: null or empty body',
  'restV1.pods.get': 'src/rest-v1/pods.ts normalizePod: null or empty body',
  'restV1.templates.list': 'src/rest-v1/crud-resource.ts list: non-array answer',
  'restV1.billing.pods': 'src/rest-v1/billing.ts: non-array answer',
};

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
  'rest.pods.list': 'src/rest (REST v1 list): non-array answer, null items',
  'rest.pods.create': 'src/rest/pods.ts normalizePod: null or empty body',
  'rest.pods.get': 'src/rest/pods.ts normalizePod: null or empty body',
  'rest.pods.update': 'src/rest/pods.ts normalizePod: null or empty body',
  'rest.endpoints.list': 'src/rest/crud-resource.ts list: non-array answer',
  'rest.templates.list': 'src/rest/crud-resource.ts list: non-array answer',
  'rest.networkVolumes.list': 'src/rest/crud-resource.ts list: non-array answer',
  'rest.billing.pods': 'src/rest/billing.ts: non-array answer',
  'endpoint.runSync': 'src/serverless/queue.ts: null or empty body (reads .status)',
  'job.wait': 'src/serverless/queue.ts: null or empty status body (reads .status)',
  'job.stream': 'src/serverless/queue.ts: null or empty stream page (reads .stream)',
};

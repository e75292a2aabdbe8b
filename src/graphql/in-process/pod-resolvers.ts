// The resolvers of the pod and catalog fields whose map entry is a `call` (src/field-map/pod.ts,
// catalog.ts): each answers the REST v2 object the field's type is mapped from, and the generic
// resolver follows the map from there. Creates, stops and resumes go through rp.pods (its REST
// path: one create marker per call, a lookup after an ambiguous failure, never resent).
import { NotFoundError, TransportUnsupportedError } from '../../errors.js';
import { readOverRest, type GpuRestSource } from '../../gpu-types/rest-path.js';
import type { GpuTypesListInput } from '../../gpu-types/types.js';
import { restPodOf } from '../../pods/rest-path.js';
import type { DeployCpuPodInput, DeployPodInput, ResumePodInput } from '../../pods/types.js';
import type { RestCatalogApi } from '../../rest/catalog.js';
import type { RestRequester } from '../../rest/rest-request.js';
import type { ResolverContext, ResolverTable } from './resolver-types.js';
import { gpuAvailabilityRead, stockInDataCenters, stockInGpuCatalog } from './resolvers/catalog.js';
import { inputOf } from './resolvers/inputs.js';
import { needsMountPath, podEditBody } from './resolvers/pods.js';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** graphql-js coerces input objects with a null prototype; rp.pods' rules want plain ones. */
const plain = <T>(value: unknown): T => (isRecord(value) ? ({ ...value } as T) : (value as T));

/** The data centres with their GPU stock: one read per document, whichever field asks. */
const DATA_CENTERS_WITH_STOCK = { include: ['GPU_AVAILABILITY'] } as const;

/** A catalog whose reads are shared within one document, keyed by route and query. */
export function sharedCatalog(ctx: ResolverContext, catalog: RestCatalogApi): RestCatalogApi {
  const memo =
    <A extends unknown[], R>(name: string, read: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      // The call options are the document's, the same for every read: the key is the query.
      ctx.once(`catalog ${name} ${JSON.stringify(args.slice(0, -1))}`, () => read(...args));
  return {
    gpus: memo('gpus', (q, o) => catalog.gpus(q, o)),
    gpu: memo('gpu', (id, q, o) => catalog.gpu(id, q, o)),
    cpus: memo('cpus', (q, o) => catalog.cpus(q, o)),
    cpu: memo('cpu', (id, q, o) => catalog.cpu(id, q, o)),
    dataCenters: memo('dataCenters', (q, o) => catalog.dataCenters(q, o)),
    dataCenter: memo('dataCenter', (id, q, o) => catalog.dataCenter(id, q, o)),
    templates: memo('templates', (q, o) => catalog.templates(q, o)),
  };
}

/** The REST v2 pod `podId`, read once per document, or null when the account has none. */
function readPod(ctx: ResolverContext, podId: string): Promise<unknown> {
  return ctx.once(`pod ${podId}`, () =>
    ctx.rest.pods.get(podId, ctx.options).catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    }),
  );
}

/** The REST v2 pod an rp.pods answer came from; read again when that answer did not carry one (a 409 on stop). */
async function restPodFor(ctx: ResolverContext, answer: { id: string } | null): Promise<unknown> {
  if (!answer) return null;
  return restPodOf(answer) ?? ctx.rest.pods.get(answer.id, ctx.options);
}

export function createPodResolvers(requester: RestRequester, catalog: RestCatalogApi): ResolverTable {
  const source: GpuRestSource = { rest: requester, catalog };
  const gpuSource = (ctx: ResolverContext): GpuRestSource => ({ rest: source.rest, catalog: sharedCatalog(ctx, source.catalog) });
  const offers = (ctx: ResolverContext, input: GpuTypesListInput, gpuCount: number) =>
    ctx.once(`gpu offers ${JSON.stringify([input, gpuCount])}`, () => readOverRest(gpuSource(ctx), input, gpuCount, ctx.options));

  return {
    Query: {
      // The account itself is account-resolvers.ts's (it wins where both answer); this empty
      // parent is enough for myself { pods }.
      myself: () => ({}),
      pod: ({ input }, ctx) => readPod(ctx, String((input as { podId: string }).podId)),
      gpuTypes: async ({ input }, ctx) => (await offers(ctx, plain<GpuTypesListInput | null>(input) ?? {}, 1)).map((o) => o.type),
      cpuTypes: (_args, ctx) => sharedCatalog(ctx, source.catalog).cpus(undefined, ctx.options),
      dataCenters: (_args, ctx) => sharedCatalog(ctx, source.catalog).dataCenters({ include: [...DATA_CENTERS_WITH_STOCK.include] }, ctx.options),
    },
    DataCenter: {
      gpuAvailability: async ({ input }, ctx, _info, centre) => {
        const read = gpuAvailabilityRead(input);
        const id = isRecord(centre) ? centre.id : undefined;
        const catalog = sharedCatalog(ctx, source.catalog);
        if (read.kind === 'gpus') return stockInGpuCatalog(await catalog.gpus(read.query, ctx.options), id);
        // Query.dataCenters read it already; a data centre reached another way (a volume's) is looked up.
        if (isRecord(centre) && Array.isArray(centre.gpuAvailability)) return centre.gpuAvailability;
        return stockInDataCenters(await catalog.dataCenters({ include: [...DATA_CENTERS_WITH_STOCK.include] }, ctx.options), id);
      },
    },
    GpuAvailability: {
      gpuType: async (_args, ctx, _info, stock) => {
        const id = isRecord(stock) ? stock.id : undefined;
        return (await sharedCatalog(ctx, source.catalog).gpus(undefined, ctx.options)).find((t) => t.id === id) ?? null;
      },
    },
    User: {
      pods: (_args, ctx) => ctx.once('pods', async () => [...(await ctx.rest.pods.list({ includeClusterPods: true }, ctx.options))]),
    },
    GpuType: {
      lowestPrice: async ({ input }, ctx, _info, parent) => {
        const { gpuCount = 1, ...filters } = plain<Record<string, unknown> | null>(input) ?? {};
        const id = isRecord(parent) ? parent.id : undefined;
        return (await offers(ctx, filters as GpuTypesListInput, gpuCount as number)).find((o) => o.type.id === id)?.lowestPrice ?? null;
      },
    },
    PodMachineInfo: {
      gpuDisplayName: async (_args, ctx, _info, pod) => {
        const id = isRecord(pod) && isRecord(pod.gpu) ? pod.gpu.id : undefined;
        if (typeof id !== 'string') return null;
        const types = await sharedCatalog(ctx, source.catalog).gpus(undefined, ctx.options);
        return types.find((t) => t.id === id)?.name ?? null;
      },
    },
    Mutation: {
      podFindAndDeployOnDemand: async ({ input }, ctx) => restPodFor(ctx, await ctx.pods.deploy(plain<DeployPodInput>(input ?? {}), ctx.options)),
      deployCpuPod: async ({ input }, ctx) => restPodFor(ctx, await ctx.pods.deployCpu(plain<DeployCpuPodInput>(input), ctx.options)),
      podResume: async ({ input }, ctx) => restPodFor(ctx, await ctx.pods.resume(plain<ResumePodInput>(input), ctx.options)),
      podStop: async ({ input }, ctx) => {
        const { podId, incrementVersion } = input as { podId: string; incrementVersion?: boolean | null };
        if (incrementVersion) {
          throw new TransportUnsupportedError(['input.incrementVersion'], 'podStop over REST v2 cannot honour incrementVersion; nothing was sent. To send it: leave incrementVersion out of the input');
        }
        return restPodFor(ctx, await ctx.pods.stop(podId, ctx.options));
      },
      // PATCH /v2/pods/{id} recreates the container, as podEditJob does; sent once (never resent).
      podEditJob: async ({ input }, ctx) => {
        const fields = inputOf(input);
        const podId = String(fields.podId);
        let mountPath: string | undefined;
        if (needsMountPath(fields)) {
          const current = await readPod(ctx, podId);
          const path = isRecord(current) && isRecord(current.mounts) && isRecord(current.mounts.persistent) ? current.mounts.persistent.path : undefined;
          mountPath = typeof path === 'string' ? path : undefined;
        }
        return ctx.rest.pods.update(podId, podEditBody(fields, mountPath), ctx.options);
      },
      podTerminate: async ({ input }, ctx) => {
        await ctx.pods.terminate((input as { podId: string }).podId, ctx.options);
        return null;
      },
    },
  };
}

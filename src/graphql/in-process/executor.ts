// schema.graphql executed in process over REST v2 (graphql-js `execute`), loaded on first use.
// The resolvers own no mapping: pods come from rp.pods (its REST path maps them, its create path
// keeps the create-once rule), GPU types from the REST path of rp.gpuTypes, and what neither maps
// is a field error naming the field, never a made-up value. Run-time helpers come in a kit, so
// no shared chunk is split out of the start-up bundle on this module's account.
import { execute, getOperationAST, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLFieldResolver, type GraphQLResolveInfo } from 'graphql';
import type { RunpodError, TransportUnsupportedError } from '../../errors.js';
import type { RestPathKit as GpuRestPathKit } from '../../gpu-types/rest-path.js';
import { listOverRest } from '../../gpu-types/rest-path.js';
import type { GpuType, GpuTypesListInput } from '../../gpu-types/types.js';
import type { DeployCpuPodInput, DeployPodInput, Pod, PodsApi, ResumePodInput } from '../../pods/types.js';
import type { RestCatalogApi } from '../../rest/catalog.js';
import type { CallOptions } from '../../transport/options.js';
import { buildExecutableSchema, createDocumentPreparer, isDocument, type PreparedDocument } from '../executable-schema.js';

/** What the executor uses of the client, handed in by it. */
export interface InProcessKit {
  /** The client's rp.pods: on REST v2 whenever this executor runs (it runs only then). */
  readonly pods: PodsApi;
  /** The REST path of rp.gpuTypes (its catalog is wrapped per document, so each query is read once). */
  readonly gpuTypes: GpuRestPathKit;
  readonly TransportUnsupportedError: typeof TransportUnsupportedError;
  readonly isRunpodError: (err: unknown) => err is RunpodError;
}

/** One operation to run. */
export interface InProcessRequest {
  readonly document: DocumentNode;
  readonly variables?: Record<string, unknown> | undefined;
  readonly operationName?: string | undefined;
  readonly options?: CallOptions | undefined;
}

export interface InProcessExecutor {
  /** Parses and validates a document against schema.graphql, once per distinct text. */
  prepare(source: string): PreparedDocument;
  /** The operation `operationName` picks (or the only one), or undefined. */
  operation(document: DocumentNode, operationName?: string): ReturnType<typeof getOperationAST>;
  run(request: InProcessRequest): Promise<ExecutionResult>;
}

/**
 * Per-document reads: each distinct read once, whichever fields ask for it. The GPU side is made
 * on the first GPU field: most documents read pods only, and pay nothing for it.
 */
interface DocumentContext {
  readonly options: CallOptions;
  podList?: Promise<Pod[]>;
  readonly pods: Map<string, Promise<Pod | null>>;
  gpu?: { readonly kit: GpuRestPathKit; readonly lists: Map<string, Promise<GpuType[]>> };
}

type Resolver = (args: Record<string, unknown>, ctx: DocumentContext, info: GraphQLResolveInfo, source: unknown) => unknown;

/** A catalog whose reads are shared within one document, keyed by route and query. */
function memoCatalog(catalog: RestCatalogApi): RestCatalogApi {
  const reads = new Map<string, Promise<unknown>>();
  const memo =
    <A extends unknown[], R>(name: string, read: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      // The call options are the document's, the same for every read: the key is the query.
      const key = `${name} ${JSON.stringify(args.slice(0, -1))}`;
      let hit = reads.get(key) as Promise<R> | undefined;
      if (!hit) {
        hit = read(...args);
        reads.set(key, hit);
      }
      return hit;
    };
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

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** graphql-js coerces input objects with a null prototype; rp.pods' rules want plain ones. */
const plain = <T>(value: unknown): T => (isRecord(value) ? ({ ...value } as T) : (value as T));

export function createInProcessExecutor(kit: InProcessKit): InProcessExecutor {
  const schema = buildExecutableSchema();
  const prepare = createDocumentPreparer(schema);
  const { pods } = kit;

  /** A field REST v2 gives no value for: an error naming it (never an invented value). */
  const noSource = (info: GraphQLResolveInfo): never => {
    const field = `${info.parentType.name}.${info.fieldName}`;
    throw new kit.TransportUnsupportedError(
      [field],
      `${field} has no REST v2 source this client maps, so it cannot be answered in process (RunPod's GraphQL is retired or not in use); leave it out of the document`,
    );
  };

  const gpuList = (ctx: DocumentContext, input: GpuTypesListInput, gpuCount: number): Promise<GpuType[]> => {
    const key = JSON.stringify([input, gpuCount]);
    const gpu = (ctx.gpu ??= { kit: { ...kit.gpuTypes, catalog: memoCatalog(kit.gpuTypes.catalog) }, lists: new Map() });
    let hit = gpu.lists.get(key);
    if (!hit) {
      hit = listOverRest(gpu.kit, input, gpuCount, ctx.options);
      gpu.lists.set(key, hit);
    }
    return hit;
  };

  const podById = (ctx: DocumentContext, podId: unknown): Promise<Pod | null> => {
    const id = String(podId);
    let hit = ctx.pods.get(id);
    if (!hit) {
      hit = pods.get(id, ctx.options);
      ctx.pods.set(id, hit);
    }
    return hit;
  };

  const listPods = (ctx: DocumentContext) => (ctx.podList ??= pods.list(ctx.options));

  const resolvers: Record<string, Record<string, Resolver>> = {
    Query: {
      gpuTypes: async ({ input }, ctx) => {
        const filter = plain<Record<string, unknown> | null>(input) ?? {};
        return gpuList(ctx, filter as GpuTypesListInput, 1);
      },
      // REST v2 has no user route: only the account's pods are known.
      myself: () => ({}),
      pod: ({ input }, ctx) => podById(ctx, (input as { podId: string }).podId),
    },
    User: {
      pods: (_args, ctx) => listPods(ctx),
    },
    GpuType: {
      lowestPrice: async ({ input }, ctx, _info, source) => {
        const parent = source as GpuType | null;
        const { gpuCount = 1, ...filters } = plain<Record<string, unknown> | null>(input) ?? {};
        const listed = await gpuList(ctx, filters as GpuTypesListInput, gpuCount as number);
        return listed.find((t) => t.id === parent?.id)?.lowestPrice ?? null;
      },
    },
    Mutation: {
      // Through rp.pods: one create marker per call, a lookup after an ambiguous failure, never resent.
      podFindAndDeployOnDemand: ({ input }, ctx) => pods.deploy(plain<DeployPodInput>(input ?? {}), ctx.options),
      deployCpuPod: ({ input }, ctx) => pods.deployCpu(plain<DeployCpuPodInput>(input), ctx.options),
      podResume: ({ input }, ctx) => pods.resume(plain<ResumePodInput>(input), ctx.options),
      podStop: async ({ input }, ctx) => {
        const { podId, incrementVersion } = input as { podId: string; incrementVersion?: boolean | null };
        if (incrementVersion) {
          throw new kit.TransportUnsupportedError(['input.incrementVersion'], 'podStop over REST v2 cannot honour incrementVersion; nothing was sent. Leave it out');
        }
        return pods.stop(podId, ctx.options);
      },
      podTerminate: async ({ input }, ctx) => {
        await pods.terminate((input as { podId: string }).podId, ctx.options);
        return null;
      },
    },
  };

  /**
   * Every field: its resolver, else the mapped value the source holds, else an error naming it.
   * A mapped object holds every field its mapping gives (null where the mapping documents null).
   */
  const fieldResolver: GraphQLFieldResolver<unknown, DocumentContext> = (source, args, ctx, info) => {
    const own = resolvers[info.parentType.name]?.[info.fieldName];
    if (own) return own(args, ctx, info, source);
    if (isRecord(source) && Object.hasOwn(source, info.fieldName)) return source[info.fieldName];
    return noSource(info);
  };

  return {
    prepare,
    operation: (document, operationName) => getOperationAST(document, operationName),
    async run({ document, variables, operationName, options = {} }) {
      const { idempotent: _idempotent, ...callOptions } = options as CallOptions & { idempotent?: unknown };
      const ctx: DocumentContext = { options: callOptions, pods: new Map() };
      const result = await execute({ schema, document, rootValue: {}, contextValue: ctx, variableValues: variables, operationName, fieldResolver });
      if (!result.errors) return result;
      // A RunpodError keeps its class and is named in `extensions.code`; its message is already scrubbed.
      const errors = result.errors.map((e) => {
        const original = e.originalError;
        if (!kit.isRunpodError(original)) return e;
        const fields = (original as { fields?: readonly string[] }).fields;
        return new GraphQLError(original.message, {
          path: e.path,
          originalError: original,
          extensions: { code: original.name, ...(fields && { fields: [...fields] }) },
        });
      });
      return { ...result, errors };
    },
  };
}

export { isDocument };

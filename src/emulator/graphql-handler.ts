import {
  execute,
  getNamedType,
  isObjectType,
  Kind,
  parse,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type OperationDefinitionNode,
} from 'graphql';
import { RunpodError } from '../errors.js';
import { NoSourceWarnings, withWarnings } from '../field-map/types.js';
import { readsOnlyCatalog } from '../gateway/field-scopes.js';
import { buildExecutableSchema, checkCpuInstanceId, createDocumentPreparer } from '../graphql/executable-schema.js';
import { pubKeyList } from '../graphql/in-process/resolvers/account.js';
import { endpointBody } from '../graphql/in-process/resolvers/endpoints.js';
import { inputOf, isSet } from '../graphql/in-process/resolvers/inputs.js';
import { needsMountPath, podEditBody } from '../graphql/in-process/resolvers/pods.js';
import { templateBody } from '../graphql/in-process/resolvers/templates.js';
import { badRequest, EmulatorHttpError, GRAPHQL_NO_CAPACITY, GRAPHQL_SPOT_DISCONTINUED, NoCapacityError, notFound } from './errors.js';
import type { Account, Platform } from './platform.js';
import { publicTemplate } from './public-templates.js';
import { CPU_FLAVORS, dataCenters, dataCenterView, gpuView } from './rest-v2/catalog.js';
import { templateView } from './rest-v2/templates.js';
import { graphqlField, GraphQLView, podGraphQLView, type GraphQLContext, type ViewState } from './views.js';

/**
 * The emulator's REST v2 routes, called in process as `account` (`GET /templates`): the answer's
 * status and JSON body (null for an empty one).
 */
export type RestV2InProcess = (account: Account, method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/** A request's context: REST v2 in process as the caller, a refusal thrown with REST's own message. */
function graphqlContext(platform: Platform, account: Account | undefined, restV2: RestV2InProcess): GraphQLContext {
  return {
    platform,
    account,
    warnings: new NoSourceWarnings(),
    async rest(method, path, body) {
      if (!account) throw new EmulatorHttpError(401, 'Unauthorized: missing or unknown API key', 'UNAUTHENTICATED');
      const answer = await restV2(account, method, path, body);
      if (answer.status < 400) return answer.body;
      const problem = (answer.body ?? {}) as { detail?: unknown; errors?: unknown };
      const detail = typeof problem.detail === 'string' ? problem.detail : `REST v2 answered ${answer.status}`;
      const errors = Array.isArray(problem.errors) ? problem.errors.filter((e): e is string => typeof e === 'string') : [];
      throw new EmulatorHttpError(answer.status, errors.length ? `${detail} ${errors.join('; ')}` : detail, answer.status === 404 ? 'NOT_FOUND' : 'BAD_USER_INPUT');
    },
  };
}

interface DeployInput {
  cloudType?: string;
  computeType?: string;
  containerDiskInGb?: number;
  containerRegistryAuthId?: string;
  dataCenterId?: string;
  dockerArgs?: string;
  env?: Array<{ key: string; value: string } | null>;
  gpuCount?: number;
  gpuTypeId?: string;
  gpuTypeIdList?: Array<string | null>;
  imageName?: string;
  name?: string;
  networkVolumeId?: string;
  ports?: string;
  templateId?: string;
  volumeInGb?: number;
  volumeMountPath?: string;
  allowedCudaVersions?: Array<string | null>;
  minVcpuCount?: number;
  minMemoryInGb?: number;
}

/** `deployCpuPodInput` as the schema's input type coerces it (the fields the emulator reads). */
interface DeployCpuInput {
  instanceId: string;
  name?: string;
  imageName?: string;
  templateId?: string;
  cloudType?: string;
  containerDiskInGb?: number;
  volumeInGb?: number;
  volumeMountPath?: string;
  networkVolumeId?: string;
  dataCenterId?: string;
  ports?: string;
  env?: Array<{ key: string; value: string } | null>;
  dockerArgs?: string;
}

interface LowestPriceInput {
  gpuCount: number;
  secureCloud?: boolean | null;
  dataCenterId?: string | null;
  allowedCudaVersions?: Array<string | null> | null;
  cudaVersion?: string | null;
}

const compact = <T>(list: Array<T | null> | null | undefined): T[] => (list ?? []).filter((x): x is T => x !== null);

type Root = (args: Record<string, unknown>, ctx: GraphQLContext) => unknown;

/** The caller's account: every root field but the catalog's needs one, and the handler checks it first. */
const own = (ctx: GraphQLContext): Account => {
  if (!ctx.account) throw new EmulatorHttpError(401, 'Unauthorized: missing or unknown API key', 'UNAUTHENTICATED');
  return ctx.account;
};

/** A REST v2 answer (create, update) as a view of the caller's account. */
const answer = (rest: unknown, ctx: GraphQLContext): GraphQLView | null => (rest !== null && typeof rest === 'object' ? new GraphQLView(rest as Record<string, unknown>, { account: ctx.account }) : null);

/** GraphQL's save: with `input.id` an update (PATCH), else a create (POST), through REST v2's route. */
const saveOver =
  (route: string, body: (input: ReturnType<typeof inputOf>, update: boolean) => unknown): Root =>
  async ({ input }, ctx) => {
    own(ctx);
    const fields = inputOf(input);
    const update = isSet(fields.id);
    return answer(await ctx.rest(update ? 'PATCH' : 'POST', update ? `${route}/${encodeURIComponent(String(fields.id))}` : route, body(fields, update)), ctx);
  };

/** The container settings both deploys take, as the platform's deploy request. */
const containerOf = (i: DeployInput | DeployCpuInput) => ({
  name: i.name,
  imageName: i.imageName,
  templateId: i.templateId || undefined,
  cloudType: i.cloudType,
  dataCenterIds: i.dataCenterId ? [i.dataCenterId] : undefined,
  containerDiskInGb: i.containerDiskInGb,
  volumeInGb: i.volumeInGb,
  volumeMountPath: i.volumeMountPath,
  networkVolumeId: i.networkVolumeId || undefined,
  env: Object.fromEntries(compact(i.env).map((e) => [e.key, e.value])),
  ports: i.ports ? i.ports.split(',').map((p) => p.trim()) : undefined,
  dockerArgs: i.dockerArgs,
});

/**
 * The root fields. Pods go through the platform's rules (GraphQL's deploy inputs are not REST
 * v2's); templates, endpoints, network volumes, registry credentials and SSH keys go through the
 * emulator's own REST v2 routes in process, so both interfaces share one store and one set of rules.
 * Each answer is a REST v2 view, read through the field map (views.ts).
 */
function rootFields(platform: Platform): Record<'Query' | 'Mutation', Record<string, Root>> {
  return {
    Query: {
      gpuTypes: ({ input }) => {
        const filter = (input ?? {}) as { id?: string | null; ids?: string[] | null };
        return platform.gpuTypes
          .filter((t) => (!filter.id || t.id === filter.id) && (!filter.ids || filter.ids.includes(t.id)))
          .map((t) => new GraphQLView(gpuView(platform, t, { count: 1 }, false), {}));
      },
      cpuTypes: () => CPU_FLAVORS.map((f) => new GraphQLView({ ...f }, {})),
      // REST v2's data centre view with its GPU stock, as the in-process executor reads it.
      dataCenters: () => dataCenters(platform).map((d) => new GraphQLView(dataCenterView(platform, d, ['GPU_AVAILABILITY']), {})),
      myself: (_args, ctx) => new GraphQLView({}, { account: own(ctx) }),
      pod: ({ input }, ctx) => {
        const account = own(ctx);
        const pod = platform.getPod(account, String((input as { podId?: unknown } | null)?.podId ?? ''));
        return pod ? podGraphQLView(platform, account, pod) : null;
      },
      // The account's own templates, else the platform's public ones (runpod-ubuntu), as a deploy finds them.
      podTemplate: async ({ id }, ctx) => {
        own(ctx);
        const template = publicTemplate(String(id));
        try {
          return answer(await ctx.rest('GET', `/templates/${encodeURIComponent(String(id))}`), ctx);
        } catch (err) {
          if (err instanceof EmulatorHttpError && err.status === 404) return template ? new GraphQLView(templateView(template), {}) : null;
          throw err;
        }
      },
    },
    Mutation: {
      podFindAndDeployOnDemand: ({ input }, ctx) => {
        const account = own(ctx);
        const i = (input ?? {}) as DeployInput;
        const pod = platform.deploy(account, {
          ...containerOf(i),
          gpuTypeIds: i.gpuTypeId ? [i.gpuTypeId] : compact(i.gpuTypeIdList),
          gpuCount: i.gpuCount,
          computeType: i.computeType,
          allowedCudaVersions: i.allowedCudaVersions ? compact(i.allowedCudaVersions) : undefined,
          // Per-pod totals, as the share per GPU they ask of a pod of gpuCount GPUs (fractions allowed).
          minVcpuPerGpu: i.minVcpuCount ? i.minVcpuCount / Math.max(1, i.gpuCount ?? 1) : undefined,
          minMemoryPerGpuInGb: i.minMemoryInGb ? i.minMemoryInGb / Math.max(1, i.gpuCount ?? 1) : undefined,
          containerRegistryAuthId: i.containerRegistryAuthId || undefined,
        });
        return podGraphQLView(platform, account, pod);
      },
      deployCpuPod: ({ input }, ctx) => {
        const account = own(ctx);
        const i = input as unknown as DeployCpuInput;
        checkCpuInstanceId(i.instanceId);
        const pod = platform.deploy(account, { ...containerOf(i), gpuTypeIds: [], computeType: 'CPU' });
        return podGraphQLView(platform, account, pod);
      },
      podResume: ({ input }, ctx) => {
        const { podId, gpuCount } = input as { podId: string; gpuCount?: number | null };
        return podGraphQLView(platform, own(ctx), platform.startPod(own(ctx), podId, gpuCount));
      },
      podStop: ({ input }, ctx) => podGraphQLView(platform, own(ctx), platform.stopPod(own(ctx), (input as { podId: string }).podId)),
      podTerminate: ({ input }, ctx) => {
        platform.terminatePod(own(ctx), (input as { podId: string }).podId);
        return null;
      },
      // The same body the in-process executor sends, through the emulator's own PATCH route
      // (which recreates the container, as production's podEditJob does).
      podEditJob: async ({ input }, ctx) => {
        const account = own(ctx);
        const fields = inputOf(input);
        const podId = String(fields.podId);
        const pod = platform.getPod(account, podId);
        // The input is checked first, as the in-process executor does: a refusal names the input.
        const body = podEditBody(fields, needsMountPath(fields) && pod && pod.volumeInGb > 0 ? pod.volumeMountPath : undefined);
        if (!pod) throw notFound('pod', podId);
        await ctx.rest('PATCH', `/pods/${encodeURIComponent(podId)}`, body);
        return podGraphQLView(platform, account, platform.getPod(account, podId) ?? pod);
      },
      // Spot is discontinued: production refuses both, and so does the emulator (never a silent null).
      podRentInterruptable: (_args, ctx) => {
        own(ctx);
        throw new EmulatorHttpError(400, GRAPHQL_SPOT_DISCONTINUED);
      },
      podBidResume: (_args, ctx) => {
        own(ctx);
        throw new EmulatorHttpError(400, GRAPHQL_SPOT_DISCONTINUED);
      },

      // The same GraphQL-to-REST input mapping the in-process executor sends (one mapping).
      saveTemplate: saveOver('/templates', templateBody),
      deleteTemplate: async ({ templateName }, ctx) => {
        const named = [...own(ctx).templates.values()].filter((t) => t.name === templateName);
        if (named.length === 0) throw badRequest(`Template ${String(templateName)} not found`);
        for (const t of named) await ctx.rest('DELETE', `/templates/${encodeURIComponent(t.id)}`);
        return null;
      },
      saveEndpoint: saveOver('/serverless', endpointBody),
      deleteEndpoint: async ({ id }, ctx) => {
        own(ctx);
        await ctx.rest('DELETE', `/serverless/${encodeURIComponent(String(id))}`);
        return null;
      },
      updateEndpointTemplate: async ({ input }, ctx) => {
        own(ctx);
        const { endpointId, templateId } = inputOf(input) as { endpointId?: unknown; templateId?: unknown };
        return answer(await ctx.rest('PATCH', `/serverless/${encodeURIComponent(String(endpointId))}`, { templateId }), ctx);
      },
      createNetworkVolume: async ({ input }, ctx) => {
        own(ctx);
        const { name, size, dataCenterId } = inputOf(input);
        return answer(await ctx.rest('POST', '/network-volumes', { name, size, dataCenter: dataCenterId }), ctx);
      },
      updateNetworkVolume: async ({ input }, ctx) => {
        own(ctx);
        const { id, name, size } = inputOf(input);
        const body = { ...(isSet(name) && { name }), ...(typeof size === 'number' && { size }) };
        return answer(await ctx.rest('PATCH', `/network-volumes/${encodeURIComponent(String(id))}`, body), ctx);
      },
      deleteNetworkVolume: async ({ input }, ctx) => {
        own(ctx);
        await ctx.rest('DELETE', `/network-volumes/${encodeURIComponent(String(inputOf(input).id))}`);
        return null;
      },
      saveRegistryAuth: async ({ input }, ctx) => {
        own(ctx);
        const { name, username, password } = inputOf(input);
        return answer(await ctx.rest('POST', '/registries', { name, username, password }), ctx);
      },
      // REST v2 has no update route; production's GraphQL has, so the emulator changes its state.
      updateRegistryAuth: ({ input }, ctx) => {
        const { id, username, password } = inputOf(input) as { id: string; username: string; password: string };
        const auth = own(ctx).registryAuths.get(id);
        if (!auth) throw notFound('registry auth', id);
        auth.username = username;
        auth.password = password;
        return answer({ id: auth.id, name: auth.name }, ctx);
      },
      deleteRegistryAuth: async ({ registryAuthId }, ctx) => {
        own(ctx);
        await ctx.rest('DELETE', `/registries/${encodeURIComponent(String(registryAuthId))}`);
        return null;
      },
      // The account secrets through the emulator's own REST v2 routes (the same bodies as in process).
      secretCreate: async ({ input }, ctx) => {
        own(ctx);
        const { name, value, description } = inputOf(input);
        return answer(await ctx.rest('POST', '/account/secrets', { name, value, ...(typeof description === 'string' && { description }) }), ctx);
      },
      secretValueUpdate: async ({ input }, ctx) => {
        own(ctx);
        const { id, value } = inputOf(input);
        return answer(await ctx.rest('PATCH', `/account/secrets/${encodeURIComponent(String(id))}`, { value }), ctx);
      },
      secretDescriptionUpdate: async ({ input }, ctx) => {
        own(ctx);
        const { id, description } = inputOf(input);
        return answer(await ctx.rest('PATCH', `/account/secrets/${encodeURIComponent(String(id))}`, { description: typeof description === 'string' ? description : '' }), ctx);
      },
      secretDelete: async ({ id }, ctx) => {
        own(ctx);
        await ctx.rest('DELETE', `/account/secrets/${encodeURIComponent(String(id))}`);
        return null;
      },
      updateUserSettings: async ({ input }, ctx) => {
        const account = own(ctx);
        const { pubKey } = inputOf(input);
        if (typeof pubKey === 'string') await ctx.rest('PUT', '/account/ssh-keys', { keys: pubKeyList(pubKey) });
        return new GraphQLView({}, { account });
      },
    },
  };
}

/** Wraps a REST object a field answered as a view, where the field's type is an object type. */
function wrap(value: unknown, type: GraphQLOutputType, state: ViewState): unknown {
  if (value === null || value === undefined || value instanceof GraphQLView) return value;
  if (value instanceof Promise) return value.then((v: unknown) => wrap(v, type, state));
  if (!isObjectType(getNamedType(type))) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => wrap(item, type, state));
  return typeof value === 'object' ? new GraphQLView(value as Record<string, unknown>, state) : value;
}

/** Every field: a root field's resolver, else the view's field (views.ts), else the plain object's own. */
function fieldResolverFor(roots: ReturnType<typeof rootFields>): GraphQLFieldResolver<unknown, GraphQLContext> {
  return (source, args, ctx, info) => {
    const type = info.parentType.name;
    if (type === 'Query' || type === 'Mutation') {
      const root = roots[type][info.fieldName];
      // A root field the emulator does not emulate is an error naming it, never a silent null
      // (a caller would read `null["id"]` as if the platform had answered).
      if (!root) throw new EmulatorHttpError(501, `${type}.${info.fieldName} is not emulated: the emulator answers it with this error, not with a null`, 'NOT_IMPLEMENTED');
      return wrap(root(args, ctx), info.returnType, { account: ctx.account });
    }
    if (source instanceof GraphQLView) return wrap(graphqlField(type, info.fieldName, source, args, ctx, info), info.returnType, source.state);
    return source !== null && typeof source === 'object' ? (source as Record<string, unknown>)[info.fieldName] : undefined;
  };
}

export interface GraphQLAnswer {
  status: number;
  body: ExecutionResult | { errors: Array<{ message: string; extensions?: Record<string, unknown> }> };
}

export { DocumentCache, MAX_CACHED_QUERIES, MAX_CACHED_QUERIES_CHARS, MAX_CACHED_QUERY_CHARS } from '../graphql/executable-schema.js';

/** Executes GraphQL requests against the project's own schema.graphql, with the platform's error shape. */
export function createGraphQLExecutor(platform: Platform, restV2: RestV2InProcess) {
  const schema = buildExecutableSchema();
  const fieldResolver = fieldResolverFor(rootFields(platform));
  const prepare = createDocumentPreparer(schema);

  /**
   * True when the operation `body` asks for reads only what the platform serves without a key: a
   * query of catalog fields only, fragments followed (the field map's `catalog` scope; see
   * src/graphql/README.md, "Public queries").
   */
  function isPublicRead(body: unknown): boolean {
    const request = (body ?? {}) as { query?: unknown; operationName?: unknown };
    if (typeof request.query !== 'string') return false;
    const checked = prepare(request.query);
    let prepared: DocumentNode;
    if ('kind' in checked) prepared = checked;
    else {
      // A document that parses but fails validation (an unknown field under gpuTypes) is still a
      // public read: production answers it with GraphQL's validation error, not 401.
      try {
        prepared = parse(request.query, { noLocation: true });
      } catch {
        return false;
      }
    }
    const operations = prepared.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    const name = typeof request.operationName === 'string' ? request.operationName : undefined;
    const operation = name === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((o) => o.name?.value === name);
    return operation !== undefined && readsOnlyCatalog(schema, prepared, operation);
  }

  return Object.assign(run, { isPublicRead });

  /** Runs a request; `account` is undefined only for a public read (see `isPublicRead`). */
  async function run(account: Account | undefined, body: unknown): Promise<GraphQLAnswer> {
    const request = (body ?? {}) as { query?: unknown; variables?: unknown; operationName?: unknown };
    if (typeof request.query !== 'string') return { status: 400, body: { errors: [{ message: 'Must provide query string.' }] } };
    // As RunPod and the gateway answer it: variables that are not an object are the request's fault.
    if (request.variables !== undefined && request.variables !== null && (typeof request.variables !== 'object' || Array.isArray(request.variables))) {
      return { status: 400, body: { errors: [{ message: 'Variables must be provided as an Object where each property is a variable value.' }] } };
    }
    const prepared = prepare(request.query);
    if (!('kind' in prepared)) {
      return { status: 400, body: { errors: prepared.map((e) => ({ message: e.message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) } };
    }
    const context = graphqlContext(platform, account, restV2);
    const executed = await execute({
      schema,
      document: prepared,
      rootValue: {},
      contextValue: context,
      fieldResolver,
      variableValues: (request.variables ?? undefined) as Record<string, unknown> | undefined,
      operationName: typeof request.operationName === 'string' ? request.operationName : undefined,
    });
    const result = withWarnings(executed, context.warnings);
    // Variables the schema rejects (an unknown input field, a wrong type) never reach a resolver: HTTP 400.
    if (result.errors && result.data === undefined) {
      return { status: 400, body: { errors: result.errors.map((e) => ({ message: e.message, extensions: { code: 'BAD_USER_INPUT' } })) } };
    }
    const errors = result.errors?.map((e) => {
      const original = e.originalError;
      const message = original instanceof NoCapacityError ? GRAPHQL_NO_CAPACITY : e.message;
      // A refusal of the input (a field REST v2 has no place for, a bad value) is the caller's to fix.
      const code = original instanceof EmulatorHttpError ? original.graphqlCode : original instanceof RunpodError ? 'BAD_USER_INPUT' : 'INTERNAL_SERVER_ERROR';
      return { message, path: e.path, extensions: { code } };
    });
    const extensions = result.extensions && { extensions: result.extensions };
    return { status: 200, body: errors ? { errors, data: result.data, ...extensions } : { data: result.data, ...extensions } };
  }
}

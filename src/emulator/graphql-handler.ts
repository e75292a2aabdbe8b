import { execute, Kind, parse, type DocumentNode, type ExecutionResult, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionNode } from 'graphql';
import { buildExecutableSchema, createDocumentPreparer } from '../graphql/executable-schema.js';
import { EmulatorHttpError, GRAPHQL_NO_CAPACITY, NoCapacityError } from './errors.js';
import type { Account, Platform } from './platform.js';
import { graphqlPod } from './views.js';

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

/** `deployCpuPodInput` as the shared schema coerces it (src/graphql/executable-schema.ts). */
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

function rootValue(platform: Platform) {
  return {
    gpuTypes: ({ input }: { input?: { id?: string; ids?: string[] } | null }) =>
      platform.gpuTypes
        .filter((t) => (!input?.id || t.id === input.id) && (!input?.ids || input.ids.includes(t.id)))
        .map((t) => ({
          ...t,
          secureCloud: platform.hosts.some((h) => h.gpuTypeId === t.id && h.secureCloud),
          communityCloud: platform.hosts.some((h) => h.gpuTypeId === t.id && !h.secureCloud),
          maxGpuCount: Math.max(0, ...platform.hosts.filter((h) => h.gpuTypeId === t.id).map((h) => h.gpuTotal)),
          lowestPrice: ({ input: price }: { input?: LowestPriceInput | null }) => {
            const stock = platform.stock(t.id, price ?? { gpuCount: 1 });
            return {
              gpuName: t.displayName,
              gpuTypeId: t.id,
              uninterruptablePrice: stock.price,
              stockStatus: stock.stockStatus,
              availableGpuCounts: stock.availableGpuCounts,
              maxUnreservedGpuCount: stock.maxFreeOnOneHost,
              minMemory: 8,
              minVcpu: 2,
            };
          },
        })),

    myself: (_args: unknown, { account }: { account: Account }) => ({
      id: account.id,
      email: `${account.id}@emulator.local`,
      clientBalance: 100,
      currentSpendPerHr: platform.listPods(account).reduce((sum, p) => sum + (p.desiredStatus === 'RUNNING' ? platform.podCostPerHr(p) : 0), 0),
      pods: platform.listPods(account).map((p) => graphqlPod(platform, p)),
    }),

    pod: ({ input }: { input: { podId: string } }, { account }: { account: Account }) => {
      const pod = platform.getPod(account, input.podId);
      return pod ? graphqlPod(platform, pod) : null;
    },

    podFindAndDeployOnDemand: ({ input }: { input?: DeployInput | null }, { account }: { account: Account }) => {
      const i = input ?? {};
      const pod = platform.deploy(account, {
        name: i.name,
        imageName: i.imageName,
        templateId: i.templateId,
        gpuTypeIds: i.gpuTypeId ? [i.gpuTypeId] : compact(i.gpuTypeIdList),
        gpuCount: i.gpuCount,
        computeType: i.computeType,
        cloudType: i.cloudType,
        dataCenterIds: i.dataCenterId ? [i.dataCenterId] : undefined,
        allowedCudaVersions: i.allowedCudaVersions ? compact(i.allowedCudaVersions) : undefined,
        // Per-pod totals, as the share per GPU they ask of a pod of gpuCount GPUs (fractions allowed).
        minVcpuPerGpu: i.minVcpuCount ? i.minVcpuCount / Math.max(1, i.gpuCount ?? 1) : undefined,
        minMemoryPerGpuInGb: i.minMemoryInGb ? i.minMemoryInGb / Math.max(1, i.gpuCount ?? 1) : undefined,
        containerDiskInGb: i.containerDiskInGb,
        volumeInGb: i.volumeInGb,
        volumeMountPath: i.volumeMountPath,
        networkVolumeId: i.networkVolumeId,
        env: Object.fromEntries(compact(i.env).map((e) => [e.key, e.value])),
        ports: i.ports ? i.ports.split(',').map((p) => p.trim()) : undefined,
        dockerArgs: i.dockerArgs,
        containerRegistryAuthId: i.containerRegistryAuthId,
      });
      return graphqlPod(platform, pod);
    },

    deployCpuPod: ({ input }: { input: DeployCpuInput }, { account }: { account: Account }) => {
      const pod = platform.deploy(account, {
        name: input.name,
        imageName: input.imageName,
        templateId: input.templateId,
        gpuTypeIds: [],
        computeType: 'CPU',
        cloudType: input.cloudType,
        dataCenterIds: input.dataCenterId ? [input.dataCenterId] : undefined,
        containerDiskInGb: input.containerDiskInGb,
        volumeInGb: input.volumeInGb,
        volumeMountPath: input.volumeMountPath,
        networkVolumeId: input.networkVolumeId,
        env: Object.fromEntries(compact(input.env).map((e) => [e.key, e.value])),
        ports: input.ports ? input.ports.split(',').map((p) => p.trim()) : undefined,
        dockerArgs: input.dockerArgs,
      });
      return graphqlPod(platform, pod);
    },

    podResume: ({ input }: { input: { podId: string; gpuCount?: number | null } }, { account }: { account: Account }) =>
      graphqlPod(platform, platform.startPod(account, input.podId, input.gpuCount)),

    podStop: ({ input }: { input: { podId: string } }, { account }: { account: Account }) => graphqlPod(platform, platform.stopPod(account, input.podId)),

    podTerminate: ({ input }: { input: { podId: string } }, { account }: { account: Account }) => {
      platform.terminatePod(account, input.podId);
      return null;
    },
  };
}

/** Root fields the platform answers without an API key. */
const PUBLIC_ROOT_FIELDS = new Set(['gpuTypes', '__typename']);

export interface GraphQLAnswer {
  status: number;
  body: ExecutionResult | { errors: Array<{ message: string; extensions?: Record<string, unknown> }> };
}

export { DocumentCache, MAX_CACHED_QUERIES, MAX_CACHED_QUERIES_CHARS, MAX_CACHED_QUERY_CHARS } from '../graphql/executable-schema.js';

/** Executes GraphQL requests against the project's own schema.graphql, with the platform's error shape. */
export function createGraphQLExecutor(platform: Platform) {
  const schema = buildExecutableSchema();
  const root = rootValue(platform);
  const prepare = createDocumentPreparer(schema);

  /**
   * True when the operation `body` asks for reads only what the platform serves without a key: a
   * query whose root fields, fragments included, are `gpuTypes` (and `__typename`).
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
    if (!operation || operation.operation !== 'query') return false;
    const fragments = new Map(
      prepared.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
    );
    const seen = new Set<string>();
    const onlyPublic = (selections: readonly SelectionNode[]): boolean =>
      selections.every((selection) => {
        if (selection.kind === Kind.FIELD) return PUBLIC_ROOT_FIELDS.has(selection.name.value);
        if (selection.kind === Kind.INLINE_FRAGMENT) return onlyPublic(selection.selectionSet.selections);
        const fragment = fragments.get(selection.name.value);
        if (!fragment) return false;
        if (seen.has(fragment.name.value)) return true;
        seen.add(fragment.name.value);
        return onlyPublic(fragment.selectionSet.selections);
      });
    return onlyPublic(operation.selectionSet.selections);
  }

  return Object.assign(run, { isPublicRead });

  /** Runs a request; `account` is undefined only for a public read (see `isPublicRead`). */
  async function run(account: Account | undefined, body: unknown): Promise<GraphQLAnswer> {
    const request = (body ?? {}) as { query?: unknown; variables?: unknown; operationName?: unknown };
    if (typeof request.query !== 'string') return { status: 400, body: { errors: [{ message: 'Must provide query string.' }] } };
    const prepared = prepare(request.query);
    if (!('kind' in prepared)) {
      return { status: 400, body: { errors: prepared.map((e) => ({ message: e.message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) } };
    }
    const result = await execute({
      schema,
      document: prepared,
      rootValue: root,
      contextValue: { account },
      variableValues: (request.variables ?? undefined) as Record<string, unknown> | undefined,
      operationName: typeof request.operationName === 'string' ? request.operationName : undefined,
    });
    // Variables the schema rejects (an unknown input field, a wrong type) never reach a resolver: HTTP 400.
    if (result.errors && result.data === undefined) {
      return { status: 400, body: { errors: result.errors.map((e) => ({ message: e.message, extensions: { code: 'BAD_USER_INPUT' } })) } };
    }
    const errors = result.errors?.map((e) => {
      const original = e.originalError;
      const message = original instanceof NoCapacityError ? GRAPHQL_NO_CAPACITY : e.message;
      const code = original instanceof EmulatorHttpError ? original.graphqlCode : 'INTERNAL_SERVER_ERROR';
      return { message, path: e.path, extensions: { code } };
    });
    return { status: 200, body: errors ? { errors, data: result.data } : { data: result.data } };
  }
}

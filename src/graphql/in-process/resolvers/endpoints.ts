// Endpoint over REST v2: `myself { endpoints endpoint(id) }`, saveEndpoint (create, or update by
// `id`), deleteEndpoint, updateEndpointTemplate, and an endpoint's network volume. Answers are REST
// v2 `Endpoint` objects; the generic resolver maps them through the field map.
import { TransportUnsupportedError, ValidationError } from '../../../errors.js';
import type { CreateEndpointInput, Endpoint, NetworkVolume, UpdateEndpointInput } from '../../../rest/types.js';
import type { ResolverContext, ResolverTable } from '../resolver-types.js';
import { commaList, envObject, inputOf, isSet, orNull, refuse, refuseSet, type Input } from './inputs.js';

export const listEndpoints = (ctx: ResolverContext): Promise<Endpoint[]> => ctx.once('GET /v2/serverless', async () => ctx.rest.endpoints.list(ctx.options));

/** One network volume by id, read once per document (many at once: the one list read); null when it is gone. */
export const volumeById = (ctx: ResolverContext, id: string): Promise<NetworkVolume | null> =>
  ctx.byId(
    'GET /v2/network-volumes',
    id,
    (one) => orNull(() => ctx.rest.networkVolumes.get(one, ctx.options)),
    () => ctx.rest.networkVolumes.list(ctx.options),
  );

const UNSUPPORTED = {
  instanceIds: 'Leave it out: REST v2 makes CPU endpoints from a flavour and a vCPU count, which GraphQL instance ids do not carry.',
  template: 'Save the template first (saveTemplate) and pass its id as templateId.',
  workersPFBTarget: 'Leave it out: REST v2 endpoints have no FlashBoot worker target.',
  bindEndpoint: 'Leave it out: REST v2 does not bind templates to endpoints.',
  repo: 'Leave it out: REST v2 does not link a repository on create or update.',
  hubReleaseId: 'Leave it out: REST v2 does not deploy hub releases.',
  modelName: 'Leave it out: REST v2 endpoints have no model name.',
  cloudStorageConfig: 'Leave it out: REST v2 endpoints have no cloud storage settings.',
} as const;

/**
 * The template id a mutation just set, by the REST answer it returned: REST v2's endpoint answer
 * does not carry its template, but the caller of saveEndpoint or updateEndpointTemplate asks for it
 * back (runpod-python's create_endpoint does), and the id it sent is a fact, not a guess.
 */
const sentTemplateIds = new WeakMap<object, string>();

function withSentTemplate(answer: Endpoint, templateId: unknown): Endpoint {
  if (typeof templateId === 'string' && templateId) sentTemplateIds.set(answer, templateId);
  return answer;
}

const SCALERS = { QUEUE_DELAY: 'queueDelay', REQUEST_COUNT: 'requestCount' } as const;
const TYPES = new Set(['QUEUE', 'LOAD_BALANCER']);

/** scalerType + scalerValue as REST v2's `scaling`; both or neither (REST v2 needs both on create). */
function scaling(input: Input, update: boolean): Record<string, unknown> | undefined {
  const { scalerType: type, scalerValue: value } = input;
  if (!isSet(type) && !isSet(value)) {
    if (update) return undefined;
    throw new ValidationError('input.scalerType', 'is required over REST v2, with scalerValue: an endpoint needs its scaler (QUEUE_DELAY seconds or REQUEST_COUNT)');
  }
  if (typeof type !== 'string' || !Object.hasOwn(SCALERS, type)) throw new ValidationError('input.scalerType', 'must be QUEUE_DELAY or REQUEST_COUNT, given with scalerValue');
  if (typeof value !== 'number') throw new ValidationError('input.scalerValue', 'is required with scalerType');
  return { type, [SCALERS[type as keyof typeof SCALERS]]: value };
}

/** EndpointInput as REST v2's endpoint body, field by field. */
export function endpointBody(input: Input, update: boolean): CreateEndpointInput | UpdateEndpointInput {
  refuseSet('saveEndpoint', input, UNSUPPORTED);
  const body: Record<string, unknown> = {};
  if (typeof input.name === 'string') body.name = input.name;
  if (update) {
    if (isSet(input.type)) refuse('saveEndpoint', 'type', "Leave it out: REST v2 cannot change an endpoint's type (delete the endpoint and save a new one).");
  } else {
    // GraphQL's saveEndpoint makes a queue-based endpoint unless told otherwise.
    const type = isSet(input.type) ? input.type : 'QUEUE';
    if (typeof type !== 'string' || !TYPES.has(type)) throw new ValidationError('input.type', 'must be QUEUE or LOAD_BALANCER over REST v2');
    body.type = type;
  }
  if (isSet(input.templateId)) body.templateId = input.templateId;
  const gpu: Record<string, unknown> = {};
  if (isSet(input.gpuIds)) {
    const ids = commaList(input.gpuIds);
    gpu.pools = ids.filter((id) => !id.startsWith('-'));
    const excluded = ids.filter((id) => id.startsWith('-')).map((id) => id.slice(1).trim());
    if (excluded.length) gpu.excludedTypes = excluded;
  }
  if (typeof input.gpuCount === 'number') gpu.count = input.gpuCount;
  if (isSet(input.allowedCudaVersions)) gpu.allowedCudaVersions = commaList(input.allowedCudaVersions);
  if (Object.keys(gpu).length) body.gpu = gpu;
  // An empty locations is GraphQL's "anywhere": left out on create, cleared on update.
  if (isSet(input.locations) || (update && input.locations === '')) body.dataCenterIds = commaList(input.locations);
  if (isSet(input.networkVolumeId)) body.networkVolumes = [input.networkVolumeId];
  const workers: Record<string, unknown> = {};
  if (typeof input.workersMin === 'number') workers.min = input.workersMin;
  if (typeof input.workersMax === 'number') workers.max = input.workersMax;
  if (typeof input.idleTimeout === 'number') workers.idleTimeout = input.idleTimeout;
  if (Object.keys(workers).length) body.workers = workers;
  const scaler = scaling(input, update);
  if (scaler) body.scaling = scaler;
  if (typeof input.executionTimeoutMs === 'number') body.timeout = input.executionTimeoutMs;
  const env = envObject('env', input.env);
  if (env) body.env = env;
  return body as CreateEndpointInput;
}

export const endpointResolvers: ResolverTable = {
  User: {
    endpoints: (_args, ctx) => listEndpoints(ctx),
    endpoint: ({ id }, ctx) => ctx.once(`GET /v2/serverless/${String(id)}`, () => orNull(() => ctx.rest.endpoints.get(String(id), ctx.options))),
  },
  Endpoint: {
    templateId: (_args, _ctx, _info, source) => {
      const sent = source !== null && typeof source === 'object' ? sentTemplateIds.get(source) : undefined;
      if (sent !== undefined) return sent;
      throw new TransportUnsupportedError(
        ['Endpoint.templateId'],
        "Endpoint.templateId: REST v2's endpoint answers do not name their template (only a saveEndpoint or updateEndpointTemplate that sets it answers it); leave it out of the document",
      );
    },
    networkVolumeIds: async (_args, ctx, _info, source) => {
      const ids = (source as { networkVolumes?: unknown } | null)?.networkVolumes;
      if (!Array.isArray(ids)) return null;
      const named = ids.filter((id): id is string => typeof id === 'string');
      return Promise.all(named.map(async (id) => ({ networkVolumeId: id, dataCenterId: (await volumeById(ctx, id))?.dataCenter ?? null })));
    },
    networkVolume: (_args, ctx, _info, source) => {
      const id = (source as { networkVolumes?: unknown } | null)?.networkVolumes;
      return Array.isArray(id) && typeof id[0] === 'string' ? volumeById(ctx, id[0]) : null;
    },
  },
  Mutation: {
    // A create is sent once: rp.rest's create marker finds it after an ambiguous failure.
    saveEndpoint: async ({ input }, ctx) => {
      const fields = inputOf(input);
      const answer = isSet(fields.id)
        ? await ctx.rest.endpoints.update(String(fields.id), endpointBody(fields, true) as UpdateEndpointInput, ctx.options)
        : await ctx.rest.endpoints.create(endpointBody(fields, false) as CreateEndpointInput, ctx.options);
      return withSentTemplate(answer, fields.templateId);
    },
    deleteEndpoint: async ({ id }, ctx) => {
      await ctx.rest.endpoints.delete(String(id), ctx.options);
      return null;
    },
    updateEndpointTemplate: async ({ input }, ctx) => {
      const { endpointId, templateId } = inputOf(input) as { endpointId: string; templateId: string };
      return withSentTemplate(await ctx.rest.endpoints.update(endpointId, { templateId }, ctx.options), templateId);
    },
  },
};

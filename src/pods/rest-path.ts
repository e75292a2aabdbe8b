// rp.pods over REST v2, loaded on the first call that goes there. Every answer is the field map's
// projection of the REST v2 pod onto the `PodFields` fragment (src/field-map/pod.ts says where each
// field comes from, once, for this path and the in-process executor alike). Inputs REST v2 cannot
// honour are refused before anything is sent.
import { CapacityUnavailableError, NotFoundError, TransportUnsupportedError, ValidationError, type ConflictError, type RunpodError } from '../errors.js';
import { fragmentSelection, project } from '../field-map/projection.js';
import { DESIRED_STATUS } from '../field-map/pod.js';
import { WrongRestShape } from '../field-map/types.js';
import { PodFieldsFragmentDoc, type DeployCpuPodInput as CpuPodInputFields, type EnvironmentVariableInput, type PodFindAndDeployOnDemandInput } from '../graphql/__generated__/operations.js';
import type { GraphQLCallOptions } from '../graphql/graphql-client.js';
import type { RestCatalogApi } from '../rest/catalog.js';
import type { RestPodsApi } from '../rest/pods.js';
import type { RestRequester } from '../rest/rest-request.js';
import type { Cloud, CreatePodInput, GpuCatalogQuery, GpuType as RestGpuType, Pod as RestPod } from '../rest/types.js';
import type { CallOptions } from '../transport/options.js';
import type { DeployCpuPodInput, DeployPodInput, Pod, ResumePodInput, StoppedPod } from './types.js';

/** The client's errors are told apart by name here (a retried error may come from another copy of the module). */
function isError<E extends RunpodError>(err: unknown, ...names: Array<E['name']>): err is E {
  return err instanceof Error && names.includes(err.name);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string';

/** The REST v2 pod an answer of this path was projected from (the in-process executor reads it). */
const restPods = new WeakMap<object, RestPod>();

/** The REST v2 pod `answer` (a pod or a stopped pod of rp.pods) came from, when it came over REST v2. */
export function restPodOf(answer: unknown): RestPod | undefined {
  return answer !== null && typeof answer === 'object' ? restPods.get(answer) : undefined;
}

export interface RestPodsPath {
  get(podId: string, options?: GraphQLCallOptions): Promise<Pod | null>;
  list(options?: GraphQLCallOptions): Promise<Pod[]>;
  /** `sending` is called just before the create request goes out (reads come before it). */
  deploy(input: DeployPodInput, env: EnvironmentVariableInput[], options: GraphQLCallOptions | undefined, sending: () => void): Promise<Pod>;
  deployCpu(input: DeployCpuPodInput, env: EnvironmentVariableInput[], options: GraphQLCallOptions | undefined, sending: () => void): Promise<Pod>;
  resume(input: ResumePodInput, options?: GraphQLCallOptions): Promise<Pod>;
  stop(podId: string, options?: GraphQLCallOptions): Promise<StoppedPod>;
  terminate(podId: string, options?: GraphQLCallOptions): Promise<void>;
  /** The last line of the pod's system log (REST v2 has no `lastStatusChange`), or undefined. */
  failureReason(podId: string, signal?: AbortSignal): Promise<string | undefined>;
}

// ---- answers --------------------------------------------------------------------------------

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const optional = (value: unknown, ok: (v: unknown) => boolean) => value === undefined || value === null || ok(value);
const isNumber = (v: unknown) => typeof v === 'number';
const isRecordList = (v: unknown) => Array.isArray(v) && v.every(isRecord);

/** What the `PodFields` projection relies on, of the type it relies on; anything else is the answer's own business. */
function isRestPod(value: unknown): value is RestPod {
  if (!isRecord(value) || !isString(value.id) || !isString(value.name) || !isString(value.status) || !Object.hasOwn(DESIRED_STATUS, value.status)) return false;
  if (!isNumber(value.cost) || !optional(value.image, isString)) return false;
  if (!optional(value.gpu, (gpu) => isRecord(gpu) && optional(gpu.count, isNumber))) return false;
  if (!optional(value.ssh, (ssh) => isRecord(ssh) && optional(ssh.proxy, (p) => isRecord(p) && optional(p.username, isString)))) return false;
  return optional(
    value.runtime,
    (rt) => isRecord(rt) && optional(rt.gpus, isRecordList) && optional(rt.ports, isRecordList) && optional(rt.cpu, isRecord) && optional(rt.memory, isRecord),
  );
}

/** The package's `PodFields` fragment, as the projection follows it. */
const POD_FIELDS = fragmentSelection(PodFieldsFragmentDoc.toString(), 'PodFields');

/** A REST v2 pod as the `PodFields` fragment, through the field map. Lossy where v2 has no source: see the README. */
function toGraphQLPod(pod: RestPod): Pod {
  const mapped = project('Pod', pod as unknown as Record<string, unknown>, POD_FIELDS) as unknown as Pod;
  restPods.set(mapped, pod);
  return mapped;
}

// ---- inputs ---------------------------------------------------------------------------------

/**
 * Set in a way that asks for something (`false`, `0`, `''` and a list with nothing in it ask for
 * nothing).
 */
const given = (value: unknown) =>
  value !== undefined && value !== null && value !== false && value !== 0 && value !== '' && !(Array.isArray(value) && value.every((v) => v == null));

/**
 * How the REST path treats each field of the schema's own input types (generated from
 * schema.graphql, so a field the schema gains breaks the build here until someone decides):
 * `sent` is mapped onto REST v2 (some under a rule, below), `refused` has no REST v2 counterpart
 * and is refused by name when given. A key the input type lacks is refused too.
 */
type Handling = 'sent' | 'refused';

const DEPLOY_INPUT: Record<keyof PodFindAndDeployOnDemandInput, Handling> = {
  allowedCudaVersions: 'sent', cloudType: 'sent', computeType: 'sent', containerDiskInGb: 'sent', containerRegistryAuthId: 'sent', countryCode: 'sent',
  cudaVersion: 'sent', dataCenterId: 'sent', dockerArgs: 'sent', env: 'sent', gpuCount: 'sent', gpuTypeId: 'sent', gpuTypeIdList: 'sent',
  globalNetwork: 'sent', imageName: 'sent', minCudaVersion: 'sent', minMemoryInGb: 'sent', minVcpuCount: 'sent', name: 'sent', networkVolumeId: 'sent',
  ports: 'sent', startJupyter: 'sent', startSsh: 'sent', supportPublicIp: 'sent', templateId: 'sent', volumeInGb: 'sent', volumeMountPath: 'sent',
  aiApiId: 'refused', compliance: 'refused', dataCenterIds: 'refused', deployCost: 'refused', ideAiApiId: 'refused', instanceIds: 'refused',
  minDisk: 'refused', minDownload: 'refused', minUpload: 'refused', modelReferences: 'refused', port: 'refused', savingsPlan: 'refused',
  stopAfter: 'refused', terminateAfter: 'refused', volumeKey: 'refused', volumeMounts: 'refused',
};

const DEPLOY_CPU_INPUT: Record<keyof CpuPodInputFields, Handling> = {
  instanceId: 'sent', cloudType: 'sent', containerDiskInGb: 'sent', containerRegistryAuthId: 'sent', dataCenterId: 'sent', dataCenterIds: 'sent',
  dockerArgs: 'sent', env: 'sent', imageName: 'sent', name: 'sent', networkVolumeId: 'sent', ports: 'sent', startJupyter: 'sent', startSsh: 'sent',
  supportPublicIp: 'sent', templateId: 'sent', volumeMountPath: 'sent',
  countryCode: 'refused', deployCost: 'refused', minDisk: 'refused', minDownload: 'refused', minUpload: 'refused', stopAfter: 'refused',
  terminateAfter: 'refused', volumeKey: 'refused',
};

/** The fields of `input` refused by `table`: those it refuses, and any it does not know, when given. */
function refusedFields(input: object, table: Readonly<Record<string, Handling>>): string[] {
  return Object.entries(input)
    .filter(([key, value]) => given(value) && (!Object.hasOwn(table, key) || table[key] === 'refused'))
    .map(([key]) => key);
}

/**
 * How a caller changes each refused input, in terms of the input itself (a GraphQL caller has no
 * client option to set). An input not listed here is simply left out.
 */
const FIXES: Readonly<Record<string, string>> = {
  supportPublicIp:
    'use cloudType SECURE or ALL with supportPublicIp (every Secure Cloud pod has a public IP), or leave supportPublicIp out to place the pod on Community Cloud',
  minMemoryInGb: 'give a minMemoryInGb that REST v2 can divide by gpuCount (it filters RAM per GPU, in whole GB), or leave it out',
  minVcpuCount: 'give a minVcpuCount that REST v2 can divide by gpuCount (it filters whole vCPUs per GPU), or leave it out',
  volumeInGb: 'give volumeInGb 0 or at least 10 (REST v2 volumes start at 10 GB), and no volumeInGb with a networkVolumeId or on a CPU pod',
  networkVolumeId: 'mount either a networkVolumeId or a volumeInGb, not both',
  containerDiskInGb: 'give containerDiskInGb of at least 1',
  cudaVersion: 'give one minimum CUDA version (cudaVersion or minCudaVersion) or a list (allowedCudaVersions), not both',
  minCudaVersion: 'give one minimum CUDA version (cudaVersion or minCudaVersion) or a list (allowedCudaVersions), not both',
  allowedCudaVersions: 'give one minimum CUDA version (cudaVersion or minCudaVersion) or a list (allowedCudaVersions), not both',
  gpuCount: 'leave gpuCount out, or give the count the pod has (REST v2 starts a pod with the GPUs it had)',
  instanceId: 'give an instanceId such as cpu3c-2-4 whose memory matches the flavour, or leave the memory part out (cpu3c-2)',
  dataCenterIds: 'give one dataCenterId (REST v2 places a GPU pod where the catalog shows stock), or leave dataCenterIds out',
  modelReferences: 'leave modelReferences out or empty (REST v2 pods take no model references; serverless endpoints do)',
  compliance: 'leave compliance out (REST v2 places pods without a compliance filter; pick a dataCenterId that meets it)',
  volumeMounts: 'mount a network volume with networkVolumeId (REST v2 pods do not mount global volumes)',
};

/** GraphQL's minimum CUDA version, under either name (`cudaVersion` is the older). */
const minimumCuda = (input: { cudaVersion?: string | null | undefined; minCudaVersion?: string | null | undefined }): string | undefined =>
  input.minCudaVersion || input.cudaVersion || undefined;

function refuse(fields: string[], operation: string, why: string): void {
  if (fields.length) {
    const fixes = [...new Set(fields.map((f) => FIXES[f] ?? `leave ${f} out`))];
    throw new TransportUnsupportedError(
      fields.map((f) => `input.${f}`),
      `${operation} over REST v2 cannot honour ${fields.join(', ')} (${why}); nothing was sent. To send it: ${fixes.join('; ')}`,
    );
  }
}

/** A GPU pod's own volume; a CPU pod's input has none (one given anyway is refused by name). */
const volumeOf = (input: DeployPodInput | DeployCpuPodInput): number => ('volumeInGb' in input && typeof input.volumeInGb === 'number' ? input.volumeInGb : 0);

function checkContainer(input: DeployPodInput | DeployCpuPodInput, fields: string[]): void {
  const volume = volumeOf(input);
  if (volume > 0 && volume < 10) fields.push('volumeInGb');
  if (given(input.networkVolumeId) && volume > 0) fields.push('networkVolumeId', 'volumeInGb');
  if (input.containerDiskInGb === 0) fields.push('containerDiskInGb');
}

type PerGpuMinimums = Pick<NonNullable<CreatePodInput['gpu']>, 'minRamPerGpu' | 'minVcpuCountPerGpu'>;

/** GraphQL's per-pod minimum, and the REST v2 per-GPU filter it becomes. */
const PER_GPU = [
  ['minMemoryInGb', 'minRamPerGpu'],
  ['minVcpuCount', 'minVcpuCountPerGpu'],
] as const;

/**
 * GraphQL's `minMemoryInGb` and `minVcpuCount` are per-pod totals; REST v2's `gpu.minRamPerGpu` and
 * `gpu.minVcpuCountPerGpu` filter machines on the share each GPU brings, which a pod of `gpuCount`
 * GPUs gets `gpuCount` times. So "total ≥ T" is "per GPU ≥ T / gpuCount", and REST v2 takes whole
 * numbers only: the mapping is exact when T divides by the count. When it does not, no whole number
 * says the same: a machine's share per GPU may be fractional (`Pod.gpu.memory` and `vcpuCount` are
 * doubles), so rounding up would refuse machines GraphQL accepts and rounding down would accept
 * machines it refuses. Those are listed in `fields` and refused, never approximated.
 */
function perGpuMinimums(input: DeployPodInput, fields: string[]): PerGpuMinimums {
  const count = input.gpuCount ?? 1;
  const minimums: PerGpuMinimums = {};
  for (const [total, perGpu] of PER_GPU) {
    const value = input[total];
    if (!given(value)) continue;
    const share = (value as number) / count;
    if (Number.isInteger(share)) minimums[perGpu] = share;
    else fields.push(total);
  }
  return minimums;
}

/** Every field of a GPU deploy that REST v2 would drop or change. */
/**
 * `supportPublicIp: true` asks for a machine with a public IP. REST v2's create has no such filter,
 * but the platform's documentation says a Secure Cloud pod always has a public IP (only Community
 * Cloud machines may lack one): so it is honoured by placing the pod on Secure Cloud, and refused
 * with `cloudType: 'COMMUNITY'`, where REST v2 cannot ask for it.
 */
const wantsPublicIp = (input: DeployPodInput): boolean => given(input.supportPublicIp);

function unsupportedDeployFields(input: DeployPodInput): string[] {
  const fields: string[] = refusedFields(input, DEPLOY_INPUT);
  if (wantsPublicIp(input) && input.cloudType === 'COMMUNITY') fields.push('supportPublicIp');
  perGpuMinimums(input, fields);
  checkContainer(input, fields);
  const minimums = (['cudaVersion', 'minCudaVersion'] as const).filter((f) => given(input[f]));
  if (minimums.length === 2 && input.cudaVersion !== input.minCudaVersion) fields.push(...minimums);
  if (minimums.length && given(input.allowedCudaVersions)) fields.push(...minimums, 'allowedCudaVersions');
  return [...new Set(fields)];
}

const CPU_INSTANCE = /^([a-z0-9]+)-(\d+)(?:-(\d+))?$/i;

function unsupportedDeployCpuFields(input: DeployCpuPodInput): string[] {
  const fields: string[] = refusedFields(input, DEPLOY_CPU_INPUT);
  if (!CPU_INSTANCE.test(input.instanceId)) fields.push('instanceId');
  if (given(input.supportPublicIp) && input.cloudType === 'COMMUNITY') fields.push('supportPublicIp');
  checkContainer(input, fields);
  return [...new Set(fields)];
}

function unsupportedResumeFields(input: ResumePodInput): string[] {
  const fields: string[] = [];
  if (input.gpuCount === 0) fields.push('gpuCount');
  if (given(input.syncMachine)) fields.push('syncMachine');
  if (input.computeType != null) fields.push('computeType');
  return fields;
}

/** REST v2 requires a name: the image without its tag or digest, else the template id. */
function podName(input: { name?: string | null | undefined; imageName?: string | null | undefined; templateId?: string | null | undefined }): string {
  if (input.name) return input.name;
  const image = input.imageName?.replace(/@.*$/, '').replace(/:[^/:]*$/, '');
  return image || input.templateId || 'pod';
}

const envMap = (env: EnvironmentVariableInput[]) => Object.fromEntries(env.map((e) => [e.key, e.value]));
const portList = (ports: string | null | undefined) => (ports ? ports.split(',').map((p) => p.trim()).filter(Boolean) : undefined);
const nonNull = <T>(list: ReadonlyArray<T | null | undefined> | null | undefined): T[] => (list ?? []).filter((v): v is T => v != null);

/** The container and mount fields both creates share. */
function containerFields(input: DeployPodInput | DeployCpuPodInput, env: EnvironmentVariableInput[]): Omit<CreatePodInput, 'name' | 'gpu' | 'cpu'> {
  const path = input.volumeMountPath || '/workspace';
  const body: Omit<CreatePodInput, 'name' | 'gpu' | 'cpu'> = { env: envMap(env) };
  if (input.imageName) body.image = input.imageName;
  if (input.templateId) body.templateId = input.templateId;
  if (input.dockerArgs) body.args = input.dockerArgs;
  if (input.containerDiskInGb != null) body.disk = input.containerDiskInGb;
  const ports = portList(input.ports);
  if (ports) body.ports = ports;
  if (input.networkVolumeId) body.mounts = { network: [{ volumeId: input.networkVolumeId, path }] };
  else if (volumeOf(input)) body.mounts = { persistent: { size: volumeOf(input), path } };
  if (input.startSsh != null) body.startSsh = input.startSsh;
  if (input.dataCenterId) body.dataCenterIds = [input.dataCenterId];
  return body;
}

interface Candidate {
  readonly gpuTypeId: string;
  readonly cloud: Cloud;
  readonly price: number;
  readonly dataCenterIds: string[] | undefined;
}

const clean = (options: GraphQLCallOptions | undefined) => {
  if (!options) return undefined;
  const { idempotent: _idempotent, markerLookup: _lookup, createMarker: _marker, ...call } = options as GraphQLCallOptions & { markerLookup?: unknown; createMarker?: unknown };
  return call;
};

/**
 * The REST v2 surfaces this path reads through, handed in by rp.pods (which has them): importing
 * the REST modules here would split them into a shared chunk that costs the code-split start-up
 * 0.7 KB (measured with gpu-types/rest-path.ts, 2026-11-28). Errors and the rest are plain imports.
 */
export interface RestPodsDeps {
  readonly rest: RestRequester;
  readonly pods: RestPodsApi;
  readonly catalog: RestCatalogApi;
  /** One `POST /pods`, never resent (src/rest/pods.ts). */
  readonly sendPodCreate: (body: CreatePodInput, options?: CallOptions) => Promise<RestPod>;
}

export function createRestPodsPath({ rest, pods, catalog, sendPodCreate }: RestPodsDeps): RestPodsPath {
  const core = rest.core;

  /**
   * A pod answer of `route` (for pod `id`), checked: a wrong shape is a ServerError naming the
   * route, never a TypeError.
   */
  function mapped(value: unknown, route: string, id = ''): Pod {
    const wrong = (what = 'a REST v2 Pod (id, name, status, cost, env, runtime)') => {
      const [method, template] = route.split(' ') as ['GET' | 'POST', string];
      const path = template.replace('{id}', encodeURIComponent(id));
      return core.wrongShape(rest.http({ method, path, route, idempotent: method === 'GET' }), what, value);
    };
    if (!isRestPod(value)) throw wrong();
    try {
      return toGraphQLPod(value);
    } catch (err) {
      if (err instanceof WrongRestShape) throw wrong(`a REST v2 Pod whose ${err.restPath} is ${err.expected}`);
      throw err;
    }
  }

  async function get(podId: string, options?: GraphQLCallOptions): Promise<Pod | null> {
    try {
      return mapped(await pods.get(podId, clean(options)), 'GET /pods/{id}', podId);
    } catch (err) {
      if (isError(err, 'NotFoundError')) return null;
      throw err;
    }
  }

  /**
   * In-stock offers for the requested types and clouds, cheapest first: REST v2 places one type in
   * one cloud, so `cloudType: 'ALL'` and `gpuTypeIdList` are searched here.
   */
  async function candidates(input: DeployPodInput, options?: GraphQLCallOptions): Promise<Candidate[]> {
    const ids = input.gpuTypeId ? [input.gpuTypeId] : nonNull(input.gpuTypeIdList);
    const clouds: Cloud[] = input.cloudType === 'SECURE' || wantsPublicIp(input) ? ['SECURE'] : input.cloudType === 'COMMUNITY' ? ['COMMUNITY'] : ['SECURE', 'COMMUNITY'];
    const allowed = nonNull(input.allowedCudaVersions);
    const query: GpuCatalogQuery = { include: ['AVAILABILITY'], product: ['POD'], count: input.gpuCount ?? 1 };
    if (input.countryCode) query.countryCodes = [input.countryCode];
    if (allowed.length) query.cudaVersions = allowed;
    const minimum = minimumCuda(input);
    if (minimum) query.minCudaVersion = minimum;
    const lists: Array<[Cloud, RestGpuType[]]> = [];
    for (const cloud of clouds) lists.push([cloud, await catalog.gpus({ ...query, cloud }, clean(options))]);
    if (!input.countryCode) {
      const known = new Set(lists.flatMap(([, types]) => types.map((t) => t.id)));
      const field = input.gpuTypeId ? 'input.gpuTypeId' : 'input.gpuTypeIdList';
      for (const id of ids) if (known.size > 0 && !known.has(id)) throw new ValidationError(field, `"${id}" is not a GPU type id (gpuTypes.list() gives the ids; display names are not ids)`);
    }
    const found: Candidate[] = [];
    for (const [cloud, types] of lists) {
      for (const id of ids) {
        const type = types.find((t) => t.id === id);
        if (!type || !isRecord(type.price)) continue;
        const centres = Array.isArray(type.dataCenters) ? type.dataCenters.filter((d) => isRecord(d) && isString(d.id)) : [];
        let level = type.availability;
        let dataCenterIds: string[] | undefined;
        if (input.dataCenterId) {
          level = centres.find((d) => d.id === input.dataCenterId)?.availability;
          dataCenterIds = [input.dataCenterId];
        } else if (input.countryCode) {
          dataCenterIds = centres.filter((d) => d.availability !== 'NONE').map((d) => d.id);
          if (dataCenterIds.length === 0) continue;
        }
        const price = num(cloud === 'SECURE' ? type.price.secure : type.price.community);
        if (!level || level === 'NONE' || price === null) continue;
        found.push({ gpuTypeId: id, cloud, price, dataCenterIds });
      }
    }
    return found.sort((a, b) => a.price - b.price);
  }

  async function deploy(input: DeployPodInput, env: EnvironmentVariableInput[], options: GraphQLCallOptions | undefined, sending: () => void): Promise<Pod> {
    refuse(unsupportedDeployFields(input), 'deploy', 'REST v2 has no equivalent, or takes it only in another form');
    const minimums = perGpuMinimums(input, []);
    const offers = await candidates(input, options);
    const base = containerFields(input, env);
    if (input.containerRegistryAuthId) base.registry = input.containerRegistryAuthId;
    if (input.globalNetwork != null) base.globalNetworking = input.globalNetwork;
    if (input.startJupyter != null) base.startJupyter = input.startJupyter;
    const allowed = nonNull(input.allowedCudaVersions);
    let refusal: Error | undefined;
    for (const offer of offers) {
      const body: CreatePodInput = {
        ...base,
        name: podName(input),
        cloud: offer.cloud,
        gpu: {
          id: offer.gpuTypeId,
          count: input.gpuCount ?? 1,
          ...(allowed.length && { allowedCudaVersions: allowed }),
          ...(minimumCuda(input) && { minCudaVersion: minimumCuda(input) }),
          ...minimums,
        },
      };
      if (offer.dataCenterIds) body.dataCenterIds = offer.dataCenterIds;
      try {
        sending();
        return mapped(await sendPodCreate(body, clean(options)), 'POST /pods');
      } catch (err) {
        // Only a clean refusal moves on: anything that may have created the pod is settled by its marker.
        if (!isError(err, 'CapacityUnavailableError', 'PermissionDeniedError')) throw err;
        refusal = err;
      }
    }
    throw refusal ?? new CapacityUnavailableError('DeployPod: REST v2 catalog shows no stock for the requested GPU types, clouds and count; nothing was sent', { operationName: 'DeployPod' });
  }

  async function deployCpu(input: DeployCpuPodInput, env: EnvironmentVariableInput[], options: GraphQLCallOptions | undefined, sending: () => void): Promise<Pod> {
    refuse(unsupportedDeployCpuFields(input), 'deployCpu', 'instanceId must look like cpu3c-2-4, and CPU pods take no volume');
    const [, flavour = '', vcpus = '', memory] = CPU_INSTANCE.exec(input.instanceId)!;
    const vcpuCount = Number(vcpus);
    if (memory !== undefined) {
      const type = await catalog.cpu(flavour, undefined, clean(options));
      const derived = num(type.ramGbPerVcpu);
      if (derived !== null && Math.round(derived * vcpuCount) !== Number(memory)) {
        refuse(['instanceId'], 'deployCpu', `${memory} GB: REST v2 derives memory from the flavour (${flavour} with ${vcpuCount} vCPU has ${Math.round(derived * vcpuCount)} GB)`);
      }
    }
    const body: CreatePodInput = { ...containerFields(input, env), name: podName(input), cpu: { id: flavour, vcpuCount } };
    if (input.cloudType === 'SECURE' || input.cloudType === 'COMMUNITY') body.cloud = input.cloudType;
    // Every Secure Cloud pod has a public IP (see wantsPublicIp); Community Cloud with one is refused above.
    else if (given(input.supportPublicIp)) body.cloud = 'SECURE';
    if (input.containerRegistryAuthId) body.registry = input.containerRegistryAuthId;
    if (input.startJupyter != null) body.startJupyter = input.startJupyter;
    const centres = nonNull<string>(input.dataCenterIds);
    if (centres.length) body.dataCenterIds = input.dataCenterId ? [...new Set([input.dataCenterId, ...centres])] : centres;
    sending();
    return mapped(await sendPodCreate(body, clean(options)), 'POST /pods');
  }

  return {
    get,
    async list(options) {
      const list = await pods.list({ includeClusterPods: true }, clean(options));
      return list.map((p) => mapped(p, 'GET /pods'));
    },
    deploy,
    deployCpu,
    async resume(input, options) {
      refuse(unsupportedResumeFields(input), 'resume', 'a GPU count of 0, syncMachine or computeType (it starts the pod with the GPUs it had)');
      if (input.gpuCount != null) {
        const raw = await pods.get(input.podId, clean(options));
        mapped(raw, 'GET /pods/{id}', input.podId);
        const had = num((raw as RestPod).gpu?.count) ?? 0;
        if (had !== input.gpuCount) refuse(['gpuCount'], 'resume', `gpuCount ${input.gpuCount}: it starts the pod with the ${had} GPU(s) it had`);
      }
      try {
        return mapped(await pods.start(input.podId, clean(options)), 'POST /pods/{id}/action', input.podId);
      } catch (err) {
        // Already running (or starting): the start's goal holds, as GraphQL's podResume answers.
        if (isError<ConflictError>(err, 'ConflictError') && ['RUNNING', 'STARTING', 'PROVISIONING'].includes(err.resourceStatus ?? '')) {
          const pod = await get(input.podId, options);
          if (pod) return pod;
        }
        // The host's GPUs were taken: whatever the status it comes with, a refusal, as on GraphQL.
        if (isError<RunpodError>(err, 'ServerError', 'BadRequestError') && /not enough free GPUs/i.test(err.message)) {
          throw new CapacityUnavailableError(err.message, { status: (err as { status?: number }).status, operationName: 'ResumePod', request: err.request, cause: err });
        }
        throw err;
      }
    },
    async stop(podId, options) {
      try {
        const pod = mapped(await pods.stop(podId, clean(options)), 'POST /pods/{id}/action', podId);
        const stopped: StoppedPod = { id: pod.id, desiredStatus: pod.desiredStatus };
        restPods.set(stopped, restPodOf(pod)!);
        return stopped;
      } catch (err) {
        // Already stopped: safe to retry, as on GraphQL.
        if (isError<ConflictError>(err, 'ConflictError') && (err.resourceStatus === 'EXITED' || err.resourceStatus === 'ERROR')) return { id: podId, desiredStatus: 'EXITED' };
        throw err;
      }
    },
    async terminate(podId, options) {
      await pods.delete(podId, clean(options));
    },
    async failureReason(podId, signal) {
      // The stream follows new lines after its backfill: read briefly, then hang up.
      const stop = new AbortController();
      const hangUp = () => stop.abort();
      signal?.addEventListener('abort', hangUp, { once: true });
      let timer = setTimeout(hangUp, 1_500);
      let last: string | undefined;
      try {
        for await (const line of pods.logs(podId, { source: 'system', tail: 20, signal: stop.signal, maxReconnects: 0 })) {
          if (line.line.trim()) last = line.line.trim();
          // The backfill comes at once; a pause after it means it is over.
          clearTimeout(timer);
          timer = setTimeout(hangUp, 100);
        }
      } catch {
        /* hung up, or no logs: the reason stays what was read */
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', hangUp);
      }
      return last;
    },
  };
}

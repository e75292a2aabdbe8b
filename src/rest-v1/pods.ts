import type { CallOptions } from '../transport/options.js';
import { checkEnvMap, checkInteger, checkOneOf, checkPortsArray, requireObject } from '../validation.js';
import { ValidationError } from '../errors.js';
import { isRecord } from '../transport/shape.js';
import { crudResource, RESOURCE, type CrudResource } from './crud-resource.js';
import { numericFields, readableNumbers } from './normalize.js';
import { idPath, type ItemShape, type RestRequester } from './rest-request.js';
import type { PodCreateInput, PodIncludes, PodListQuery, PodUpdateInput, RestPod } from './types.js';

export interface RestPodsApi extends CrudResource<RestPod, PodCreateInput, PodUpdateInput, PodListQuery, PodIncludes> {
  /** Start or resume a stopped pod. It may get fewer GPUs if capacity changed. */
  start(podId: string, options?: CallOptions): Promise<void>;
  /** Stop: the GPU is released, container disk cleared, /workspace kept (and billed). */
  stop(podId: string, options?: CallOptions): Promise<void>;
  reset(podId: string, options?: CallOptions): Promise<void>;
  restart(podId: string, options?: CallOptions): Promise<void>;
}

const POD_NUMBERS = ['costPerHr', 'adjustedCostPerHr', 'memoryInGb', 'vcpuCount'];
const MACHINE_NUMBERS = ['costPerHr', 'currentPricePerGpu'];

function isPod(value: unknown): boolean {
  if (!RESOURCE.is(value) || !isRecord(value) || !readableNumbers(value, POD_NUMBERS)) return false;
  const machine = value.machine;
  return machine == null || (isRecord(machine) && readableNumbers(machine, MACHINE_NUMBERS));
}

const POD: ItemShape = { is: isPod, expected: 'a pod: an object with a string id, its prices as numbers and its machine an object' };

function normalizePod(pod: RestPod): RestPod {
  const out = numericFields(pod, POD_NUMBERS);
  if (out.machine) out.machine = numericFields(out.machine, MACHINE_NUMBERS);
  return out;
}

function checkEditable(prefix: string, body: Record<string, unknown>): void {
  checkEnvMap(`${prefix}.env`, body.env);
  checkPortsArray(`${prefix}.ports`, body.ports);
  checkInteger(`${prefix}.containerDiskInGb`, body.containerDiskInGb, 0);
  checkInteger(`${prefix}.volumeInGb`, body.volumeInGb, 0);
}

function validateCreate(input: unknown): void {
  const body = requireObject('body', input);
  if (!body.imageName && !body.templateId) throw new ValidationError('body.imageName', 'give an imageName or a templateId');
  checkOneOf('body.cloudType', body.cloudType, ['SECURE', 'COMMUNITY'], ' (REST has no ALL: leave cloudType out to accept either)');
  checkOneOf('body.computeType', body.computeType, ['GPU', 'CPU']);
  if (body.computeType !== 'CPU') checkInteger('body.gpuCount', body.gpuCount, 1);
  if (body.gpuTypeIds !== undefined && (!Array.isArray(body.gpuTypeIds) || body.gpuTypeIds.length === 0)) {
    throw new ValidationError('body.gpuTypeIds', 'must be a non-empty array of GPU type ids');
  }
  checkEditable('body', body);
}

function validateUpdate(input: unknown): void {
  checkEditable('body', requireObject('body', input));
}

export function createRestPodsApi(rest: RestRequester): RestPodsApi {
  const crud = crudResource<RestPod, PodCreateInput, PodUpdateInput, PodListQuery, PodIncludes>(rest, {
    base: '/pods',
    idField: 'podId',
    validateCreate,
    validateUpdate,
    shape: POD,
    normalize: normalizePod,
    // Editing a running pod resets it: a blind resend would reset it again.
    updateIdempotent: false,
  });
  const lifecycle = (action: 'start' | 'stop' | 'reset' | 'restart') => async (podId: string, options?: CallOptions) =>
    rest.send({ method: 'POST', path: idPath('/pods', 'podId', podId, `/${action}`), route: `POST /pods/{podId}/${action}`, idempotent: true }, options);
  return { ...crud, start: lifecycle('start'), stop: lifecycle('stop'), reset: lifecycle('reset'), restart: lifecycle('restart') };
}

// The input rules of rp.pods, the same on both APIs, checked before anything is sent.
import { GraphQLResponseError, ValidationError } from '../errors.js';
import type { EnvironmentVariableInput } from '../graphql/__generated__/operations.js';
import { toEnvironmentInput } from '../graphql/pod-env.js';
import { isGenericFailure } from '../transport/answer-facts.js';
import { CREATE_MARKER_ENV } from '../transport/create-marker.js';
import { mayHaveActed } from '../transport/http-core.js';
import { checkInteger, checkOneOf, checkPortsString, requireId, toJsonBody } from '../validation.js';
import type { DeployCpuPodInput, DeployPodInput, PodEnvInput, ResumePodInput } from './types.js';

function validateCommon(input: {
  name?: unknown;
  imageName?: string | null | undefined;
  templateId?: string | null | undefined;
  cloudType?: unknown;
  ports?: unknown;
  containerDiskInGb?: unknown;
  volumeInGb?: unknown;
  env?: unknown;
}): void {
  if (!input.imageName && !input.templateId) throw new ValidationError('input.imageName', 'give an imageName or a templateId');
  // An empty name is refused on both APIs (GraphQL would name the pod "", REST v2 requires one).
  if (input.name != null && (typeof input.name !== 'string' || input.name.trim() === '')) throw new ValidationError('input.name', 'must not be empty');
  // Checked before anything is sent (the GPU type catalog is read first).
  if (input.env != null) toEnvironmentInput(input.env as PodEnvInput);
  checkOneOf('input.cloudType', (input.cloudType as string | null | undefined) ?? undefined, ['SECURE', 'COMMUNITY', 'ALL']);
  checkPortsString('input.ports', input.ports);
  checkInteger('input.containerDiskInGb', input.containerDiskInGb, 0);
  checkInteger('input.volumeInGb', input.volumeInGb, 0);
  // A cycle or a BigInt would otherwise fail only when the create is serialised, after the catalog read.
  toJsonBody('input', input);
}

export function validateDeploy(input: DeployPodInput): void {
  if (input === null || typeof input !== 'object') throw new ValidationError('input', 'must be an object');
  if ((input.computeType as string | null | undefined) === 'CPU') {
    throw new ValidationError('input.computeType', 'CPU pods are deployed with pods.deployCpu({ instanceId, … }) (deployCpuPod); podFindAndDeployOnDemand needs GPUs');
  }
  checkOneOf('input.computeType', input.computeType ?? undefined, ['GPU']);
  checkInteger('input.gpuCount', input.gpuCount, 1);
  if (!input.gpuTypeId && !(input.gpuTypeIdList && input.gpuTypeIdList.length > 0)) {
    throw new ValidationError('input.gpuTypeId', 'name a GPU type (gpuTypeId or gpuTypeIdList); see gpuTypes.offers()');
  }
  validateCommon(input);
}

export function validateDeployCpu(input: DeployCpuPodInput): void {
  if (input === null || typeof input !== 'object') throw new ValidationError('input', 'must be an object');
  requireId('input.instanceId', input.instanceId);
  validateCommon(input);
}

export function validateResume(input: ResumePodInput): void {
  if (input === null || typeof input !== 'object') throw new ValidationError('input', 'must be an object');
  requireId('input.podId', input.podId);
  if ('allowedCudaVersions' in input) {
    throw new ValidationError(
      'input.allowedCudaVersions',
      'podResume does not take it (the platform answers HTTP 400); for a host with a compatible CUDA, deploy a new pod with allowedCudaVersions on the same network volume',
    );
  }
  checkInteger('input.gpuCount', input.gpuCount, 0);
}

/** The env to send: the caller's, plus this create's marker. */
export function envWithMarker(env: PodEnvInput | null | undefined, marker: string): EnvironmentVariableInput[] {
  const given = env == null ? [] : toEnvironmentInput(env).filter((e) => e.key !== CREATE_MARKER_ENV);
  return [...given, { key: CREATE_MARKER_ENV, value: marker }];
}

/**
 * A failure after which a mutation may or may not have happened, on either API: GraphQL's generic
 * "Something went wrong", or what the core says may have acted (a 5xx or an answer of the wrong
 * shape, a time-out, a connection cut after the request may have left).
 */
export function isAmbiguousFailure(err: unknown): boolean {
  return err instanceof GraphQLResponseError ? isGenericFailure(err.errors) : mayHaveActed(err);
}

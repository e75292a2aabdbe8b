// podEditJob over REST v2's `PATCH /v2/pods/{id}`: GraphQL's PodEditJobInput as REST v2's
// UpdatePodRequest, field by field. Both the in-process executor and the emulator's GraphQL send
// this body (one mapping). Like production's podEditJob, the edit recreates the container (the pod
// resets: its container disk starts again from the image). rp.rest.pods.update sends it once.
import { ValidationError } from '../../../errors.js';
import type { UpdatePodInput } from '../../../rest/types.js';
import { commaList, envObject, isSet, refuseSet, type Input } from './inputs.js';

const UNSUPPORTED = {
  port: 'List it in ports instead ("8888/http,22/tcp"): REST v2 has no single legacy port.',
} as const;

/**
 * PodEditJobInput as REST v2's pod update body. `currentMountPath` is where the pod's volume is
 * mounted now: GraphQL may resize the volume without naming its path, REST v2 needs both.
 */
export function podEditBody(input: Input, currentMountPath?: string): UpdatePodInput {
  refuseSet('podEditJob', input, UNSUPPORTED);
  const body: Record<string, unknown> = {};
  if (typeof input.imageName === 'string' && input.imageName) body.image = input.imageName;
  if (typeof input.containerDiskInGb === 'number') body.disk = input.containerDiskInGb;
  if (typeof input.dockerArgs === 'string') body.args = input.dockerArgs;
  const env = envObject('env', input.env);
  if (env) body.env = env;
  if (input.ports !== undefined && input.ports !== null) body.ports = commaList(input.ports);
  if (typeof input.volumeInGb === 'number' && input.volumeInGb > 0) {
    const path = typeof input.volumeMountPath === 'string' && input.volumeMountPath ? input.volumeMountPath : currentMountPath;
    if (!path) throw new ValidationError('input.volumeMountPath', 'is required with volumeInGb when the pod has no volume yet (e.g. /workspace)');
    body.mounts = { persistent: { size: input.volumeInGb, path } };
  } else if (isSet(input.volumeMountPath) && (input.volumeInGb === undefined || input.volumeInGb === null)) {
    throw new ValidationError('input.volumeMountPath', 'needs volumeInGb over REST v2: REST v2 sets a mount path together with the volume size');
  }
  if (isSet(input.containerRegistryAuthId)) body.registry = input.containerRegistryAuthId;
  return body as UpdatePodInput;
}

/** True when the edit resizes the volume without naming its path: the pod's current path is read first. */
export const needsMountPath = (input: Input): boolean => typeof input.volumeInGb === 'number' && input.volumeInGb > 0 && !(typeof input.volumeMountPath === 'string' && input.volumeMountPath);

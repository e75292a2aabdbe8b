/** An error the emulator answers with: the REST `{error, status}` shape, or a GraphQL error. */
export class EmulatorHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** `extensions.code` when answered through GraphQL. */
    readonly graphqlCode = 'RUNPOD',
  ) {
    super(message);
  }
}

export const GRAPHQL_NO_CAPACITY = 'There are no longer any instances available with the requested specifications. Please refresh and try again.';
export const REST_NO_CAPACITY = 'create pod: There are no instances currently available';

export class NoCapacityError extends EmulatorHttpError {
  constructor() {
    super(500, REST_NO_CAPACITY);
  }
}

export const GRAPHQL_HOST_BUSY = 'There are not enough free GPUs on the host machine to start this pod.';

/** A resume onto a host whose GPUs were taken (the platform answers it as a refusal, not a 0-GPU start). */
export class HostBusyError extends EmulatorHttpError {
  constructor() {
    super(500, GRAPHQL_HOST_BUSY);
  }
}

export const notFound = (what: string, id: string) => new EmulatorHttpError(404, `${what} ${id} not found`);
export const badRequest = (message: string) => new EmulatorHttpError(400, message);

/** Production's refusal of a spot (interruptible) pod: spot pods are discontinued. */
export const GRAPHQL_SPOT_DISCONTINUED = 'Spot pods are no longer offered. Deploy an on-demand pod (podFindAndDeployOnDemand) instead.';

// The typed error for GraphQL `errors` that came with an answer: loaded with the GraphQL runtime
// (graphql-runtime.ts) and by the in-process route, never at start-up.
import {
  CapacityUnavailableError,
  GraphQLResponseError,
  InsufficientBalanceError,
  NotFoundError,
  PermissionDeniedError,
  type GraphQLErrorEntry,
  type RequestSummary,
  type RunpodError,
} from '../errors.js';
import { isCapacityMessage, isGenericFailure } from '../transport/answer-facts.js';

export interface GraphQLErrorContext {
  readonly operationName: string | undefined;
  readonly status: number;
  readonly request: RequestSummary;
}

// The platform words "no machine for this" three ways: on deploy, on a machine it picked, and on
// resume onto a host whose GPUs were taken.
const CAPACITY_FAMILY = /does not have the resources to deploy your pod|not enough free GPUs/i;
const LOW_BALANCE = /account balance is too low/i;
// A restricted or pod-scoped key gets a field error that says only this.
const UNAUTHORIZED = /^\s*unauthori[sz]ed\b/i;
const MISSING = /\bnot found\b|\bdoes not exist\b/i;

/**
 * The typed error for GraphQL `errors` that arrived with an answer (usually on HTTP 200): the
 * platform's refusals become their own classes, anything else a GraphQLResponseError.
 * `errors` must already be scrubbed of secrets.
 */
export function errorFromGraphQLErrors<TData>(errors: readonly GraphQLErrorEntry[], data: TData | null | undefined, ctx: GraphQLErrorContext): RunpodError {
  const message = `${ctx.request.operation}: ${errors.map((e) => e.message).join('; ')}`;
  const any = (pattern: RegExp | ((m: string) => boolean)) =>
    errors.some((e) => (typeof pattern === 'function' ? pattern(e.message) : pattern.test(e.message)));
  const body = { errors, data };
  // The platform's refusals that mean "no machine can take this right now".
  if (any((m) => isCapacityMessage(m) || CAPACITY_FAMILY.test(m))) {
    return new CapacityUnavailableError(message, { status: ctx.status, operationName: ctx.operationName, request: ctx.request });
  }
  if (any(LOW_BALANCE)) return new InsufficientBalanceError(message, { status: ctx.status, request: ctx.request });
  if (any(UNAUTHORIZED)) return new PermissionDeniedError(message, { status: ctx.status, body, request: ctx.request });
  if (!isGenericFailure(errors) && any(MISSING)) return new NotFoundError(message, { status: ctx.status, body, request: ctx.request });
  return new GraphQLResponseError<TData>(message, {
    errors,
    data,
    operationName: ctx.operationName,
    status: ctx.status,
    request: ctx.request,
  });
}

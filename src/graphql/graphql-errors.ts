import { CapacityUnavailableError, GraphQLResponseError, type GraphQLErrorEntry, type RequestSummary, type RunpodError } from '../errors.js';
import { isCapacityMessage } from '../transport/error-mapping.js';

export interface GraphQLErrorContext {
  readonly operationName: string | undefined;
  readonly status: number;
  readonly request: RequestSummary;
}

/**
 * The typed error for GraphQL `errors` that arrived with an answer (usually on HTTP 200): the
 * platform's refusals become their own classes, anything else a GraphQLResponseError.
 * `errors` must already be scrubbed of secrets.
 */
export function errorFromGraphQLErrors<TData>(errors: readonly GraphQLErrorEntry[], data: TData | null | undefined, ctx: GraphQLErrorContext): RunpodError {
  const message = `${ctx.request.operation}: ${errors.map((e) => e.message).join('; ')}`;
  if (errors.some((e) => isCapacityMessage(e.message))) {
    return new CapacityUnavailableError(message, { status: ctx.status, operationName: ctx.operationName, request: ctx.request });
  }
  return new GraphQLResponseError<TData>(message, {
    errors,
    data,
    operationName: ctx.operationName,
    status: ctx.status,
    request: ctx.request,
  });
}

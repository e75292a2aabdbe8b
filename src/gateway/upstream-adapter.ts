// Runs one operation upstream through a client: the stand-in for `rp.graphql.execute` until the
// in-process executor lands. It posts the document to the client's graphqlUrl.
import { CapacityUnavailableError, GraphQLResponseError, InsufficientBalanceError } from '../errors.js';
import type { RunpodClient } from '../client.js';
import type { ExecuteOptions, GatewayExecutionResult } from './types.js';

export async function executeThrough(rp: RunpodClient, source: string, variables: Record<string, unknown> | undefined, options: ExecuteOptions): Promise<GatewayExecutionResult> {
  try {
    const data = await rp.graphql.request<Record<string, unknown>, Record<string, unknown>>(source, variables ?? {}, { signal: options.signal });
    return { data };
  } catch (err) {
    if (err instanceof GraphQLResponseError) return { data: (err.data ?? null) as Record<string, unknown> | null, errors: err.errors };
    // GraphQL errors the client turned into typed errors: still a GraphQL answer with an error.
    if (err instanceof CapacityUnavailableError || err instanceof InsufficientBalanceError) {
      return { data: null, errors: [{ message: err.message, extensions: { code: err.name } }] };
    }
    throw err;
  }
}

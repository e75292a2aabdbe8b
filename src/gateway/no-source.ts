// The operator's lossy switch (`--null-for-no-source`): for callers that cannot take a partial
// answer, a nullable field REST v2 has no source for is answered with null and no error. Off by
// default: the caller can then no longer tell "no value" from "not answered". Each such field is
// logged once, so the operator sees what was dropped.
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Log } from '../transport/logger.js';

/** True for the error of a field with no source (the in-process executor's TransportUnsupportedError) whose value is null. */
function isDroppable(error: GraphQLError, data: unknown): boolean {
  if (error.extensions?.code !== 'TransportUnsupportedError' || !error.path) return false;
  let at: unknown = data;
  for (const step of error.path) {
    if (at === null || typeof at !== 'object') return false;
    at = (at as Record<string | number, unknown>)[step];
  }
  // A non-null field with no source is refused before anything runs: its parent would be null.
  return at === null;
}

/** A result less the errors of nullable fields with no source; each field is logged once per gateway. */
export function createNoSourceFilter(log: Log): (result: ExecutionResult) => ExecutionResult {
  const told = new Set<string>();
  return (result) => {
    if (!result.errors?.length || result.data == null) return result;
    const kept = result.errors.filter((error) => {
      if (!isDroppable(error, result.data)) return true;
      for (const field of (error.extensions?.fields as string[] | undefined) ?? []) {
        if (told.has(field)) continue;
        told.add(field);
        log.warn(`gateway: answered ${field} with null: REST v2 has no source for it (--null-for-no-source is on)`);
      }
      return false;
    });
    if (kept.length === result.errors.length) return result;
    const { errors: _dropped, ...rest } = result;
    return kept.length > 0 ? { ...rest, errors: kept } : rest;
  };
}

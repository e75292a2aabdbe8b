// The operator's lossy switch (`--null-for-no-source`), broader than the field map's kinds: for
// callers that cannot take a partial answer, a nullable *decisive* field REST v2 has no source for
// is answered with null and no error, as an informational one always is (src/field-map/types.ts),
// and named in the answer's `extensions.warnings`. Off by default: a caller that reads no warnings
// can then no longer tell "no value" from "not answered" for a field whose null misleads. Each such
// field is logged once, so the operator sees what was dropped.
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
    const dropped: Array<{ field: string; reason: string }> = [];
    const kept = result.errors.filter((error) => {
      if (!isDroppable(error, result.data)) return true;
      for (const field of (error.extensions?.fields as string[] | undefined) ?? []) {
        if (!dropped.some((w) => w.field === field)) dropped.push({ field, reason: 'no REST v2 source; answered null without an error because the gateway runs with --null-for-no-source' });
        if (told.has(field)) continue;
        told.add(field);
        log.warn(`gateway: answered ${field} with null: REST v2 has no source for it (--null-for-no-source is on)`);
      }
      return false;
    });
    if (kept.length === result.errors.length) return result;
    const { errors: _dropped, ...rest } = result;
    const warned = [...((result.extensions?.warnings as unknown[] | undefined) ?? []), ...dropped];
    const withWarned = { ...rest, extensions: { ...result.extensions, warnings: warned } };
    return kept.length > 0 ? { ...withWarned, errors: kept } : withWarned;
  };
}

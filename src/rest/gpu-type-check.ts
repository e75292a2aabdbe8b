import { closestGpuTypeId } from '../gpu-types/closest-id.js';
import type { CallOptions } from '../transport/options.js';
import type { LazyKit } from './lazy.js';
import type { RestRequester } from './rest-request.js';

interface CatalogEntry {
  readonly id: string;
  readonly displayName: string | null;
}

/**
 * The shared catalog read belongs to no caller, so it has its own short limits: a catalog that
 * cannot be read soon leaves creates unchecked rather than holding them up.
 */
const CATALOG_READ: CallOptions = { timeoutMs: 10_000, maxRetries: 0 };


/**
 * Checks a GPU type id against REST v2's catalog (`GET /catalog/gpus`), as GraphQL `deploy` does
 * against its own: an unknown id is a ValidationError naming the closest one, before the create is
 * sent. The catalog is read once per client and shared; each caller's signal ends only its own
 * wait. When the catalog cannot be read, or answers in another shape, nothing is refused.
 */
export function createRestGpuTypeCheck(rest: RestRequester, { isRecord, throwIfAborted, untilAborted, errors: { ValidationError } }: LazyKit): (field: string, id: string, signal: AbortSignal | undefined) => Promise<void> {
  let loading: Promise<CatalogEntry[] | undefined> | undefined;

  function load(): Promise<CatalogEntry[] | undefined> {
    if (loading) return loading;
    // Outside the REST bucket's pacing: a 429 on this read must not pause the create behind it
    // (the create then meets the limit itself, with its own error).
    const request = { ...rest.http({ method: 'GET', path: '/catalog/gpus', route: 'GET /catalog/gpus', idempotent: true }, CATALOG_READ), rateLimitKey: undefined };
    loading = rest.core.requestJson<unknown>(request).then(
      (body) => {
        const gpus: unknown = isRecord(body) ? body.gpus : undefined;
        const entries = (Array.isArray(gpus) ? gpus : [])
          .filter((g): g is Record<string, unknown> => isRecord(g) && typeof g.id === 'string' && g.id !== '')
          .map((g) => ({ id: g.id as string, displayName: typeof g.name === 'string' ? g.name : null }));
        if (entries.length === 0) loading = undefined;
        return entries.length > 0 ? entries : undefined;
      },
      () => {
        loading = undefined;
        return undefined;
      },
    );
    return loading;
  }

  return async (field, id, signal) => {
    throwIfAborted(signal, 'create');
    const catalog = await untilAborted(load(), signal, 'create');
    if (!catalog || catalog.some((entry) => entry.id === id)) return;
    const closest = closestGpuTypeId(id, catalog);
    const hint = closest ? `; did you mean "${closest}"?` : '';
    throw new ValidationError(field, `"${id}" is not a GPU type id${hint} (rest.catalog.gpus() gives the ids; display names are not ids)`);
  };
}

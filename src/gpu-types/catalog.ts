import { ValidationError } from '../errors.js';
import { GpuTypeCatalogDocument } from '../graphql/__generated__/operations.js';
import type { RunpodGraphQL } from '../graphql/graphql-client.js';
import type { RestRequester } from '../rest/rest-request.js';
import { throwIfAborted, untilAborted } from '../transport/abort.js';
import { isRecord } from '../transport/shape.js';
import type { TransportChoice } from '../transport/transport-choice.js';
import { loadRestPath, restPathKit } from './index.js';

/** A GPU type id of the platform and its display name. */
export interface CatalogEntry {
  readonly id: string;
  readonly displayName: string | null;
}

export interface GpuTypeCatalog {
  /**
   * Throws ValidationError when an id is not a GPU type id of the platform, naming the closest one.
   * The catalog is read once per client; when it cannot be read, nothing is refused.
   */
  check(field: string, ids: readonly string[], signal?: AbortSignal): Promise<void>;
}

/** The catalog entries of an answer of any shape: entries without a string id are skipped, a non-string name is null. */
export function catalogEntries(types: unknown): CatalogEntry[] {
  if (!Array.isArray(types)) return [];
  const entries: CatalogEntry[] = [];
  for (const t of types as unknown[]) {
    if (!isRecord(t) || typeof t.id !== 'string' || t.id === '') continue;
    entries.push({ id: t.id, displayName: typeof t.displayName === 'string' ? t.displayName : null });
  }
  return entries;
}


/**
 * The catalog deploy checks GPU type ids against, read once per client over the current path:
 * GraphQL's `GpuTypeCatalog`, or `GET /v2/catalog/gpus` once REST v2 is in use.
 */
export function createGpuTypeCatalog(graphql: RunpodGraphQL, rest: RestRequester, choice: TransportChoice): GpuTypeCatalog {
  let loading: Promise<CatalogEntry[] | undefined> | undefined;

  // Shared by concurrent deploys, so it does not take any one caller's signal; each caller waits
  // on it with its own (untilAborted).
  function load(): Promise<CatalogEntry[] | undefined> {
    loading ??= choice
      .run('pods', 'deploy', {
        graphql: async () => catalogEntries((await graphql.request(GpuTypeCatalogDocument))?.gpuTypes),
        rest: async () => catalogEntries(await (await loadRestPath()).readCatalogOverRest(restPathKit(rest))),
      })
      .then(
        (entries) => {
          // An answer of another shape just leaves the deploy unchecked, as an unreadable catalog does.
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

  return {
    async check(field, ids, signal) {
      if (ids.length === 0) return;
      throwIfAborted(signal, 'deploy');
      const catalog = await untilAborted(load(), signal);
      throwIfAborted(signal, 'deploy');
      if (!catalog) return;
      const known = new Set(catalog.map((t) => t.id));
      for (const id of ids) {
        if (known.has(id)) continue;
        // Only a mistake needs the suggestion: it loads then, not with the client.
        const closest = await import('./closest-id.js').then(
          (m) => m.closestGpuTypeId(id, catalog),
          () => undefined, // the suggestion is a nicety: a chunk that fails to load only loses it
        );
        const hint = closest ? `; did you mean "${closest}"?` : '';
        throw new ValidationError(field, `"${id}" is not a GPU type id${hint} (gpuTypes.list() gives the ids; display names are not ids)`);
      }
    },
  };
}

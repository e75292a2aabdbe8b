// The one GPU-type-id check of the client: deploy's (GraphQL's catalog, or REST v2's once in use)
// and rest.pods.create's (REST v2's) differ only in how they read the catalog.
import { ValidationError } from '../errors.js';
import { throwIfAborted, untilAborted } from '../transport/abort.js';
import { isRecord } from '../transport/shape.js';
import type { CatalogEntry } from './closest-id.js';

export type { CatalogEntry };

export interface GpuTypeCatalog {
  /**
   * Throws ValidationError when an id is not a GPU type id of the platform, naming the closest one.
   * The catalog is read once per client; when it cannot be read, nothing is refused.
   */
  check(field: string, ids: readonly string[], signal?: AbortSignal): Promise<void>;
}

/**
 * The catalog entries of an answer of any shape: entries without a string id are skipped, a
 * non-string name is null. `nameKey` is where the display name is (`name` in REST v2).
 */
export function catalogEntries(types: unknown, nameKey = 'displayName'): CatalogEntry[] {
  if (!Array.isArray(types)) return [];
  const entries: CatalogEntry[] = [];
  for (const t of types as unknown[]) {
    if (!isRecord(t) || typeof t.id !== 'string' || t.id === '') continue;
    const name = t[nameKey];
    entries.push({ id: t.id, displayName: typeof name === 'string' ? name : null });
  }
  return entries;
}

/**
 * A catalog `read` once per client and shared by concurrent calls, so it takes no one caller's
 * signal: each caller waits on it with its own (untilAborted). A read that fails or finds no entry
 * is tried again by the next call, and leaves this one unchecked.
 *
 * @param what The call, for the AbortError (`deploy`, `create`).
 * @param lists The call that lists the ids, for the error.
 */
export function createGpuTypeCatalog(read: () => Promise<CatalogEntry[]>, what: string, lists: string): GpuTypeCatalog {
  let loading: Promise<CatalogEntry[] | undefined> | undefined;
  const load = (): Promise<CatalogEntry[] | undefined> =>
    (loading ??= read().then(
      (entries) => {
        // An answer of another shape just leaves the call unchecked, as an unreadable catalog does.
        if (entries.length === 0) loading = undefined;
        return entries.length > 0 ? entries : undefined;
      },
      () => (loading = undefined),
    ));

  return {
    async check(field, ids, signal) {
      if (ids.length === 0) return;
      throwIfAborted(signal, what);
      const catalog = await untilAborted(load(), signal, what);
      throwIfAborted(signal, what);
      if (!catalog) return;
      for (const id of ids) {
        if (catalog.some((t) => t.id === id)) continue;
        // Only a mistake needs the suggestion: it loads then, not with the client.
        const closest = await import('./closest-id.js').then(
          (m) => m.closestGpuTypeId(id, catalog),
          () => undefined, // the suggestion is a nicety: a chunk that fails to load only loses it
        );
        const hint = closest ? `; did you mean "${closest}"?` : '';
        throw new ValidationError(field, `"${id}" is not a GPU type id${hint} (${lists} gives the ids; display names are not ids)`);
      }
    },
  };
}

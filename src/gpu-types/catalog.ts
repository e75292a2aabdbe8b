import { ValidationError } from '../errors.js';
import { throwIfAborted } from '../transport/abort.js';
import { GpuTypeCatalogDocument } from './__generated__/operations.js';
import type { RunpodGraphQL } from './graphql-client.js';

interface CatalogEntry {
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

const normalise = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '');

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The catalog id a mistaken id most likely meant: a display name, a case slip, a suffix, else the nearest spelling. */
export function closestGpuTypeId(given: string, catalog: readonly CatalogEntry[]): string | undefined {
  const key = normalise(given);
  if (!key) return undefined;
  const exact = catalog.find((t) => normalise(t.id) === key || (t.displayName !== null && normalise(t.displayName) === key));
  if (exact) return exact.id;
  const containing = catalog.filter((t) => normalise(t.id).includes(key)).sort((a, b) => a.id.length - b.id.length)[0];
  if (containing) return containing.id;
  let best: { id: string; distance: number } | undefined;
  for (const t of catalog) {
    for (const name of [t.id, t.displayName]) {
      if (!name) continue;
      const distance = editDistance(key, normalise(name));
      if (!best || distance < best.distance) best = { id: t.id, distance };
    }
  }
  return best && best.distance <= Math.max(2, Math.floor(key.length / 3)) ? best.id : undefined;
}

export function createGpuTypeCatalog(graphql: RunpodGraphQL): GpuTypeCatalog {
  let loading: Promise<CatalogEntry[] | undefined> | undefined;

  // Shared by concurrent deploys, so it does not take any one caller's signal.
  function load(): Promise<CatalogEntry[] | undefined> {
    loading ??= graphql.request(GpuTypeCatalogDocument).then(
      (data) => {
        // An answer of another shape just leaves the deploy unchecked, as an unreadable catalog does.
        const types: unknown = data?.gpuTypes;
        const entries = (Array.isArray(types) ? types : []).filter((t): t is CatalogEntry => typeof t?.id === 'string' && t.id !== '');
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
      const catalog = await load();
      throwIfAborted(signal, 'deploy');
      if (!catalog) return;
      const known = new Set(catalog.map((t) => t.id));
      for (const id of ids) {
        if (known.has(id)) continue;
        const closest = closestGpuTypeId(id, catalog);
        const hint = closest ? `; did you mean "${closest}"?` : '';
        throw new ValidationError(field, `"${id}" is not a GPU type id${hint} (gpuTypes.list() gives the ids; display names are not ids)`);
      }
    },
  };
}

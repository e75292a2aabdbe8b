import { AbortError, ValidationError } from '../errors.js';
import { GpuTypeCatalogDocument } from '../graphql/__generated__/operations.js';
import type { RunpodGraphQL } from '../graphql/graphql-client.js';
import type { RestRequester } from '../rest/rest-request.js';
import { throwIfAborted } from '../transport/abort.js';
import { isRecord } from '../transport/shape.js';
import type { TransportChoice } from '../transport/transport-choice.js';
import { loadRestPath, restPathKit } from './index.js';

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
  if (typeof given !== 'string') return undefined;
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

/** Settles with `promise`, or rejects with AbortError as soon as `signal` fires (`promise` goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError('deploy aborted by the caller', { cause: signal.reason }));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
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
        const closest = closestGpuTypeId(id, catalog);
        const hint = closest ? `; did you mean "${closest}"?` : '';
        throw new ValidationError(field, `"${id}" is not a GPU type id${hint} (gpuTypes.list() gives the ids; display names are not ids)`);
      }
    },
  };
}

/** A GPU type id of the platform and its display name. */
export interface CatalogEntry {
  readonly id: string;
  readonly displayName: string | null;
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


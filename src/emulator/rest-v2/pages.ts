// The one page cutter of every paginated REST v2 list, as production pages them: `limit` (1–1000,
// builds 1–100, the maximum when omitted), an opaque cursor bound to the account, the route and
// the list's parameters (any other is 422), and `pagination: { nextCursor, hasNextPage }`.
import { accountOf, type V2Context } from './context.js';
import { problem } from './problem.js';

export interface PageRules<T> {
  /** The largest `limit`, also its default. @default 1000 */
  maxLimit?: number;
  /** The query parameters that define the list (not `cursor` or `limit`): a cursor is only valid with the same ones. */
  params?: Record<string, unknown>;
  /**
   * Applied to each page after it is cut (pods without `includeClusterPods`): a page may then hold
   * fewer than `limit` items and still not be the last, as production's pod pages.
   */
  keep?: (item: T) => boolean;
}

export interface CutPage<T> {
  items: T[];
  pagination: { nextCursor: string | null; hasNextPage: boolean };
}

interface Position {
  /** What the cursor is bound to (a digest of account, route and parameters). */
  b: string;
  /** The id of the last item of the page before, and its index then. */
  a: string;
  i: number;
}

/** FNV-1a, 32 bits, as hex: enough to tell one list's cursor from another's. */
function digest(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

const toBase64Url = (text: string) => btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

function fromBase64Url(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    return atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
}

const invalid = (field: string, message: string) => problem(422, 'Request validation failed.', [`query.${field}: ${message}`]);

function readLimit(c: V2Context, max: number): number {
  const text = c.req.query('limit');
  if (text === undefined) return max;
  if (!/^\d{1,7}$/.test(text) || Number(text) < 1 || Number(text) > max) throw invalid('limit', `must be an integer from 1 to ${max}, got '${text.slice(0, 40)}'`);
  return Number(text);
}

function readCursor(text: string, binding: string): Position {
  const decoded = fromBase64Url(text);
  let position: unknown;
  try {
    position = decoded === undefined ? undefined : JSON.parse(decoded);
  } catch {
    position = undefined;
  }
  const p = position as Partial<Position> | undefined;
  if (typeof p !== 'object' || p === null || typeof p.b !== 'string' || typeof p.a !== 'string' || !Number.isInteger(p.i) || p.i! < 0) {
    throw invalid('cursor', 'malformed cursor; pass back a nextCursor verbatim');
  }
  if (p.b !== binding) throw invalid('cursor', 'the cursor belongs to another list or other parameters; a cursor is only valid for the operation and parameters that issued it');
  return p as Position;
}

/**
 * One page of `all` (already in the list's order) for this request. The cursor holds the last id
 * served and its index: the next page starts after that id wherever it now is (items created since,
 * at the front of a newest-first list, do not shift it), or at the index when it has gone.
 */
export function cutPage<T extends { id: string }>(c: V2Context, all: readonly T[], rules: PageRules<T> = {}): CutPage<T> {
  const max = rules.maxLimit ?? 1000;
  const limit = readLimit(c, max);
  const binding = digest(JSON.stringify([accountOf(c).id, c.req.method, c.req.path, Object.entries(rules.params ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))]));
  const cursor = c.req.query('cursor');
  let start = 0;
  if (cursor !== undefined) {
    if (cursor === '') throw invalid('cursor', 'must not be empty');
    const { a, i } = readCursor(cursor, binding);
    const at = all.findIndex((item) => item.id === a);
    start = at >= 0 ? at + 1 : Math.min(i + 1, all.length);
  }
  const cut = all.slice(start, start + limit);
  const end = start + cut.length;
  const hasNextPage = end < all.length;
  const last = cut[cut.length - 1];
  return {
    items: rules.keep ? cut.filter(rules.keep) : cut,
    pagination: { nextCursor: hasNextPage && last ? toBase64Url(JSON.stringify({ b: binding, a: last.id, i: end - 1 } satisfies Position)) : null, hasNextPage },
  };
}

/** Newest first, for lists kept in creation order. */
export const newestFirst = <T>(items: Iterable<T>): T[] => [...items].reverse();

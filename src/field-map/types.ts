// The shape of the field map: what each field of RunPod's GraphQL schema (schema.graphql) comes from
// once it is answered over REST v2. Data, not code: the in-process executor's generic resolver,
// rp.pods' REST path, the emulator's GraphQL views, the gateway's field scopes and the docs' table
// of what is answered after the 410 all read it (DESIGN.md, "one field map").

/**
 * Who may read a field through the gateway. A token of scope `read` reads `catalog` and `read`
 * fields; `write` reads everything and may run mutations. `catalog` is what a public price page
 * needs (the GPU catalog, no account data). A field that can hold a secret's value (`Pod.env`) is
 * `write`, so the token a page holds never reads it.
 */
export type FieldScope = 'catalog' | 'read' | 'write';

/** Where one field's value comes from. */
export type FieldSource =
  /** A dotted path in the parent's REST v2 object (`gpu.count`), read as it is. */
  | { readonly kind: 'path'; readonly path: string }
  /**
   * A named derivation (in the type's module) from the parent's REST v2 object. `reads` lists the
   * REST paths it reads (each checked against the contract); `why` says why the derivation holds.
   */
  | { readonly kind: 'derived'; readonly derive: string; readonly reads: readonly string[]; readonly why: string }
  /**
   * A resolver of its own: a read of another route (a list, the account's SSH keys) or a
   * mutation. `route` names the REST v2 operation(s) it calls (`GET /v2/templates`).
   */
  | { readonly kind: 'call'; readonly routes: readonly string[] }
  /** No REST v2 source: null, with one error naming the field. `why` is what the docs print. */
  | { readonly kind: 'none'; readonly why: string };

export interface FieldEntry {
  readonly source: FieldSource;
  /** @default the type's scope */
  readonly scope?: FieldScope | undefined;
}

export interface TypeMap {
  /**
   * The REST v2 component schema the parent object is (`Pod`), or null when the object is built
   * by a derivation or a call (its fields then read that object's own paths).
   */
  readonly rest: string | null;
  /** The scope of every field that does not name its own. */
  readonly scope: FieldScope;
  /** Every field of the GraphQL type, each listed (a test checks the list is whole). */
  readonly fields: Readonly<Record<string, FieldEntry>>;
}

/** `Type` → its map. Types absent here have no REST v2 source at all. */
export type FieldMap = Readonly<Record<string, TypeMap>>;

// ---- constructors, so the tables read as tables ------------------------------------------------

export const path = (p: string, scope?: FieldScope): FieldEntry => ({ source: { kind: 'path', path: p }, scope });
export const derived = (derive: string, reads: readonly string[], why: string, scope?: FieldScope): FieldEntry => ({
  source: { kind: 'derived', derive, reads, why },
  scope,
});
export const call = (routes: readonly string[], scope?: FieldScope): FieldEntry => ({ source: { kind: 'call', routes }, scope });
export const none = (why: string, scope?: FieldScope): FieldEntry => ({ source: { kind: 'none', why }, scope });

/** The value at a dotted path of a REST object, or undefined when any step is missing. */
export function readPath(value: unknown, dotted: string): unknown {
  let at: unknown = value;
  for (const step of dotted.split('.')) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, step)) return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

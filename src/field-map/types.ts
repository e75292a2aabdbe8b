// The shape of the field map: what each field of RunPod's GraphQL schema (schema.graphql) comes from
// once it is answered over REST v2. Data, not code: the in-process executor's generic resolver,
// rp.pods' REST path, the emulator's GraphQL views, the gateway's field scopes and the docs' table
// of what is answered after the 410 all read it (DESIGN.md, "one field map").
// Why a row holds (a derivation, a field with no source) is prose for the docs: it is in reasons.ts,
// keyed by `Type.field`, which no client module imports; only an informational row keeps its `why`,
// which its warning prints at run time.

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
   * REST paths it reads (each checked against the contract); why the derivation holds is in
   * reasons.ts (docs only).
   */
  | { readonly kind: 'derived'; readonly derive: string; readonly reads: readonly string[] }
  /**
   * A resolver of its own: a read of another route (a list, the account's SSH keys) or a
   * mutation. `route` names the REST v2 operation(s) it calls (`GET /v2/templates`).
   */
  | { readonly kind: 'call'; readonly routes: readonly string[] }
  /**
   * The value at `path` of the answer of `route`, a GET with no parameters (`GET /v2/account`),
   * read once per document whichever fields ask for it. No resolver of its own: one row in the map
   * is all it takes (what the account reads become once RunPod publishes their paths). The contract
   * test checks the route and the path against the REST v2 contract copy.
   */
  | { readonly kind: 'read'; readonly route: string; readonly path: string }
  /**
   * No REST v2 source. `effect` says what a null does to a caller (see {@link NoSourceKind}):
   * an `informational` field is null with no error, named once per answer in
   * `extensions.warnings`; a `decisive` one is null with one error naming it, and the static pass
   * (src/graphql/in-process/static-pass.ts) lists it before anything is sent. An informational
   * field's `why` is what its warning (and the docs) print; a decisive field's error names the
   * field, and its reason is in reasons.ts, for the docs only (no bundle carries it).
   */
  | { readonly kind: 'none'; readonly effect: 'informational'; readonly why: string; readonly standIn?: undefined }
  | { readonly kind: 'none'; readonly effect: 'decisive'; readonly standIn?: undefined }
  /**
   * No REST v2 source, for a field the package's own operations select (`PodFields`:
   * `Pod.machineId`, `PodRuntimeGpus.id`), so they keep working after the 410: answered as that
   * value, without an error or a warning, and the docs' table says so (with the reason in
   * reasons.ts).
   */
  | { readonly kind: 'none'; readonly standIn: StandIn; readonly effect?: undefined };

/**
 * What a null says to a caller, for a field with no REST v2 source.
 * - `informational`: no caller decides anything from the value (a container id, a legacy single
 *   port, a readme, a discontinued spot price): an honest null, with a warning, never an error.
 * - `decisive`: a null would mislead a caller's decision (availability, stock, balance, spend,
 *   limits, ids, counts, statuses): null with an error, as before.
 */
export type NoSourceKind = 'informational' | 'decisive';

/** One `extensions.warnings` item: a field answered null because it has no source, and why. */
export interface NoSourceWarning {
  /** `Type.field` */
  readonly field: string;
  readonly reason: string;
}

/** What a field with no source is answered as when the package's own operations select it. */
export type StandIn = { readonly value: string | number | boolean | null };

export interface FieldEntry {
  readonly source: FieldSource;
  /** @default the type's scope */
  readonly scope?: FieldScope | undefined;
  /**
   * For a field whose value is an object (or a list of objects): the GraphQL type it holds, so a
   * projection without the schema (rp.pods' REST path) knows which map its fields follow. The
   * contract test checks it against schema.graphql.
   */
  readonly type?: string | undefined;
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
export const derived = (derive: string, reads: readonly string[], scope?: FieldScope): FieldEntry => ({ source: { kind: 'derived', derive, reads }, scope });
export const call = (routes: readonly string[], scope?: FieldScope): FieldEntry => ({ source: { kind: 'call', routes }, scope });
export const read = (route: string, p: string, scope?: FieldScope): FieldEntry => ({ source: { kind: 'read', route, path: p }, scope });
/** No REST v2 source, and a null would mislead a caller's decision: null with an error naming the field (the reason: reasons.ts). */
export const decisive = (scope?: FieldScope): FieldEntry => ({ source: { kind: 'none', effect: 'decisive' }, scope });
/** No REST v2 source, and no caller decides anything from the value: null with a warning, no error. */
export const informational = (why: string, scope?: FieldScope): FieldEntry => ({ source: { kind: 'none', effect: 'informational', why }, scope });
/** A field with no source that the package's own operations select, answered as `value` (documented as lossy in the docs' table, with the reason in reasons.ts). */
export const standIn = (value: string | number | boolean | null, scope?: FieldScope): FieldEntry => ({ source: { kind: 'none', standIn: { value } }, scope });
/** `entry`, for a field that holds objects of the GraphQL type `type`. */
export const holding = (type: string, entry: FieldEntry): FieldEntry => ({ ...entry, type });

/**
 * The warnings of one answer: each informational field answered null is named once, with its
 * reason, however many objects of the answer hold it (`extensions.warnings`).
 */
export class NoSourceWarnings {
  private readonly byField = new Map<string, string>();

  add(field: string, reason: string): void {
    if (!this.byField.has(field)) this.byField.set(field, reason);
  }

  /** The warnings, in the order the fields were first met; undefined when there are none. */
  list(): NoSourceWarning[] | undefined {
    return this.byField.size === 0 ? undefined : [...this.byField].map(([field, reason]) => ({ field, reason }));
  }
}

/** `result` with `warnings` in its `extensions` (kept as it is when there are none). */
export function withWarnings<R extends { readonly extensions?: Readonly<Record<string, unknown>> | undefined }>(result: R, warnings: NoSourceWarnings): R {
  const list = warnings.list();
  return list ? { ...result, extensions: { ...result.extensions, warnings: list } } : result;
}

// ---- derivations ------------------------------------------------------------------------------

/** A REST v2 object as a derivation reads it. */
export type RestObject = Readonly<Record<string, unknown>>;

/**
 * A named derivation: the field's value from the parent's REST v2 object. It checks what it reads
 * and throws {@link WrongRestShape} on a value of another type (never a TypeError): the executor
 * and rp.pods turn that into a ServerError naming the field.
 */
export type Derivation = (parent: RestObject) => unknown;

/** Derivations by name; each module exports its own (`podDerivations`), and index.ts merges them. */
export type Derivations = Readonly<Record<string, Derivation>>;

/**
 * A REST v2 value of the wrong type, met while following the map. Internal: whoever follows the
 * map turns it into a ServerError (it never reaches a caller as it is). It names the REST path and
 * what was expected, never the value (a value can be a secret: `env`).
 */
export class WrongRestShape extends Error {
  override readonly name = 'WrongRestShape';
  constructor(
    readonly restPath: string,
    readonly expected: string,
  ) {
    super(`REST v2 answered ${restPath} with a value that is not ${expected}`);
  }
}

/** The value at a dotted path of a REST object, or undefined when any step is missing. */
export function readPath(value: unknown, dotted: string): unknown {
  let at: unknown = value;
  for (const step of dotted.split('.')) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, step)) return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

/** The requester's path of a parameterless GET route of the map (`GET /v2/account` → `/account`). */
export function readRoutePath(route: string): string {
  const match = /^GET \/v2(\/[^{}\s]*)$/.exec(route);
  if (!match) throw new Error(`${route}: a read names a GET route of REST v2 without parameters`);
  return match[1]!;
}

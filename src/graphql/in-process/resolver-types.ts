// What a resolver of the in-process executor sees: the document's context (its call options and
// the client's APIs, with reads shared within one document) and graphql-js's field info.
import type { GraphQLResolveInfo } from 'graphql';
import type { NoSourceWarnings } from '../../field-map/types.js';
import type { PodsApi } from '../../pods/types.js';
import type { RunpodRest } from '../../rest/rest-client.js';
import type { CallOptions } from '../../transport/options.js';

export interface ResolverContext {
  /** The document's call options (signal, timeout, …), the same for every read it makes. */
  readonly options: CallOptions;
  /** The client's rp.rest. */
  readonly rest: RunpodRest;
  /** The client's rp.pods (its REST path, with the create-once rule). */
  readonly pods: PodsApi;
  /** The answer's `extensions.warnings`: informational fields answered null. */
  readonly warnings: NoSourceWarnings;
  /** The answer of a parameterless REST v2 GET (`/account`), read once per document (the map's `read` rows). */
  get(path: string, route: string): Promise<unknown>;
  /** `read()` once per `key` within one document, whichever fields ask for it. */
  once<T>(key: string, read: () => Promise<T>): Promise<T>;
  /**
   * The object `id`, read once per document: ids asked for together (the items of a list, aliased
   * fields) are read by id when they are few, else answered by one `readAll` shared with the list
   * field of `listKey` (an id the list lacks is still read by id). Null when it does not exist.
   */
  byId<T extends { id: string }>(listKey: string, id: string, readOne: (id: string) => Promise<T | null>, readAll: () => Promise<T[]>): Promise<T | null>;
}

/** A field's own resolver: a read of another route, or a mutation. */
export type Resolver = (args: Record<string, unknown>, ctx: ResolverContext, info: GraphQLResolveInfo, source: unknown) => unknown;

/** `Type` → `field` → resolver. */
export type ResolverTable = Readonly<Record<string, Readonly<Record<string, Resolver>>>>;

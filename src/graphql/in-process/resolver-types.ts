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
  /** `read()` once per `key` within one document, whichever fields ask for it. */
  once<T>(key: string, read: () => Promise<T>): Promise<T>;
}

/** A field's own resolver: a read of another route, or a mutation. */
export type Resolver = (args: Record<string, unknown>, ctx: ResolverContext, info: GraphQLResolveInfo, source: unknown) => unknown;

/** `Type` → `field` → resolver. */
export type ResolverTable = Readonly<Record<string, Readonly<Record<string, Resolver>>>>;

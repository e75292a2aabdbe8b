// The types a GraphQL call carries between the client (graphql-client.ts) and the runtime it loads
// on the first call (graphql-runtime.ts): both read them here, so neither imports the other's types.
import type { AuthPlacement, HttpCore } from '../transport/http-core.js';
import type { CallOptions } from '../transport/options.js';
import type { TransportChoice } from '../transport/transport-choice.js';

export interface GraphQLCallOptions extends CallOptions {
  /**
   * Whether the operation may be sent again after it may have reached the server.
   * @default true for queries, false for mutations
   */
  idempotent?: boolean | undefined;
}

/** What `request` needs to know of a document (internal: the in-process route computes it too). */
export interface DocumentFacts {
  readonly source: string;
  readonly operationName: string | undefined;
  readonly isMutation: boolean;
  /** Shown in errors: the operation's name, or what kind of anonymous operation it is. */
  readonly label: string;
  /** The request body up to the variables, serialised once per document. */
  readonly bodyStart: string;
  /** Codegen's hash of the document (its id in persisted-documents.json), when it carries one. */
  readonly documentId?: string | undefined;
}

/**
 * A surface's check of `data` (a pod with an id, a list of GPU types), run inside `request` where
 * the request is known, so a wrong shape is the same ServerError as a wrong-shaped `data`.
 */
export interface DataCheck {
  readonly check: (data: Record<string, unknown>) => boolean;
  /** What was expected, e.g. `myself.pods` as a list of pods. */
  readonly expected: string;
}

/** One GraphQL client, as graphql-runtime.ts sees it; it keeps graphql-request's client in `client`. */
export interface GraphQLClientState {
  readonly core: HttpCore;
  readonly choice: Pick<TransportChoice, 'retired' | 'gate'> | undefined;
  readonly url: string;
  /** The URL as errors show it. */
  readonly summaryUrl: string;
  readonly auth: AuthPlacement;
  /** How a document with a hash is sent: the text, the id with the text, or the id alone. */
  readonly persisted: 'text' | 'id-and-text' | 'id';
  client?: unknown;
}

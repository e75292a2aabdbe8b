// What one request carries through the gateway's pipeline (pipeline.ts): each stage reads what the
// stages before it set, and sets what it owns. Nothing here outlives its request.
import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import type { RunpodClient } from '../client.js';
import type { SecretScope } from '../transport/redact.js';
import type { RequestIds } from './answers.js';
import type { CallerLimitSettings } from './fairness.js';
import type { HangUp } from './hang-up.js';
import type { GraphQLParams, Refusal } from './protocol.js';
import type { Scrub } from './scrub.js';
import type { GatewayScope } from './tokens.js';

/**
 * One caller, authenticated: what it may do, the credential its rate and in-flight slots are kept
 * under, its upstream client, its address, and the scrubber of its answers.
 */
export interface Caller {
  /** How it authenticated: a gateway token, its own RunPod key, or no credential (anonymous, or a public caller). */
  readonly kind: 'token' | 'pass-through' | 'anonymous' | 'public';
  readonly scope: GatewayScope;
  /** What logs and metrics call it: its token's name, or `pass-through`, `anonymous`, `public`. Never a secret. */
  readonly name: string;
  /** Its own limits, where its token sets them. */
  readonly limits?: CallerLimitSettings | undefined;
  /** What its rate and in-flight slots are kept under (undefined: the anonymous caller). Secret: never logged. */
  readonly credential: string | undefined;
  readonly client: () => RunpodClient;
  readonly address: string;
  readonly scrub: Scrub;
  readonly onRefusedKey?: (() => void) | undefined;
  /** Called when RunPod accepted the caller's key (pass-through): other callers' answers are scrubbed of it for a while. */
  readonly onAcceptedKey?: (() => void) | undefined;
  /** A public caller's answer to anything but a catalog read: the 401 a request without a credential always got. */
  readonly unauthenticated?: Refusal | undefined;
}

/** What the execute stage records of the document's upstream work, for the answer's observers. */
export interface UpstreamRecord {
  /** Upstream answers seen (each one call). */
  calls: number;
  /** Their HTTP statuses, in order (bounded, as the request ids are). */
  readonly statuses: number[];
}

/** The per-request state of the pipeline. */
export interface GatewayContext {
  readonly request: Request;
  readonly url: URL;
  /** The peer's address ('' when the server passed none). */
  readonly address: string;
  readonly ids: RequestIds;
  /** The caller's hang-up: the request's signal, or its connection's close behind the Node listener. */
  readonly hangUp: HangUp;
  /** `performance.now()` when the request arrived. */
  readonly startedAt: number;
  /** The media type of the answer (set by the host stage from `Accept`). */
  media: string;
  /** The page origin to answer with, once allowed (host stage). */
  origin?: string | undefined;
  /** Who asks (auth stage). */
  caller?: Caller | undefined;
  /** The request's parameters (document stage). */
  params?: GraphQLParams | undefined;
  /** The document text that runs (document stage): a persisted one, or the request's own. */
  text?: string | undefined;
  document?: DocumentNode | undefined;
  operation?: OperationDefinitionNode | undefined;
  /**
   * The secret inputs of this document (passwords, secret values, env values), filed by the
   * variables stage once they passed coercion: scrubbed from its own answer and errors only.
   */
  secrets?: SecretScope | undefined;
  readonly upstream: UpstreamRecord;
  /** Whether a cache answered: undefined when no cache was asked. */
  cache?: 'hit' | 'miss' | undefined;
  /** Why the request was refused with 429, when it was (`RATE_LIMITED`, `TOO_MANY_IN_FLIGHT`, …). */
  refusedFor?: string | undefined;
}

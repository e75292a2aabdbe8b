// The `runpod-gql/graphql/fetch` entry: a page-sized client for a runpod-gql gateway. It runs
// codegen's documents (the package's own or an app's) by their persisted id, or by their text when
// they carry none, with the page's gateway token, and throws the package's error classes. It loads
// neither graphql-js nor the HTTP core: a page pays for `fetch` and these lines (budget 2 KB gz).
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import {
  AbortError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  GraphQLResponseError,
  PermissionDeniedError,
  PossiblyCreatedError,
  RateLimitError,
  ServerError,
  ValidationError,
  type GraphQLErrorEntry,
} from '../errors.js';
import { persistedIdOf } from './document-id.js';

/** Options of {@link createGatewayFetcher}. */
export interface GatewayFetcherOptions {
  /**
   * The gateway's GraphQL URL; a relative one is on the page's own origin.
   * @default '/graphql'
   */
  url?: string | undefined;
  /**
   * The gateway token (`catalog` or `read` for a page), sent as `Authorization: Bearer`. A
   * function is asked before every request (a token that is refreshed). Omit it for an
   * `--allow-anonymous` gateway.
   */
  token?: string | (() => string | undefined | Promise<string | undefined>) | undefined;
  /** Headers sent with every request. Each one a page adds must be allowed by the gateway's `--cors-header NAME`. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** The `fetch` to use. @default globalThis.fetch */
  fetch?: typeof fetch | undefined;
  /**
   * How many times a read answered 429 or 503 is sent again, after the answer's `Retry-After`
   * in seconds (a wait over 60 s is not waited for; without one, 0.5 s, then 1 s, …). Mutations are never sent twice.
   * @default 2
   */
  maxRetries?: number | undefined;
}

/** Per-request options. */
export interface GatewayRequestOptions {
  signal?: AbortSignal | undefined;
  /** Headers for this request (over the fetcher's). */
  headers?: Readonly<Record<string, string>> | undefined;
}

/** `[variables, options]`, with `variables` optional when the operation has no required variable. */
export type GatewayArgs<TVariables> = Record<string, never> extends TVariables
  ? [variables?: TVariables, options?: GatewayRequestOptions]
  : [variables: TVariables, options?: GatewayRequestOptions];

/**
 * Runs a typed document (codegen's `TypedDocumentString` or typed `DocumentNode`) on the gateway
 * and resolves with its `data`, typed by the document. GraphQL errors are thrown as
 * `GraphQLResponseError`, HTTP errors as the package's `ApiError` subclasses.
 */
export type GatewayFetcher = <TResult, TVariables>(document: DocumentTypeDecoration<TResult, TVariables>, ...args: GatewayArgs<TVariables>) => Promise<TResult>;

interface Answer {
  data?: unknown;
  errors?: GraphQLErrorEntry[];
}

const REDACTED = '[REDACTED]';

/** The document's text, or '' for a document that is its id alone (or a DocumentNode without its source). */
function textOf(document: unknown): string {
  if (document !== null && typeof document === 'object' && (document as { kind?: unknown }).kind === 'Document') {
    return (document as { loc?: { source?: { body?: string } } }).loc?.source?.body ?? '';
  }
  const text = String(document);
  return text === '[object Object]' ? '' : text;
}

/**
 * A fetcher for pages: `execute(document, variables)` on a runpod-gql gateway. A document that
 * carries codegen's persisted-document id (`__meta__.hash` or `__meta__.documentId`, any algorithm)
 * is sent as `{ documentId, variables }`, as a `--persisted` gateway takes it; any other as
 * `{ query, variables }`.
 *
 * ```ts
 * const execute = createGatewayFetcher({ url: '/graphql', token: CATALOG_TOKEN });
 * const { gpuTypes } = await execute(GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } });
 * ```
 */
export function createGatewayFetcher(options: GatewayFetcherOptions = {}): GatewayFetcher {
  const { url = '/graphql', token, headers, maxRetries = 2 } = options;
  return (async (document: unknown, variables?: unknown, call: GatewayRequestOptions = {}) => {
    const documentId = persistedIdOf(document);
    const text = textOf(document);
    // Codegen writes the operation first: its keyword and name. A document that starts otherwise
    // (a fragment, a comment) or is its id alone is not known to read, so it is never sent twice.
    const [, kind, name] = /^\s*(query|mutation|(?={))\s*(\w*)/.exec(text) ?? [];
    const definitions = (document as { definitions?: Array<{ operation?: string }> }).definitions;
    const reads = definitions ? !definitions.some((d) => d.operation === 'mutation') : kind !== undefined && kind !== 'mutation';
    const label = name || (documentId ? `document ${documentId}` : 'document');
    const request = { method: 'POST', url, operation: label };
    if (!documentId && !text) throw new ValidationError('document', 'expected a generated document: its persisted id or its text');
    const body = JSON.stringify(documentId ? { documentId, variables } : { query: text, variables });
    const { signal } = call;
    for (let attempt = 0; ; attempt++) {
      const bearer = typeof token === 'function' ? await token() : token;
      // The token is the page's one secret: no error this fetcher builds carries it.
      const scrub = (value: string) => (bearer ? value.replaceAll(bearer, REDACTED) : value);
      let response: Response;
      let answer: Answer;
      try {
        response = await (options.fetch ?? fetch)(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers, ...call.headers, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
          body,
          signal,
        });
      } catch (err) {
        if (signal?.aborted) throw new AbortError(`${label} was aborted`, { request, cause: signal.reason });
        throw new ConnectionError(`${label}: the gateway could not be reached`, { request, cause: err, notSent: false });
      }
      const { status } = response;
      const requestId = response.headers.get('x-request-id') ?? undefined;
      let raw = '';
      try {
        raw = scrub(await response.text());
        answer = JSON.parse(raw) as Answer;
        if (answer === null || typeof answer !== 'object') throw 0;
      } catch {
        throw new ServerError(`${label} failed with HTTP ${status}: not JSON`, { status, body: raw.slice(0, 300), request, requestId });
      }
      const errors = Array.isArray(answer.errors) && answer.errors.length ? answer.errors : undefined;
      const detail = errors ? errors.map((e) => e?.message).join('; ') : raw.slice(0, 300);
      const data = answer.data;
      // A 2xx without `errors` or an object in `data` is a wrong-shaped answer: a ServerError, below.
      if (status < 300 && !errors && data !== null && typeof data === 'object') return data;
      const retryAfter = response.headers.get('retry-after');
      // The gateway's Retry-After is whole seconds; anything else is not waited for.
      const waitMs = retryAfter === null ? 2 ** attempt * 500 : Number(retryAfter) * 1000;
      if (reads && (status === 429 || status === 503) && attempt < maxRetries && waitMs <= 60_000) {
        // An abort ends the wait at once; the next attempt's fetch then fails as aborted.
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, waitMs);
          signal?.addEventListener('abort', () => resolve(clearTimeout(timer)), { once: true });
        });
        continue;
      }
      const message = `${label} failed with HTTP ${status}: ${detail}`;
      const context = { status, body: answer, request, requestId };
      const code = errors?.[0]?.extensions?.code;
      if (code === 'POSSIBLY_CREATED') throw new PossiblyCreatedError(message, { createMarker: String(errors![0]!.extensions!.createMarker ?? ''), request, requestId });
      if (status === 401) throw new AuthenticationError(message, context);
      if (status === 403) throw new PermissionDeniedError(message, context);
      if (status === 429) throw new RateLimitError(message, { ...context, retryAfterMs: retryAfter === null ? undefined : waitMs });
      if (status >= 500 || (status < 300 && !errors)) throw new ServerError(message, context);
      if (errors) throw new GraphQLResponseError(message, { errors, data, operationName: label, status, request, requestId });
      throw new BadRequestError(message, context);
    }
  }) as GatewayFetcher;
}

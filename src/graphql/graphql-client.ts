import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import type { DocumentNode, ExecutionResult } from 'graphql';
import type { AuthPlacement, HttpCore } from '../transport/http-core.js';
import { DEFAULT_GRAPHQL_URL, type CallOptions } from '../transport/options.js';
import { redactUrl } from '../transport/redact.js';
import type { TransportChoice } from '../transport/transport-choice.js';
import { toJsonBody } from '../validation.js';
import type { DataCheck, DocumentFacts, GraphQLCallOptions, GraphQLClientState } from './graphql-call-types.js';

export type { DataCheck, DocumentFacts, GraphQLCallOptions, GraphQLClientState };

/** Any typed document: codegen's `TypedDocumentString`, a `TypedDocumentNode`, or a plain string. */
export type GraphQLDocument<TResult, TVariables> = DocumentTypeDecoration<TResult, TVariables> | string;

/** `[variables, options]`, with `variables` optional when the operation has no required variable. */
export type VariablesAndOptions<TVariables> = Record<string, never> extends TVariables
  ? [variables?: TVariables, options?: GraphQLCallOptions]
  : [variables: TVariables, options?: GraphQLCallOptions];

/** Options of {@link RunpodGraphQL.execute}. */
export interface GraphQLExecuteOptions extends GraphQLCallOptions {
  /** Which operation of a document that holds several to run. */
  operationName?: string | undefined;
}

export interface RunpodGraphQL {
  /**
   * Runs any typed document and resolves with its `data`; GraphQL errors are thrown as typed
   * errors. Over RunPod's GraphQL while it is in use (`graphqlTransport`), else in process over
   * REST v2 (no GraphQL request is sent).
   */
  request<TResult, TVariables>(document: GraphQLDocument<TResult, TVariables>, ...args: VariablesAndOptions<TVariables>): Promise<TResult>;
  /**
   * Runs any document valid against schema.graphql and resolves with the whole result: GraphQL
   * errors (an invalid document, a field that failed) are in `errors`, not thrown. Failures to reach
   * the API are thrown as RunpodError. Routed as `request` is.
   */
  execute<TResult = Record<string, unknown>, TVariables = Record<string, unknown>>(
    document: GraphQLDocument<TResult, TVariables> | DocumentNode,
    variables?: TVariables,
    options?: GraphQLExecuteOptions,
  ): Promise<ExecutionResult<TResult>>;
}

/** What the package's own surfaces use: `request` on RunPod's GraphQL (they route themselves). */
export type GraphQLRequester = Pick<RunpodGraphQL, 'request'>;


/**
 * graphql-request and graphql's parser are loaded on the first GraphQL call, not when the package
 * is imported: `import('runpod-gql')` stays cheaper than importing graphql-request alone, and a
 * program that only uses REST or serverless never loads them. Everything a GraphQL call does once
 * they are loaded (the document's facts, the send, the answer's checks) loads with them.
 */
type GraphQLRuntime = typeof import('./graphql-runtime.js');
let runtime: GraphQLRuntime | undefined;
let loadingRuntime: Promise<GraphQLRuntime> | undefined;
/** Loads the GraphQL runtime now (tests that fake timers call it first: loading is real I/O). */
export function loadGraphQLRuntime(): Promise<GraphQLRuntime> {
  loadingRuntime ??= import('./graphql-runtime.js').then((loaded) => (runtime = loaded));
  return loadingRuntime;
}

/** The facts of a document at once, when the GraphQL runtime is loaded (a repeated call skips a promise hop). */
export function documentFactsNow(document: unknown): DocumentFacts | undefined {
  return runtime?.factsOf(document);
}

/** The facts of any document the client takes, loading the GraphQL runtime if need be. */
export async function documentFacts(document: unknown): Promise<DocumentFacts> {
  return (runtime ?? (await loadGraphQLRuntime())).factsOf(document);
}

/** Where a DataCheck travels in the call options: internal, so not part of GraphQLCallOptions. */
const DATA_CHECK = Symbol('dataCheck');

/**
 * Internal: `request` sends the document these facts describe and resolves with the answer's
 * `{ data, errors }` (errors not thrown), for `execute`.
 */
const RAW = Symbol('raw');
export function rawOptions(options: GraphQLCallOptions | undefined, facts: DocumentFacts): GraphQLCallOptions {
  return { ...options, [RAW]: facts } as GraphQLCallOptions;
}

/** `options` with `check` attached, for the package's own surfaces. */
export function withDataCheck(options: GraphQLCallOptions | undefined, check: DataCheck): GraphQLCallOptions {
  return { ...options, [DATA_CHECK]: check } as GraphQLCallOptions;
}

/**
 * `choice` hears of every 410 Gone from `graphqlUrl`: this is where the retirement is first seen,
 * whichever call met it (a user's own document included).
 */
export function createGraphQLClient(core: HttpCore, choice?: Pick<TransportChoice, 'retired' | 'gate'>): GraphQLRequester {
  const url = core.options.graphqlUrl;
  const mode = core.options.persistedDocuments;
  // RunPod's GraphQL keeps no persisted documents: in 'auto' it gets the text only.
  const persisted = mode === 'never' ? 'text' : mode === 'always' ? 'id' : new URL(url).host === new URL(DEFAULT_GRAPHQL_URL).host ? 'text' : 'id-and-text';
  const state: GraphQLClientState = { core, choice, url, summaryUrl: redactUrl(url), auth: core.options.graphqlAuth === 'header' ? 'bearer' : 'api-key-query', persisted };
  return {
    request: (async (document: unknown, variables?: unknown, options: GraphQLCallOptions = {}) => {
      // Variables that cannot travel as JSON are refused before anything loads.
      const variablesText = variables === undefined ? undefined : toJsonBody('variables', variables);
      const raw = (options as { [RAW]?: DocumentFacts })[RAW];
      const dataCheck = (options as { [DATA_CHECK]?: DataCheck })[DATA_CHECK];
      return (runtime ?? (await loadGraphQLRuntime())).request(state, document, variablesText, options, raw, dataCheck);
    }) as RunpodGraphQL['request'],
  };
}

/** What `request` and `execute` do when they do not go to RunPod's GraphQL (src/graphql/in-process/route.ts). */
export interface GraphQLRoutes {
  request(document: unknown, variables: unknown, options: GraphQLCallOptions | undefined): Promise<unknown>;
  execute(document: unknown, variables: unknown, options: GraphQLExecuteOptions | undefined): Promise<ExecutionResult>;
}

/**
 * rp.graphql: `request` goes where the transport choice says, RunPod's GraphQL or in process over
 * REST v2 (loaded on first use); `execute` is routed the same way inside `routes`. The package's
 * own surfaces use `upstream`, as they route themselves.
 */
export function routeGraphQL(upstream: GraphQLRequester, choice: TransportChoice, routes: () => Promise<GraphQLRoutes>): RunpodGraphQL {
  return {
    request: ((document: unknown, variables?: unknown, options?: GraphQLCallOptions) =>
      choice.run('graphql', 'request', {
        graphql: () => upstream.request(document as string, variables as never, options),
        rest: async () => (await routes()).request(document, variables, options),
      })) as RunpodGraphQL['request'],
    execute: (async (document: unknown, variables?: unknown, options?: GraphQLExecuteOptions) => (await routes()).execute(document, variables, options)) as RunpodGraphQL['execute'],
  };
}

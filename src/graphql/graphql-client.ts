import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import type { GraphQLClient } from 'graphql-request';
import type { DocumentNode, ExecutionResult, OperationDefinitionNode } from 'graphql';
import { ApiRetiredError, RunpodError, ServerError, ValidationError, type GraphQLErrorEntry } from '../errors.js';
import { errorFromGraphQLErrors } from './graphql-errors.js';
import { withRequestId } from '../transport/answer-facts.js';
import type { HttpCore, HttpRequest, HttpResult } from '../transport/http-core.js';
import type { CallOptions } from '../transport/options.js';
import { redactUrl, redactValue } from '../transport/redact.js';
import { toJsonBody } from '../validation.js';
import { isRecord } from '../transport/shape.js';
import type { TransportChoice } from '../transport/transport-choice.js';

/** Any typed document: codegen's `TypedDocumentString`, a `TypedDocumentNode`, or a plain string. */
export type GraphQLDocument<TResult, TVariables> = DocumentTypeDecoration<TResult, TVariables> | string;

export interface GraphQLCallOptions extends CallOptions {
  /**
   * Whether the operation may be sent again after it may have reached the server.
   * @default true for queries, false for mutations
   */
  idempotent?: boolean | undefined;
}

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

/** What `request` needs to know of a document (internal: the in-process route computes it too). */
export interface DocumentFacts {
  readonly source: string;
  readonly operationName: string | undefined;
  readonly isMutation: boolean;
  /** Shown in errors: the operation's name, or what kind of anonymous operation it is. */
  readonly label: string;
  /** The request body up to the variables, serialised once per document. */
  readonly bodyStart: string;
}

export function makeFacts(source: string, operationName: string | undefined, operationType: string): DocumentFacts {
  if (operationType === 'subscription') throw new ValidationError('document', 'subscriptions are not supported');
  const isMutation = operationType === 'mutation';
  const bodyStart = `{"query":${JSON.stringify(source)}${operationName === undefined ? '' : `,"operationName":${JSON.stringify(operationName)}`}`;
  return { source, operationName, isMutation, label: operationName ?? `anonymous ${operationType}`, bodyStart };
}

/**
 * graphql-request and graphql's parser are loaded on the first GraphQL call, not when the package
 * is imported: `import('runpod-gql')` stays cheaper than importing graphql-request alone, and a
 * program that only uses REST or serverless never loads them.
 */
interface GraphQLRuntime {
  readonly GraphQLClient: typeof GraphQLClient;
  readonly parse: typeof import('graphql').parse;
  readonly print: typeof import('graphql').print;
}
let runtime: GraphQLRuntime | undefined;
let loadingRuntime: Promise<GraphQLRuntime> | undefined;
/** Loads the GraphQL runtime now (tests that fake timers call it first: loading is real I/O). */
export function loadGraphQLRuntime(): Promise<GraphQLRuntime> {
  loadingRuntime ??= import('./graphql-runtime.js').then((loaded) => (runtime = loaded));
  return loadingRuntime;
}

// graphql's `Kind` values, spelled out so that nothing here loads graphql eagerly.
const DOCUMENT = 'Document';
const OPERATION_DEFINITION = 'OperationDefinition';

function factsOfAst(source: string, ast: DocumentNode): DocumentFacts {
  const operations = ast.definitions.filter((d): d is OperationDefinitionNode => d.kind === OPERATION_DEFINITION);
  if (operations.length !== 1) throw new ValidationError('document', `expected exactly one operation, found ${operations.length}`);
  const [operation] = operations as [OperationDefinitionNode];
  return makeFacts(source, operation.name?.value, operation.operation);
}

const MAX_CACHED_STRINGS = 500;
const stringFacts = new Map<string, DocumentFacts>();
/** Generated documents (and users' DocumentNodes) are objects: their facts live as long as they do. */
const objectFacts = new WeakMap<object, DocumentFacts>();

/** The one place a user's plain-string document is parsed, once per distinct string. */
function factsOfString(source: string, rt: GraphQLRuntime): DocumentFacts {
  const cached = stringFacts.get(source);
  if (cached) return cached;
  let ast;
  try {
    ast = rt.parse(source, { noLocation: true });
  } catch (err) {
    throw new ValidationError('document', `not a valid GraphQL document: ${(err as Error).message}`);
  }
  const facts = factsOfAst(source, ast);
  if (stringFacts.size >= MAX_CACHED_STRINGS) stringFacts.clear();
  stringFacts.set(source, facts);
  return facts;
}

/** Codegen's `__meta__` (see codegen.ts): `{ operationName, operationType }`. */
function factsFromMeta(source: string, meta: unknown): DocumentFacts | undefined {
  if (!isRecord(meta) || typeof meta.operationType !== 'string') return undefined;
  const name = meta.operationName;
  if (name !== undefined && typeof name !== 'string') return undefined;
  return makeFacts(source, name, meta.operationType);
}

/** The facts of any document the client takes, loading the GraphQL runtime if need be. */
export async function documentFacts(document: unknown): Promise<DocumentFacts> {
  return factsOf(document, runtime ?? (await loadGraphQLRuntime()));
}

function factsOf(document: unknown, rt: GraphQLRuntime): DocumentFacts {
  if (typeof document === 'string') return factsOfString(document, rt);
  if (document === null || typeof document !== 'object') throw new ValidationError('document', 'expected a GraphQL document');
  const cached = objectFacts.get(document);
  if (cached) return cached;
  let facts: DocumentFacts;
  if ((document as { kind?: unknown }).kind === DOCUMENT) {
    facts = factsOfAst(rt.print(document as DocumentNode), document as DocumentNode);
  } else {
    const source = String(document);
    facts = factsFromMeta(source, (document as { __meta__?: unknown }).__meta__) ?? factsOfString(source, rt);
  }
  objectFacts.set(document, facts);
  return facts;
}

/**
 * What graphql-request reads from a fetch answer (`ok`, `status`, `text()` and the content type);
 * the core has already read the body and its content type, so nothing is read twice.
 */
class ReadAnswer {
  readonly ok = true;
  constructor(
    readonly status: number,
    private readonly contentType: string | null,
    private readonly body: string,
  ) {}
  /** graphql-request only asks the headers for the content type. */
  get headers(): Pick<Headers, 'get'> {
    return this;
  }
  get(name: string): string | null {
    return name.toLowerCase() === 'content-type' ? this.contentType : null;
  }
  text(): Promise<string> {
    return Promise.resolve(this.body);
  }
}

/**
 * One call's state. graphql-request hands its `signal` option to `fetch` untouched, so the call
 * travels in that slot to the client's one `fetch`, without ambient state or a client per call.
 */
interface GraphQLCall {
  readonly request: HttpRequest;
  result?: HttpResult;
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

function isErrorEntry(value: unknown): value is GraphQLErrorEntry {
  return isRecord(value) && typeof value.message === 'string';
}

/**
 * `choice` hears of every 410 Gone from `graphqlUrl`: this is where the retirement is first seen,
 * whichever call met it (a user's own document included).
 */
export function createGraphQLClient(core: HttpCore, choice?: Pick<TransportChoice, 'retired' | 'gate'>): GraphQLRequester {
  const url = core.options.graphqlUrl;
  const summaryUrl = redactUrl(url);
  const auth = core.options.graphqlAuth === 'header' ? 'bearer' : 'api-key-query';

  let client: GraphQLClient | undefined;
  const makeClient = (rt: GraphQLRuntime) => new rt.GraphQLClient(url, {
    excludeOperationName: true,
    errorPolicy: 'all',
    // The body is built in `fetch` from per-document text serialised once; graphql-request's
    // own body is not used.
    jsonSerializer: { parse: JSON.parse, stringify: () => '' },
    fetch: async (_input: RequestInfo | URL, init?: RequestInit) => {
      const call = init?.signal as unknown as GraphQLCall;
      const result = await core.request(call.request);
      call.result = result;
      const contentType = result.headers.get('content-type');
      if (!contentType?.includes('json')) throw core.notJson(call.request, result);
      return new ReadAnswer(result.status, contentType, result.text) as unknown as Response;
    },
  });

  async function request<TResult, TVariables>(document: GraphQLDocument<TResult, TVariables>, variables?: TVariables, options: GraphQLCallOptions = {}): Promise<TResult> {
    const rt = runtime ?? (await loadGraphQLRuntime());
    client ??= makeClient(rt);
    const raw = (options as { [RAW]?: DocumentFacts })[RAW];
    const facts = raw ?? factsOf(document, rt);
    const variablesText = variables === undefined ? undefined : toJsonBody('variables', variables);
    const httpRequest: HttpRequest = {
      method: 'POST',
      url,
      auth,
      body: variablesText === undefined ? `${facts.bodyStart}}` : `${facts.bodyStart},"variables":${variablesText}}`,
      operation: facts.label,
      idempotent: options.idempotent ?? !facts.isMutation,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      deadlineMs: options.deadlineMs,
      headers: options.headers,
      onResponse: options.onResponse,
      fetchOptions: options.fetchOptions,
      rateLimitKey: 'graphql',
      gate: choice?.gate,
    };
    const call: GraphQLCall = { request: httpRequest };

    let response;
    try {
      response = await client.rawRequest<TResult>({ query: facts.source, signal: call as unknown as AbortSignal });
    } catch (err) {
      if (err instanceof ApiRetiredError) choice?.retired(err);
      if (err instanceof RunpodError) throw err;
      // graphql-request refused the answer's shape (not an object, `data` not an object, ...).
      throw core.wrongShape(httpRequest, 'a GraphQL answer with `data` or `errors`', call.result?.text ?? String(err), call.result?.status);
    }
    const { errors, data, status } = response as { errors?: unknown; data?: unknown; status: number };
    if (errors !== undefined && errors !== null) {
      if (!Array.isArray(errors) || !errors.every(isErrorEntry)) {
        throw core.wrongShape(httpRequest, '`errors` as a list of objects with a message', call.result?.text ?? errors, status);
      }
      if (errors.length > 0 && !raw) {
        throw withRequestId(
          errorFromGraphQLErrors<TResult>(redactValue(errors), data as TResult | null | undefined, {
            operationName: facts.operationName,
            status,
            request: { method: 'POST', url: summaryUrl, operation: facts.label },
          }),
          call.result?.headers,
        );
      }
    }
    if (raw && data == null) return { data, errors } as TResult;
    if (!isRecord(data)) {
      throw core.wrongShape(httpRequest, 'an object in `data`', call.result?.text ?? data, status);
    }
    const dataCheck = (options as { [DATA_CHECK]?: DataCheck })[DATA_CHECK];
    if (dataCheck && !dataCheck.check(data)) throw core.wrongShape(httpRequest, dataCheck.expected, data, status);
    return (raw ? { data, errors } : data) as TResult;
  }

  return { request: request as RunpodGraphQL['request'] };
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

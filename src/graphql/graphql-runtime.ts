// The GraphQL runtime, loaded by graphql-client.ts on the first GraphQL call (a dynamic import of
// this module), so that importing the package does not load graphql-request and graphql. What runs
// only once it has loaded lives here too: reading a document's facts, sending through
// graphql-request, checking the answer.
import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import { parse, print } from 'graphql';
import { GraphQLClient } from 'graphql-request';
import { ApiRetiredError, RunpodError, ValidationError, type GraphQLErrorEntry } from '../errors.js';
import { withRequestId } from '../transport/answer-facts.js';
import type { HttpRequest, HttpResult } from '../transport/http-core.js';
import { redactValue } from '../transport/redact.js';
import { isRecord } from '../transport/shape.js';
import type { DataCheck, DocumentFacts, GraphQLCallOptions, GraphQLClientState } from './graphql-call-types.js';
import { errorFromGraphQLErrors } from './graphql-errors.js';

export { parse, print };

/** What `request` needs to know of a document, from its text, operation name and kind (the in-process route computes it too). */
export function makeFacts(source: string, operationName: string | undefined, operationType: string, documentId?: string): DocumentFacts {
  if (operationType === 'subscription') throw new ValidationError('document', 'subscriptions are not supported');
  const isMutation = operationType === 'mutation';
  const bodyStart = `{"query":${JSON.stringify(source)}${operationName === undefined ? '' : `,"operationName":${JSON.stringify(operationName)}`}`;
  return { source, operationName, isMutation, label: operationName ?? `anonymous ${operationType}`, bodyStart, documentId };
}

// This package's ids are 16 hex digits; graphql-codegen's client preset puts the whole SHA-256 there.
const DOCUMENT_ID = /^[0-9a-f]{16,64}$/;

/** The body up to the variables, as the client's persisted-documents mode sends this document. */
function bodyStartOf(facts: DocumentFacts, persisted: GraphQLClientState['persisted']): string {
  if (persisted === 'text' || (persisted === 'id-and-text' && facts.documentId === undefined)) return facts.bodyStart;
  if (facts.documentId === undefined) {
    throw new ValidationError('document', `${facts.label} carries no persisted-document hash, and persistedDocuments is 'always': generate it with codegen (persisted-documents.json), or use 'auto'`);
  }
  const id = `{"documentId":${JSON.stringify(facts.documentId)}`;
  if (persisted === 'id-and-text') return `${id},${facts.bodyStart.slice(1)}`;
  return facts.operationName === undefined ? id : `${id},"operationName":${JSON.stringify(facts.operationName)}`;
}

// graphql's `Kind` values, spelled out so that nothing here loads graphql eagerly.
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
function factsOfString(source: string): DocumentFacts {
  const cached = stringFacts.get(source);
  if (cached) return cached;
  let ast;
  try {
    ast = parse(source, { noLocation: true });
  } catch (err) {
    throw new ValidationError('document', `not a valid GraphQL document: ${(err as Error).message}`);
  }
  const facts = factsOfAst(source, ast);
  if (stringFacts.size >= MAX_CACHED_STRINGS) stringFacts.clear();
  stringFacts.set(source, facts);
  return facts;
}

/** Codegen's `__meta__` (see codegen.ts): `{ operationName, operationType, hash }`. */
function factsFromMeta(source: string, meta: unknown): DocumentFacts | undefined {
  if (!isRecord(meta) || typeof meta.operationType !== 'string') return undefined;
  const name = meta.operationName;
  if (name !== undefined && typeof name !== 'string') return undefined;
  const hash = typeof meta.hash === 'string' && DOCUMENT_ID.test(meta.hash) ? meta.hash : undefined;
  return makeFacts(source, name, meta.operationType, hash);
}

/** The facts of any document the client takes. */
export function factsOf(document: unknown): DocumentFacts {
  if (typeof document === 'string') return factsOfString(document);
  if (document === null || typeof document !== 'object') throw new ValidationError('document', 'expected a GraphQL document');
  const cached = objectFacts.get(document);
  if (cached) return cached;
  let facts: DocumentFacts;
  if ((document as { kind?: unknown }).kind === 'Document') {
    facts = factsOfAst(print(document as DocumentNode), document as DocumentNode);
  } else {
    const source = String(document);
    facts = factsFromMeta(source, (document as { __meta__?: unknown }).__meta__) ?? factsOfString(source);
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

function makeClient({ core, url }: GraphQLClientState): GraphQLClient {
  return new GraphQLClient(url, {
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
}

/**
 * `request` of graphql-client.ts, once the runtime has loaded: sends the document and checks the
 * answer. `variablesText`: the variables as JSON, already checked. `raw`: the facts of the document
 * to send, answered with `{ data, errors }` (errors not thrown); `dataCheck`: a surface's check of
 * `data` (both from the call options, see graphql-client.ts).
 */
export async function request<TResult>(state: GraphQLClientState, document: unknown, variablesText: string | undefined, options: GraphQLCallOptions, raw?: DocumentFacts, dataCheck?: DataCheck): Promise<TResult> {
  const { core, choice, url, auth } = state;
  const client = (state.client ??= makeClient(state)) as GraphQLClient;
  const facts = raw ?? factsOf(document);
  const bodyStart = bodyStartOf(facts, state.persisted);
  const httpRequest: HttpRequest = {
    method: 'POST',
    url,
    auth,
    body: variablesText === undefined ? `${bodyStart}}` : `${bodyStart},"variables":${variablesText}}`,
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
    if (!Array.isArray(errors) || !errors.every((e): e is GraphQLErrorEntry => isRecord(e) && typeof e.message === 'string')) {
      throw core.wrongShape(httpRequest, '`errors` as a list of objects with a message', call.result?.text ?? errors, status);
    }
    if (errors.length > 0 && !raw) {
      throw withRequestId(
        errorFromGraphQLErrors<TResult>(redactValue(errors), data as TResult | null | undefined, {
          operationName: facts.operationName,
          status,
          request: { method: 'POST', url: state.summaryUrl, operation: facts.label },
        }),
        call.result?.headers,
      );
    }
  }
  if (raw && data == null) return { data, errors } as TResult;
  if (!isRecord(data)) {
    throw core.wrongShape(httpRequest, 'an object in `data`', call.result?.text ?? data, status);
  }
  if (dataCheck && !dataCheck.check(data)) throw core.wrongShape(httpRequest, dataCheck.expected, data, status);
  return (raw ? { data, errors } : data) as TResult;
}

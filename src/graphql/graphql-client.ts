import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import { GraphQLClient } from 'graphql-request';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { RunpodError, ServerError, ValidationError, type GraphQLErrorEntry } from '../errors.js';
import { errorFromGraphQLErrors } from './graphql-errors.js';
import type { HttpCore } from '../transport/http-core.js';
import type { CallOptions } from '../transport/options.js';
import { redactUrl, redactValue } from '../transport/redact.js';
import { toJsonBody } from '../validation.js';

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

export interface RunpodGraphQL {
  /** Runs any typed document against the GraphQL API and resolves with its `data`. */
  request<TResult, TVariables>(document: GraphQLDocument<TResult, TVariables>, ...args: VariablesAndOptions<TVariables>): Promise<TResult>;
}

interface DocumentFacts {
  readonly operationName: string | undefined;
  readonly isMutation: boolean;
}

const MAX_CACHED_DOCUMENTS = 500;
const documentFacts = new Map<string, DocumentFacts>();

/** Parsed once per distinct document: graphql-request would otherwise parse on every call. */
function factsOf(source: string): DocumentFacts {
  const cached = documentFacts.get(source);
  if (cached) return cached;
  let ast;
  try {
    ast = parse(source, { noLocation: true });
  } catch (err) {
    throw new ValidationError('document', `not a valid GraphQL document: ${(err as Error).message}`);
  }
  const operations = ast.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) throw new ValidationError('document', `expected exactly one operation, found ${operations.length}`);
  const [operation] = operations as [OperationDefinitionNode];
  if (operation.operation === 'subscription') throw new ValidationError('document', 'subscriptions are not supported');
  const facts = { operationName: operation.name?.value, isMutation: operation.operation === 'mutation' };
  if (documentFacts.size >= MAX_CACHED_DOCUMENTS) documentFacts.clear();
  documentFacts.set(source, facts);
  return facts;
}

function scrubErrors(core: HttpCore, errors: readonly unknown[]): GraphQLErrorEntry[] {
  return redactValue(errors.map((e) => (e !== null && typeof e === 'object' ? e : { message: String(e) }))) as GraphQLErrorEntry[];
}

export function createGraphQLClient(core: HttpCore): RunpodGraphQL {
  const url = core.options.graphqlUrl;
  const requestSummaryUrl = redactUrl(url);

  async function request<TResult, TVariables>(
    document: GraphQLDocument<TResult, TVariables>,
    variables?: TVariables,
    options: GraphQLCallOptions = {},
  ): Promise<TResult> {
    const source = String(document);
    const { operationName, isMutation } = factsOf(source);
    const operation = operationName ?? (isMutation ? 'anonymous mutation' : 'anonymous query');
    // A GraphQLClient is two fields; one per call carries this call's idempotency, signal and
    // operation name into the transport, where a shared one would need ambient state.
    const client = new GraphQLClient(url, {
      excludeOperationName: true,
      errorPolicy: 'all',
      jsonSerializer: {
        parse: JSON.parse,
        stringify: (body: object) => toJsonBody('variables', operationName ? { ...body, operationName } : body),
      },
      fetch: async (_input: RequestInfo | URL, init?: RequestInit) => {
        const request = {
          method: 'POST',
          url,
          auth: 'api-key-query' as const,
          body: init?.body as string,
          operation,
          idempotent: options.idempotent ?? !isMutation,
          signal: options.signal,
          timeoutMs: options.timeoutMs,
          maxRetries: options.maxRetries,
          headers: options.headers,
        };
        const result = await core.request(request);
        if (!(result.headers.get('content-type') ?? '').includes('json')) throw core.notJson(request, result);
        return { ok: true, status: result.status, headers: result.headers, text: async () => result.text } as unknown as Response;
      },
    });

    let response;
    try {
      response = await client.rawRequest<TResult>(source, variables as Record<string, unknown> | undefined);
    } catch (err) {
      if (err instanceof RunpodError) throw err;
      throw new ServerError(`${operation}: unreadable GraphQL answer: ${core.scrub(String((err as Error).message ?? err)).slice(0, 200)}`, {
        status: 200,
        request: { method: 'POST', url: requestSummaryUrl, operation },
      });
    }
    const requestSummary = { method: 'POST', url: requestSummaryUrl, operation };
    if (response.errors && response.errors.length > 0) {
      throw errorFromGraphQLErrors<TResult>(scrubErrors(core, response.errors), response.data, {
        operationName,
        status: response.status,
        request: requestSummary,
      });
    }
    if (response.data === undefined || response.data === null) {
      throw new ServerError(`${operation}: the answer had neither data nor errors`, { status: response.status, request: requestSummary });
    }
    return response.data;
  }

  return { request: request as RunpodGraphQL['request'] };
}

// rp.graphql's two ways to run a document once RunPod's GraphQL is not in use (in process over
// REST v2), and `execute` on either way. Loaded on the first call that needs it, with graphql-js's
// executor.
import { GraphQLError, print, type DocumentNode, type ExecutionResult } from 'graphql';
import { GraphQLResponseError, RunpodError, ValidationError, type GraphQLErrorEntry, type RequestSummary } from '../../errors.js';
import type { PodsApi } from '../../pods/types.js';
import type { RunpodRest } from '../../rest/rest-client.js';
import type { RestRequester } from '../../rest/rest-request.js';
import { validateCallOptions } from '../../transport/options.js';
import type { TransportChoice } from '../../transport/transport-choice.js';
import { toJsonBody } from '../../validation.js';
import { isDocument } from '../executable-schema.js';
import { documentFacts, documentFactsNow, rawOptions, type DocumentFacts, type GraphQLCallOptions, type GraphQLExecuteOptions, type RunpodGraphQL } from '../graphql-client.js';
import { makeFacts } from '../graphql-runtime.js';
import { errorFromGraphQLErrors } from '../graphql-errors.js';
import { createInProcessExecutor, noSourceError, type InProcessExecutor } from './executor.js';

/** What the routes run through: the client's own surfaces. */
export interface RouteDeps {
  /** The client's GraphQL client for RunPod's GraphQL (no routing of its own). */
  readonly upstream: Pick<RunpodGraphQL, 'request'>;
  readonly choice: TransportChoice;
  readonly pods: PodsApi;
  readonly rest: RunpodRest;
  readonly requester: RestRequester;
}

export interface Routes {
  /** `request` in process: the same result, or the same typed error, as over RunPod's GraphQL. */
  request(document: unknown, variables: unknown, options: GraphQLCallOptions | undefined): Promise<unknown>;
  execute(document: unknown, variables: unknown, options: GraphQLExecuteOptions | undefined): Promise<ExecutionResult>;
}

/** Where in-process answers say they came from (no URL: nothing was sent). */
const IN_PROCESS_URL = 'in-process:schema.graphql';

/** A GraphQL error entry (an upstream answer's) as graphql-js's error. */
function toGraphQLError(entry: GraphQLErrorEntry): GraphQLError {
  const { message, path, extensions } = entry as GraphQLErrorEntry & { path?: ReadonlyArray<string | number>; extensions?: Record<string, unknown> };
  return new GraphQLError(message, { path: Array.isArray(path) ? path : undefined, extensions: extensions && typeof extensions === 'object' ? extensions : undefined });
}

/** A graphql-js error as the entry the client's typed errors carry. */
function toEntry(error: GraphQLError): GraphQLErrorEntry {
  const entry: { message: string; path?: ReadonlyArray<string | number>; extensions?: Record<string, unknown> } = { message: error.message };
  if (error.path) entry.path = error.path;
  if (error.extensions && Object.keys(error.extensions).length > 0) entry.extensions = error.extensions;
  return entry as GraphQLErrorEntry;
}

export function createRoutes(deps: RouteDeps): Routes {
  let executor: InProcessExecutor | undefined;
  const local = () => (executor ??= createInProcessExecutor({ pods: deps.pods, rest: deps.rest, requester: deps.requester }));

  /** Variables as they would travel: JSON, so both ways see the same values (and refuse the same ones). */
  const jsonVariables = (variables: unknown): Record<string, unknown> | undefined =>
    variables === undefined || variables === null ? undefined : (JSON.parse(toJsonBody('variables', variables)) as Record<string, unknown>);

  const summary = (label: string): RequestSummary => ({ method: 'POST', url: IN_PROCESS_URL, operation: label });

  /** The document, parsed and validated against the schema once per distinct text. */
  const prepared = (source: string) => local().prepare(source);

  /**
   * A valid document's parse and static pass, kept per document facts (themselves kept per
   * generated document, or per string with a bound), so a repeated document looks up nothing else.
   * Invalid documents are not kept: their errors are made anew, as the document cache makes them.
   */
  const ready = new WeakMap<DocumentFacts, DocumentNode>();

  async function request(document: unknown, variables: unknown, options: GraphQLCallOptions | undefined): Promise<unknown> {
    // Bad options are refused as on RunPod's GraphQL, before anything runs.
    if (options) validateCallOptions(options);
    const facts = documentFactsNow(document) ?? (await documentFacts(document));
    const ctx = () => ({ operationName: facts.operationName, request: summary(facts.label) });
    let doc = ready.get(facts);
    if (!doc) {
      const parsed = prepared(facts.source);
      // RunPod's GraphQL refuses an invalid document with HTTP 400 and `errors`: the same error here.
      if (!isDocument(parsed)) throw refusedDocument(facts.label, parsed, ctx());
      // The static pass: every field with no REST v2 source, named at once, before anything is sent.
      const missing = local().unanswerable(parsed, facts.operationName);
      if (missing.fields.length > 0) throw noSourceError(missing.fields);
      ready.set(facts, (doc = parsed));
    }
    const refused = (errors: readonly GraphQLError[]) => refusedDocument(facts.label, errors, ctx());
    const result = await local().run({ document: doc, variables: jsonVariables(variables), operationName: facts.operationName, options });
    if (result.errors?.length) {
      if (result.data === undefined) throw refused(result.errors);
      // A resolver's typed error is the error of the call, as the same call on rp.pods throws it.
      const typed = result.errors.find((e) => e.originalError instanceof RunpodError)?.originalError;
      if (typed) throw typed;
      throw errorFromGraphQLErrors(result.errors.map(toEntry), result.data, { ...ctx(), status: 200 });
    }
    return result.data;
  }

  async function execute(document: unknown, variables: unknown, options: GraphQLExecuteOptions = {}): Promise<ExecutionResult> {
    // Bad input is thrown, not returned: only the document's own errors go in `errors`.
    validateCallOptions(options);
    if (options.operationName != null && typeof options.operationName !== 'string') throw new ValidationError('operationName', 'must be a string');
    let source: string;
    if (typeof document === 'string') source = document;
    else if (isDocumentNode(document)) source = print(document);
    else if (document !== null && typeof document === 'object') source = String(document);
    else throw new ValidationError('document', 'expected a GraphQL document');
    const doc = prepared(source);
    if (!isDocument(doc)) return { errors: doc };
    const { operationName, ...callOptions } = options;
    const operation = local().operation(doc, operationName);
    if (!operation) {
      const why = operationName === undefined ? 'Must provide operation name if query contains multiple operations.' : `Unknown operation named "${operationName}".`;
      return { errors: [new GraphQLError(why)] };
    }
    if (operation.operation === 'subscription') return { errors: [new GraphQLError('Subscriptions are not supported.')] };
    const vars = jsonVariables(variables);
    const name = operation.name?.value;
    const label = name ?? `anonymous ${operation.operation}`;
    return deps.choice.run('graphql', label, {
      graphql: async () => {
        try {
          const answer = (await deps.upstream.request(source, vars, rawOptions(callOptions, makeFacts(source, operationName ?? name, operation.operation)))) as {
            data?: Record<string, unknown> | null;
            errors?: GraphQLErrorEntry[] | null;
          };
          const result: ExecutionResult = { data: answer.data ?? null };
          if (answer.errors?.length) Object.assign(result, { errors: answer.errors.map(toGraphQLError) });
          return result;
        } catch (err) {
          // RunPod's refusal of the request itself (HTTP 400 with `errors`): GraphQL errors, not a failure.
          if (err instanceof GraphQLResponseError && err.status === 400 && err.errors.length > 0) return { errors: err.errors.map(toGraphQLError) };
          throw err;
        }
      },
      rest: async () => {
        // A non-null field with no source would null its parent: nothing is sent, and each field
        // with no source is one error. Nullable ones alone are answered null, one error each.
        const missing = local().unanswerable(doc, operationName);
        if (missing.nonNull.length > 0) return { errors: missing.fields.map(unanswerableError) };
        return local().run({ document: doc, variables: vars, operationName, options: callOptions });
      },
    });
  }

  return { request, execute };
}

/** RunPod's GraphQL's refusal of an invalid document (HTTP 400 with `errors`), as the same error. */
function refusedDocument(label: string, errors: readonly GraphQLError[], ctx: { operationName: string | undefined; request: RequestSummary }): GraphQLResponseError {
  return new GraphQLResponseError(`${label} failed with HTTP 400: ${errors.map((e) => e.message).join('; ')}`, {
    errors: errors.map(toEntry),
    data: undefined,
    status: 400,
    ...ctx,
  });
}

/** One field with no source, as an `errors` entry of `execute` (nothing was sent). */
function unanswerableError(field: string): GraphQLError {
  const err = noSourceError([field]);
  return new GraphQLError(err.message, { originalError: err, extensions: { code: err.name, fields: [field] } });
}

function isDocumentNode(value: unknown): value is DocumentNode {
  return value !== null && typeof value === 'object' && (value as { kind?: unknown }).kind === 'Document';
}

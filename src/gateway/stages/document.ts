// Stage "document": the request's parameters (the body capped), the text that runs (a persisted
// one by id, or the request's own), parsed with a token cap, shape-checked (depth, aliases,
// fragments, spreads) and validated, cached per text; then the operation it names.
import { GraphQLError, parse, validate } from 'graphql';
import { buildExecutableSchema, DocumentCache, isDocument, type PreparedDocument } from '../../graphql/executable-schema.js';
import type { GatewayAnswer } from '../answers.js';
import type { GatewaySettings } from '../config.js';
import { operationOf } from '../document-plans.js';
import { checkShape, type ResolvedLimits } from '../limits.js';
import type { Stage } from '../pipeline.js';
import { paramsFromPost, paramsFromSearch, Refusal, type GatewayErrorEntry, type GraphQLParams } from '../protocol.js';

/** A 400 answer for a document that does not parse, validate or take its variables: never sent upstream. */
export const invalidAnswer = (errors: readonly GatewayErrorEntry[]): GatewayAnswer => ({ status: 400, body: { errors } });

/** Parses and checks document texts, cached per text (the cache bounds what it keeps). */
export function createDocumentPreparer(limits: () => ResolvedLimits) {
  const documents = new DocumentCache();
  /**
   * Parsed with a token cap, then checked for shape (depth, aliases) before it is validated:
   * validation grows faster than the text, so the limits are met before it runs. Cached per text.
   */
  function prepare(text: string): PreparedDocument {
    const cached = documents.get(text);
    if (cached) return cached;
    const bounds = limits();
    let prepared: PreparedDocument;
    try {
      const document = parse(text, { noLocation: true, maxTokens: bounds.maxTokens });
      for (const d of document.definitions) if (d.kind === 'OperationDefinition') checkShape(document, d, bounds);
      const errors = validate(buildExecutableSchema(), document);
      prepared = errors.length > 0 ? errors.map((e) => new GraphQLError(e.message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) : document;
    } catch (err) {
      if (err instanceof Refusal) throw err;
      prepared = [new GraphQLError((err as Error).message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })];
    }
    documents.set(text, prepared);
    return prepared;
  }
  /** Why a persisted document cannot run (its parse, shape or validation errors), or undefined. */
  function problem(text: string): string | undefined {
    try {
      const prepared = prepare(text);
      return isDocument(prepared) ? undefined : prepared.map((e) => e.message).join('; ');
    } catch (err) {
      return (err as Error).message;
    }
  }
  return { prepare, problem };
}

export function documentStage(settings: GatewaySettings, preparer: ReturnType<typeof createDocumentPreparer>, ready: () => Promise<void> | undefined): Stage {
  /** The document text to run: a persisted one by id, or the request's own text where that is allowed. */
  function documentText(params: GraphQLParams): string {
    const persisted = settings.persisted;
    if (persisted) {
      if (params.documentId === undefined) throw new Refusal(400, 'this gateway runs persisted documents only: send { "documentId": "<id>" }', 'PERSISTED_QUERY_ONLY');
      const text = persisted.lookup(params.documentId);
      if (text === undefined) throw new Refusal(400, 'no persisted document has this id', 'PERSISTED_QUERY_NOT_FOUND');
      return text;
    }
    if (params.query !== undefined) return params.query;
    if (params.documentId !== undefined) throw new Refusal(400, 'this gateway has no persisted documents: send the document text in `query`', 'PERSISTED_QUERY_NOT_SUPPORTED');
    throw new Refusal(400, 'a GraphQL request needs `query`', 'BAD_REQUEST');
  }

  return {
    name: 'document',
    async run(context, next) {
      const { request, url } = context;
      const waiting = ready();
      if (waiting) await waiting;
      const { maxBodyBytes } = settings.current.limits;
      let params: GraphQLParams;
      if (request.method === 'GET') {
        if (url.search.length > maxBodyBytes) throw new Refusal(414, `the query string is over the gateway's limit of ${maxBodyBytes} bytes`, 'BODY_TOO_LARGE');
        params = paramsFromSearch(url.searchParams);
      } else {
        params = await paramsFromPost(request, maxBodyBytes);
      }
      context.params = params;
      const text = documentText(params);
      context.text = text;
      // Documents that do not parse, validate or take their variables: 400 with either media type,
      // as RunPod's GraphQL answers them (the spec's SHOULD of 200 for JSON is for legacy servers
      // whose callers read no status; callers of RunPod's GraphQL read it). Never sent upstream.
      const prepared = preparer.prepare(text);
      if (!isDocument(prepared)) return invalidAnswer(prepared.map((e) => ({ message: e.message, extensions: e.extensions })));
      const operation = operationOf(prepared, params.operationName);
      if (!operation) return invalidAnswer([{ message: params.operationName ? `no operation named "${params.operationName}"` : 'the document has several operations: name one in `operationName`', extensions: { code: 'BAD_REQUEST' } }]);
      if (operation.operation === 'subscription') throw new Refusal(400, 'subscriptions are not served', 'BAD_REQUEST');
      context.document = prepared;
      context.operation = operation;
      return next();
    },
  };
}

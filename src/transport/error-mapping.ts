// The typed error for an HTTP error answer: loaded with the first answer that needs it, with
// after-answer.ts (see after-answer-loader.ts).
import {
  ApiError,
  ApiRetiredError,
  AuthenticationError,
  BadRequestError,
  CapacityUnavailableError,
  ConflictError,
  GraphQLResponseError,
  InsufficientBalanceError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  ValidationError,
  type GraphQLErrorEntry,
  type RequestSummary,
} from '../errors.js';
import { clip, isCapacityMessage, MAX_ERROR_BODY_CHARS, requestIdOf, withRequestId } from './answer-facts.js';
import { parseRateLimitHeaders } from './rate-limit-headers.js';
import { redactText } from './redact.js';
import { restV1Replacement } from './rest-v1-retired.js';

const BODY_SNIPPET_CHARS = 300;
/** Bounds of the body an error keeps: nesting, entries per object or list, characters per string, values in all. */
export const ERROR_BODY_LIMITS = { depth: 16, entries: 100, stringChars: 4096, values: 5000 } as const;
/** Longest server text quoted in an error's message. */
export const MAX_DETAIL_CHARS = 1000;

function parseJson(text: string): unknown {
  if (text.length > MAX_ERROR_BODY_CHARS) return undefined;
  try {
    return boundBody(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * A bounded copy of a parsed error body: nesting past the limit becomes `[TOO DEEP]`, long lists
 * and objects keep their first entries, long strings are clipped. Keys are defined, never
 * assigned, so `__proto__` stays data. Nothing downstream (summaries, scrubbing) can then recurse
 * without end or copy megabytes.
 */
export function boundBody(value: unknown): unknown {
  let budget: number = ERROR_BODY_LIMITS.values;
  const copy = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return clip(v, ERROR_BODY_LIMITS.stringChars);
    if (v === null || typeof v !== 'object') return v;
    if (depth >= ERROR_BODY_LIMITS.depth || budget <= 0) return '[TOO DEEP]';
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (let i = 0; i < v.length && i < ERROR_BODY_LIMITS.entries && budget-- > 0; i++) out.push(copy(v[i], depth + 1));
      if (v.length > out.length) out.push(`[${v.length - out.length} more]`);
      return out;
    }
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const key of Object.keys(v)) {
      if (n++ >= ERROR_BODY_LIMITS.entries || budget-- <= 0) break;
      const name = clip(key, 256);
      Object.defineProperty(out, name, { value: copy((v as Record<string, unknown>)[key], depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  return copy(value, 0);
}

/** An own property of a parsed body (never one found on a prototype). */
function own(body: unknown, key: string): unknown {
  return body !== null && typeof body === 'object' && Object.hasOwn(body, key) ? (body as Record<string, unknown>)[key] : undefined;
}

function graphQLErrorsOf(body: unknown): GraphQLErrorEntry[] | undefined {
  const errors = own(body, 'errors');
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  return errors.map((e): GraphQLErrorEntry => {
    if (typeof own(e, 'message') === 'string') return e as GraphQLErrorEntry;
    // Not String(e): a list nested thousands deep would overflow the stack.
    return { message: typeof e === 'string' ? e : clip(safeJson(e), 200) };
  });
}

/** The `errors[]` of an RFC 9457 problem body (REST v2), strings only. */
export function problemErrorsOf(body: unknown): string[] {
  const errors = own(body, 'errors');
  return Array.isArray(errors) ? errors.filter((e): e is string => typeof e === 'string') : [];
}

/**
 * The human message inside a platform error body: GraphQL `errors`, REST v1 `{error}` or
 * `{message}`, or REST v2's problem `{detail}` followed by its `errors[]`.
 */
export function messageOfBody(body: unknown): string | undefined {
  const gqlErrors = graphQLErrorsOf(body);
  if (gqlErrors) return clip(gqlErrors.slice(0, 20).map((e) => clip(e.message, MAX_DETAIL_CHARS)).join('; '), MAX_DETAIL_CHARS);
  // OpenAI-compatible routes answer `{"error": {"message", "type", …}}`.
  const nested = own(own(body, 'error'), 'message');
  if (typeof nested === 'string' && nested) return clip(nested, MAX_DETAIL_CHARS);
  for (const key of ['error', 'message', 'detail', 'title'] as const) {
    const value = own(body, key);
    if (typeof value === 'string' && value) {
      const problems = key === 'detail' ? problemErrorsOf(body).slice(0, 20) : [];
      return clip(problems.length ? `${value} ${problems.join('; ')}` : value, MAX_DETAIL_CHARS);
    }
  }
  return undefined;
}

const FIELD_IN_PROBLEM = /(?:additional propert(?:y|ies) '([^']+)'|\$\.?([\w.[\]]+))/;

/** The field a server validation message names (`$: additional properties 'x' not allowed` → `x`). */
function fieldOfProblems(problems: readonly string[]): string {
  for (const problem of problems) {
    const match = FIELD_IN_PROBLEM.exec(problem);
    const field = match?.[1] ?? match?.[2];
    if (field) return `body.${field}`;
  }
  return 'body';
}

export interface ErrorContext {
  request: RequestSummary;
  retryAfterMs?: number | undefined;
}

/**
 * The typed error for an HTTP error answer. `text` must already be scrubbed of secrets.
 * Works for the GraphQL (`{errors, data}`) and REST (`{error, status}`) body shapes alike.
 */
export function errorFromResponse(
  status: number,
  text: string,
  headers: Headers,
  ctx: ErrorContext,
): ApiError | GraphQLResponseError | CapacityUnavailableError | InsufficientBalanceError | ValidationError {
  try {
    return withRequestId(mapErrorResponse(status, text, headers, ctx), headers);
  } catch {
    // Whatever the body holds, an HTTP error stays an HTTP error of its status: never a failure
    // of the attempt (which would be retried, or read as a lost answer after a create).
    const message = `${ctx.request.operation} failed with HTTP ${status}: the error answer could not be read`;
    const options = { status, body: clip(text.slice(0, BODY_SNIPPET_CHARS), BODY_SNIPPET_CHARS), request: ctx.request, retryAfterMs: ctx.retryAfterMs, requestId: requestIdOf(headers) };
    if (status === 409) return new ConflictError(message, options);
    if (status === 422) return new ValidationError('body', `refused by the server (HTTP 422)`, options);
    if (status === 429) return new RateLimitError(message, options);
    if (status >= 500) return new ServerError(message, options);
    if (status >= 400) return new BadRequestError(message, options);
    return new ApiError(message, options);
  }
}

function mapErrorResponse(
  status: number,
  text: string,
  headers: Headers,
  ctx: ErrorContext,
): ApiError | GraphQLResponseError | CapacityUnavailableError | InsufficientBalanceError | ValidationError {
  const json = parseJson(text);
  const body = json === undefined ? text.slice(0, BODY_SNIPPET_CHARS) : json;
  const bodyMessage = json === undefined ? undefined : messageOfBody(json);
  const where = `${ctx.request.operation}`;
  const options = { status, body, headers: headersToRecord(headers), request: ctx.request };

  if (bodyMessage && isCapacityMessage(bodyMessage)) {
    return new CapacityUnavailableError(`${where}: ${bodyMessage}`, {
      status,
      request: ctx.request,
      operationName: ctx.request.operation,
    });
  }
  const detail = bodyMessage ?? describeNonJson(headers, text);
  const message = `${where} failed with HTTP ${status}: ${detail}`;
  if (status === 402) return new InsufficientBalanceError(message, { status, request: ctx.request });
  if (status === 409) return new ConflictError(message, options);
  if (status === 410) {
    const replacement = restV1Replacement(ctx.request.method, ctx.request.url);
    if (replacement) return new ApiRetiredError(`${where}: REST v1 is retired (HTTP 410); use ${replacement} (REST v2) instead`, { ...options, replacement });
    return new ApiRetiredError(message, options);
  }
  if (status === 422) {
    const problems = problemErrorsOf(json);
    return new ValidationError(fieldOfProblems(problems), `refused by the server (HTTP 422): ${detail}`, {
      status,
      errors: problems,
      body,
      request: ctx.request,
    });
  }
  if (status === 401) return new AuthenticationError(message, options);
  if (status === 403) return new PermissionDeniedError(message, options);
  if (status === 404) return new NotFoundError(message, options);
  if (status === 429) {
    const windows = parseRateLimitHeaders(headers);
    return new RateLimitError(message, { ...options, retryAfterMs: ctx.retryAfterMs, rateLimit: windows.length ? windows : undefined });
  }
  if (status >= 500) return new ServerError(message, options);
  const gqlErrors = graphQLErrorsOf(json);
  if (gqlErrors) {
    return new GraphQLResponseError(message, {
      errors: gqlErrors,
      data: own(json, 'data'),
      operationName: ctx.request.operation,
      status,
      request: ctx.request,
    });
  }
  if (status >= 400) return new BadRequestError(message, options);
  return new ApiError(message, options);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

function describeNonJson(headers: Headers, text: string): string {
  const type = headers.get('content-type') ?? 'no content-type';
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 120);
  return snippet ? `non-JSON answer (${type}): ${snippet}` : `empty answer (${type})`;
}

/** Response headers as a plain record, without `set-cookie`, each value bounded (scrub it before it leaves). */
export function headersToRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    // A long value is scrubbed before it is cut: a secret cut in two there would leave a piece no
    // scrubber recognises (the error scrubs what it keeps again).
    if (name !== 'set-cookie') out[name] = value.length > ERROR_BODY_LIMITS.stringChars ? clip(redactText(value), ERROR_BODY_LIMITS.stringChars) : value;
  });
  return out;
}

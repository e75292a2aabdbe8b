import { parseRateLimitHeaders } from './rate-limit-headers.js';
import {
  ApiError,
  ApiRetiredError,
  AuthenticationError,
  BadRequestError,
  CapacityUnavailableError,
  ConflictError,
  GraphQLResponseError,
  InsufficientBalanceError,
  type GraphQLErrorEntry,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  type RequestSummary,
  ServerError,
  ValidationError,
} from '../errors.js';

const CAPACITY_PATTERN =
  /no longer any instances available|no instances (?:are )?(?:currently )?available|(?:no|insufficient|not enough) (?:gpu |cpu )?capacity|could not be placed/i;

/** True for the platform's no-capacity messages (GraphQL and REST word them differently). */
export function isCapacityMessage(message: string): boolean {
  return CAPACITY_PATTERN.test(message);
}

const BODY_SNIPPET_CHARS = 300;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function graphQLErrorsOf(body: unknown): GraphQLErrorEntry[] | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const errors = (body as { errors?: unknown }).errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  return errors.map((e): GraphQLErrorEntry => {
    if (e !== null && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') {
      return e as GraphQLErrorEntry;
    }
    return { message: String(e) };
  });
}

/** The `errors[]` of an RFC 9457 problem body (REST v2), strings only. */
export function problemErrorsOf(body: unknown): string[] {
  if (body === null || typeof body !== 'object') return [];
  const errors = (body as { errors?: unknown }).errors;
  return Array.isArray(errors) ? errors.filter((e): e is string => typeof e === 'string') : [];
}

/**
 * The human message inside a platform error body: GraphQL `errors`, REST v1 `{error}` or
 * `{message}`, or REST v2's problem `{detail}` followed by its `errors[]`.
 */
export function messageOfBody(body: unknown): string | undefined {
  const gqlErrors = graphQLErrorsOf(body);
  if (gqlErrors) return gqlErrors.map((e) => e.message).join('; ');
  if (body !== null && typeof body === 'object') {
    // OpenAI-compatible routes answer `{"error": {"message", "type", …}}`.
    const nested = (body as { error?: { message?: unknown } }).error;
    if (nested !== null && typeof nested === 'object' && typeof nested.message === 'string' && nested.message) return nested.message;
    for (const key of ['error', 'message', 'detail', 'title'] as const) {
      const value = (body as Record<string, unknown>)[key];
      if (typeof value === 'string' && value) {
        const problems = key === 'detail' ? problemErrorsOf(body) : [];
        return problems.length ? `${value} ${problems.join('; ')}` : value;
      }
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
  if (status === 410) return new ApiRetiredError(message, options);
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
      data: (json as { data?: unknown }).data,
      operationName: ctx.request.operation,
      status,
      request: ctx.request,
    });
  }
  if (status >= 400) return new BadRequestError(message, options);
  return new ApiError(message, options);
}

function describeNonJson(headers: Headers, text: string): string {
  const type = headers.get('content-type') ?? 'no content-type';
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 120);
  return snippet ? `non-JSON answer (${type}): ${snippet}` : `empty answer (${type})`;
}

function headersToRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') out[name] = value;
  });
  return out;
}

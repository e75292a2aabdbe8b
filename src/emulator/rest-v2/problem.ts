import type { Context } from 'hono';
import { EmulatorHttpError, GRAPHQL_NO_CAPACITY, NoCapacityError } from '../errors.js';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** An RFC 9457 problem the REST v2 routes answer with. */
export class ProblemError extends EmulatorHttpError {
  constructor(
    status: number,
    readonly detail: string,
    readonly errors?: string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(status, detail);
  }
}

export const problem = (status: number, detail: string, errors?: string[]) => new ProblemError(status, detail, errors);

export function problemBody(status: number, detail: string, errors?: string[]): Record<string, unknown> {
  return { title: TITLES[status] ?? 'Error', status, detail, ...(errors && { errors }) };
}

/** A problem+json answer; `body` replaces the generated one (an injected fault's own body). */
export function problemResponse(c: Context, status: number, detail: string, errors?: string[], headers: Record<string, string> = {}, body?: unknown): Response {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  c.header('content-type', 'application/problem+json');
  return c.body(JSON.stringify(body ?? problemBody(status, detail, errors)), status as 400);
}

/** Maps whatever a handler threw (a platform rule, a v2 problem, a bug) to a problem answer. */
export function errorToProblem(c: Context, err: unknown): Response {
  if (err instanceof ProblemError) return problemResponse(c, err.status, err.detail, err.errors, err.headers);
  // The shared platform speaks v1's statuses: no capacity is a 500 there and a 400 (prose only) in v2.
  if (err instanceof NoCapacityError) return problemResponse(c, 400, GRAPHQL_NO_CAPACITY);
  if (err instanceof EmulatorHttpError) return problemResponse(c, err.status, err.message);
  return problemResponse(c, 500, `emulator error: ${err instanceof Error ? err.message : String(err)}`);
}


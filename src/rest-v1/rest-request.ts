import { ApiRetiredError } from '../errors.js';
import type { HttpCore } from '../transport/http-core.js';
import type { CallOptions } from '../transport/options.js';
import { requireId, toJsonBody } from '../validation.js';
import { v2ReplacementFor } from './replacements.js';

type QueryScalar = string | number | boolean | Date;
export type QueryValue = QueryScalar | readonly QueryScalar[] | null | undefined;

function scalarText(value: QueryScalar): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/**
 * The contract's serialisation (OpenAPI form style, exploded): arrays repeat the name
 * (`gpuTypeId=a&gpuTypeId=b`), booleans are `true`/`false`, dates ISO 8601; unset values are left out.
 */
export function toQueryString(query: object | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query as Record<string, QueryValue>)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value as QueryScalar[]) params.append(name, scalarText(item));
    else params.append(name, scalarText(value as QueryScalar));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** `/pods/{podId}` with the id checked and URL-encoded. */
export function idPath(base: string, idField: string, id: unknown, suffix = ''): string {
  return `${base}/${encodeURIComponent(requireId(idField, id))}${suffix}`;
}

export interface RestCall {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  /** The route as the contract names it, e.g. `POST /pods/{podId}/stop`: used in errors. */
  readonly route: string;
  readonly query?: object | undefined;
  readonly body?: unknown;
  readonly idempotent: boolean;
}

export interface RestRequester {
  json<T>(call: RestCall, options?: CallOptions): Promise<T>;
  /** For routes that answer 204 or 200 without a body schema. */
  send(call: RestCall, options?: CallOptions): Promise<void>;
}

export function createRestRequester(core: HttpCore): RestRequester {
  const base = core.options.restUrl;
  const toHttp = (call: RestCall, options: CallOptions = {}) => ({
    method: call.method,
    url: `${base}${call.path}${toQueryString(call.query)}`,
    auth: 'bearer' as const,
    body: call.body === undefined ? undefined : toJsonBody('body', call.body),
    operation: call.route,
    idempotent: call.idempotent,
    ...options,
  });
  // v1 answers 410 since its retirement: say which v2 method replaces the route.
  const retired = (call: RestCall) => (err: unknown): never => {
    if (!(err instanceof ApiRetiredError)) throw err;
    const replacement = v2ReplacementFor(call.route);
    throw new ApiRetiredError(`${call.route}: REST v1 is retired (HTTP 410); use ${replacement} (REST v2) instead`, {
      status: err.status,
      body: err.body,
      headers: err.headers,
      request: err.request,
      replacement,
      cause: err,
    });
  };
  return {
    json: <T>(call: RestCall, options?: CallOptions) => core.requestJson<T>(toHttp(call, options)).catch(retired(call)),
    async send(call, options) {
      await core.request(toHttp(call, options)).catch(retired(call));
    },
  };
}

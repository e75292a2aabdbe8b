import { ApiRetiredError } from '../errors.js';
import type { HttpCore, HttpRequest } from '../transport/http-core.js';
import type { CallOptions } from '../transport/options.js';
import { isArrayOf, isRecord } from '../transport/shape.js';
import { toQueryString } from '../transport/query-string.js';
import { requireId, toJsonBody } from '../validation.js';
import { v2ReplacementFor } from './replacements.js';

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

/** What an answer (or each item of a list answer) must be, and how errors name it. */
export interface ItemShape {
  readonly is: (value: unknown) => boolean;
  readonly expected: string;
}

export const ANY_OBJECT: ItemShape = { is: isRecord, expected: 'a JSON object' };

export interface RestRequester {
  /** One item; anything else (an empty body included) is a ServerError. */
  object<T>(call: RestCall, options?: CallOptions, shape?: ItemShape): Promise<T>;
  /** A JSON array of items; anything else is a ServerError. */
  list<T>(call: RestCall, options?: CallOptions, shape?: ItemShape): Promise<T[]>;
  /** For routes that answer 204 or 200 without a body schema. */
  send(call: RestCall, options?: CallOptions): Promise<void>;
}

export function createRestRequester(core: HttpCore): RestRequester {
  const base = core.options.restUrl;
  const toHttp = (call: RestCall, options: CallOptions = {}): HttpRequest => ({
    method: call.method,
    url: `${base}${call.path}${toQueryString(call.query)}`,
    auth: 'bearer',
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
  /** The answer parsed, if it is what `check` accepts; else a ServerError with its status and scrubbed body. */
  const checked = async (call: RestCall, options: CallOptions | undefined, check: (body: unknown) => boolean, expected: string): Promise<unknown> => {
    const req = toHttp(call, options);
    const result = await core.request(req).catch(retired(call));
    let body: unknown;
    if (result.text.trim() !== '') {
      try {
        body = JSON.parse(result.text);
      } catch {
        throw core.notJson(req, result);
      }
    }
    if (!check(body)) throw core.wrongShape(req, expected, result.text, result.status);
    return body;
  };
  return {
    object: async <T>(call: RestCall, options?: CallOptions, shape = ANY_OBJECT) => (await checked(call, options, shape.is, shape.expected)) as T,
    list: async <T>(call: RestCall, options?: CallOptions, shape = ANY_OBJECT) =>
      (await checked(call, options, (body) => isArrayOf(body, (item): item is unknown => shape.is(item)), `a JSON array, each item ${shape.expected}`)) as T[],
    async send(call, options) {
      await core.request(toHttp(call, options)).catch(retired(call));
    },
  };
}

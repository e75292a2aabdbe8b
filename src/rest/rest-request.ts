import type { HttpCore, HttpRequest } from '../transport/http-core.js';
import type { CallOptions } from '../transport/options.js';
import { toQueryString } from '../transport/query-string.js';
import { isRecord } from '../transport/shape.js';
import { requireId, toJsonBody } from '../validation.js';


/** A path segment from an id: non-empty, not `.` or `..` (which would change the route), URL-encoded. */
export function idSegment(field: string, id: unknown): string {
  return encodeURIComponent(requireId(field, id));
}

export interface RestCall {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  /** The contract's route without the `/v2` prefix, e.g. `POST /pods/{id}/action`: used in errors. */
  readonly route: string;
  readonly query?: object | undefined;
  readonly body?: unknown;
  readonly idempotent: boolean;
  readonly notFoundOnRetryMeansDone?: boolean;
}

export interface RestRequester {
  readonly core: HttpCore;
  /** The core request for `call` (for streams through `core.requestRaw`). */
  http(call: RestCall, options?: CallOptions): HttpRequest;
  /**
   * A JSON object answer: a resource with a string `id` (every REST v2 object answer but billing's
   * and the SSH keys'), or with `shape: 'object'` any object.
   */
  object<T>(call: RestCall, options?: CallOptions, shape?: 'resource' | 'object'): Promise<T>;
  /** The resources under `key` of an envelope answer, each with a string `id`; other envelope keys are tolerated. */
  list<T>(call: RestCall, key: string, options?: CallOptions): Promise<T[]>;
  /** For routes that answer 204. */
  send(call: RestCall, options?: CallOptions): Promise<void>;
}

export function createRestRequester(core: HttpCore): RestRequester {
  const base = core.options.restUrl;
  // X-Team-Id rides on REST v2 only, so it is added here and not with the client-wide headers.
  const { teamId } = core.options;
  const teamHeader = (options: CallOptions) => (teamId === undefined ? {} : { headers: { 'x-team-id': teamId, ...options.headers } });
  const http = (call: RestCall, options: CallOptions = {}): HttpRequest => ({
    method: call.method,
    url: `${base}${call.path}${toQueryString(call.query, 'comma')}`,
    auth: 'bearer',
    body: call.body === undefined ? undefined : toJsonBody('body', call.body),
    operation: call.route,
    idempotent: call.idempotent,
    notFoundOnRetryMeansDone: call.notFoundOnRetryMeansDone,
    rateLimitKey: 'rest',
    ...options,
    ...teamHeader(options),
  });
  const isResource = (value: unknown) => isRecord(value) && typeof value.id === 'string';
  const object = async <T>(call: RestCall, options?: CallOptions, shape: 'resource' | 'object' = 'resource'): Promise<T> => {
    const req = http(call, options);
    const body = await core.requestJson<unknown>(req);
    if (shape === 'object' ? !isRecord(body) : !isResource(body)) throw core.wrongShape(req, shape === 'object' ? 'a JSON object' : 'an object with a string id', body);
    return body as T;
  };
  return {
    core,
    http,
    object,
    async list<T>(call: RestCall, key: string, options?: CallOptions): Promise<T[]> {
      const req = http(call, options);
      const body = await core.requestJson<unknown>(req);
      if (!isRecord(body) || !Array.isArray(body[key]) || !body[key].every(isResource)) {
        throw core.wrongShape(req, `an object with an array ${key} of objects with a string id`, body);
      }
      return body[key] as T[];
    },
    async send(call, options) {
      await core.request(http(call, options));
    },
  };
}

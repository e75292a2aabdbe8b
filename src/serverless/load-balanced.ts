import type { HttpCore } from '../transport/http-core.js';
import type { CallOptions } from '../transport/options.js';
import { toQueryString } from '../rest/rest-request.js';
import { ValidationError } from '../errors.js';
import { requireId, toJsonBody } from '../validation.js';

export interface LoadBalancedOptions {
  /** Send `Authorization: Bearer KEY`. @default true */
  auth?: boolean | undefined;
  /** How long to keep retrying while workers start cold (502, 503, "no workers available"). @default 300000 */
  coldStartTimeoutMs?: number | undefined;
  /** Also ride out cold starts for POST and PATCH. Only safe when your route is idempotent. @default false */
  retryNonIdempotent?: boolean | undefined;
}

export interface LoadBalancedRequestOptions extends CallOptions {
  /** Sent as a JSON body. */
  json?: unknown;
  query?: object | undefined;
  /** Overrides the client's `retryNonIdempotent` for this call. */
  retryNonIdempotent?: boolean | undefined;
}

export interface LoadBalancedClient {
  readonly baseUrl: string;
  get<T = unknown>(path: string, options?: LoadBalancedRequestOptions): Promise<T>;
  post<T = unknown>(path: string, options?: LoadBalancedRequestOptions): Promise<T>;
  put<T = unknown>(path: string, options?: LoadBalancedRequestOptions): Promise<T>;
  patch<T = unknown>(path: string, options?: LoadBalancedRequestOptions): Promise<T>;
  delete<T = unknown>(path: string, options?: LoadBalancedRequestOptions): Promise<T>;
  /**
   * A raw request: the Response as it came, for streaming or non-JSON routes. Only 2xx answers
   * resolve; the time limit covers the wait for headers. `init.body` must be a string, if any.
   */
  fetch(path: string, init?: RequestInit & LoadBalancedRequestOptions): Promise<Response>;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const NO_WORKERS = /no (?:available )?workers?(?: are)? available|no workers/i;

/** 502 and 503 while workers start, and the platform's 400 "no workers available". */
export function isColdStartAnswer(status: number, text: string): boolean {
  return status === 502 || status === 503 || (status === 400 && NO_WORKERS.test(text));
}

/** `https://{id}.api.runpod.ai` for a bare endpoint id; a URL is used as given. */
export function loadBalancedBaseUrl(endpointUrlOrId: string): string {
  const value = typeof endpointUrlOrId === 'string' && endpointUrlOrId.includes('://') ? endpointUrlOrId : requireId('endpointUrl', endpointUrlOrId);
  return (value.includes('://') ? value : `https://${encodeURIComponent(value)}.api.runpod.ai`).replace(/\/+$/, '');
}

export function createLoadBalancedClient(core: HttpCore, endpointUrlOrId: string, clientOptions: LoadBalancedOptions = {}): LoadBalancedClient {
  const baseUrl = loadBalancedBaseUrl(endpointUrlOrId);
  const coldStartTimeoutMs = clientOptions.coldStartTimeoutMs ?? 300_000;

  function toRequest(method: string, path: string, options: LoadBalancedRequestOptions, body: string | undefined) {
    const { json: _json, query, retryNonIdempotent, ...callOptions } = options;
    const idempotent = IDEMPOTENT_METHODS.has(method);
    const ridesColdStart = idempotent || (retryNonIdempotent ?? clientOptions.retryNonIdempotent ?? false);
    const slash = path.startsWith('/') ? '' : '/';
    return {
      ...callOptions,
      method,
      url: `${baseUrl}${slash}${path}${toQueryString(query)}`,
      auth: clientOptions.auth === false ? ('none' as const) : ('bearer' as const),
      body,
      operation: `${method} ${path}`,
      idempotent,
      retryWhen: ridesColdStart ? isColdStartAnswer : undefined,
      retryUntil: ridesColdStart ? Date.now() + coldStartTimeoutMs : undefined,
    };
  }

  async function send<T>(method: string, path: string, options: LoadBalancedRequestOptions = {}): Promise<T> {
    const request = toRequest(method, path, options, options.json === undefined ? undefined : toJsonBody('json', options.json));
    const result = await core.request(request);
    // The routes are the owner's own: JSON when they say so, text otherwise.
    if (result.text === '') return undefined as T;
    if (!(result.headers.get('content-type') ?? '').includes('json')) return result.text as T;
    try {
      return JSON.parse(result.text) as T;
    } catch {
      throw core.notJson(request, result);
    }
  }

  return {
    baseUrl,
    get: (path, options) => send('GET', path, options),
    post: (path, options) => send('POST', path, options),
    put: (path, options) => send('PUT', path, options),
    patch: (path, options) => send('PATCH', path, options),
    delete: (path, options) => send('DELETE', path, options),
    async fetch(path, init = {}) {
      const { method = 'GET', body, headers, signal, query, timeoutMs, maxRetries, retryNonIdempotent } = init;
      if (body !== undefined && body !== null && typeof body !== 'string') throw new ValidationError('body', 'must be a string (serialise it first)');
      const options = { query, timeoutMs, maxRetries, retryNonIdempotent, signal: signal ?? undefined, headers: headerRecord(headers) };
      return core.requestRaw(toRequest(method.toUpperCase(), path, options, body ?? undefined));
    },
  };
}

/** `HeadersInit` as a record; one that fetch would refuse (CR, LF, non-Latin-1) is a ValidationError. */
function headerRecord(headers: HeadersInit | undefined): Record<string, string> {
  try {
    return Object.fromEntries(new Headers(headers).entries());
  } catch (err) {
    throw new ValidationError('headers', `not valid HTTP headers: ${err instanceof Error ? err.message : String(err)}`);
  }
}

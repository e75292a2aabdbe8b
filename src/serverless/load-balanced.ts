import type { HttpCore, HttpRequest } from '../transport/http-core.js';
import { monotonicNow } from '../transport/clock.js';
import type { CallOptions } from '../transport/options.js';
import { toQueryString } from '../transport/query-string.js';
import { ValidationError } from '../errors.js';
import { checkBodySize, requireId, requireString, toJsonBody } from '../validation.js';

export interface LoadBalancedOptions {
  /** Send `Authorization: Bearer KEY`. @default true */
  auth?: boolean | undefined;
  /** How long to keep retrying while workers start cold (502, 503, "no workers available"). @default 300000 */
  coldStartTimeoutMs?: number | undefined;
  /** Also ride out cold starts for POST and PATCH. Only safe when your route is idempotent. @default false */
  retryNonIdempotent?: boolean | undefined;
  /**
   * Limit for one attempt. @default 480000: the platform holds a request up to 2 min while a
   * worker starts, then allows 5.5 min of processing
   */
  timeoutMs?: number | undefined;
}

export interface LoadBalancedRequestOptions extends CallOptions {
  /** Sent as a JSON body. */
  json?: unknown;
  query?: object | undefined;
  /** Overrides the client's `retryNonIdempotent` for this call. */
  retryNonIdempotent?: boolean | undefined;
  /**
   * Pins the call to a worker (sent as `X-Runpod-Worker-Id`): an id, `strict <id>` or
   * `strict-resume <id>`.
   */
  workerId?: string | undefined;
}

/** An answer with what came with it. */
export interface LoadBalancedResponse<T> {
  readonly data: T;
  readonly status: number;
  readonly headers: Headers;
  /** The worker that served the call (`X-Runpod-Worker-Id`), when the platform said. */
  readonly workerId: string | undefined;
}

export interface LoadBalancedClient {
  readonly baseUrl: string;
  get<T = unknown>(path: string, options?: LoadBalancedRequestOptions): Promise<T>;
  post<T = unknown>(path: string, options?: LoadBalancedRequestOptions): Promise<T>;
  put<T = unknown>(path: string, options?: LoadBalancedRequestOptions): Promise<T>;
  patch<T = unknown>(path: string, options?: LoadBalancedRequestOptions): Promise<T>;
  delete<T = unknown>(path: string, options?: LoadBalancedRequestOptions): Promise<T>;
  /** Any method; resolves with the body and the answer's status, headers and worker id. */
  request<T = unknown>(method: string, path: string, options?: LoadBalancedRequestOptions): Promise<LoadBalancedResponse<T>>;
  /**
   * A raw request: the Response as it came, for streaming or non-JSON routes. Only 2xx answers
   * resolve; the time limit covers the wait for headers. `init.body` must be a string, if any.
   */
  fetch(path: string, init?: RequestInit & LoadBalancedRequestOptions): Promise<Response>;
}

/** The platform's "up to 30 MB each way", read as MiB as the queue routes' limits are (see ./README.md). */
export const LOAD_BALANCED_BODY_LIMIT_BYTES = 30 * 1024 * 1024;
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/** The platform's hold for a cold request (2 min) plus its processing limit (5.5 min), plus margin. */
export const LOAD_BALANCED_ATTEMPT_MS = 480_000;
const WORKER_HEADER = 'x-runpod-worker-id';
const NO_WORKERS = /no (?:available )?workers?(?: are)? available|no workers/i;

/** 502 and 503 while workers start, and the platform's 400 "no workers available". */
export function isColdStartAnswer(status: number, text: string): boolean {
  return status === 502 || status === 503 || (status === 400 && NO_WORKERS.test(text));
}

/**
 * The endpoint's address, from its id and the client's `loadBalancedUrl` template. A full URL is
 * accepted only when it is one the template makes (`emulator.loadBalancedUrl('lb')`, or a copy of
 * the platform's own address): the API key never goes to an address the caller's options did not name.
 */
export function loadBalancedBaseUrl(endpointId: string, template = 'https://{endpointId}.api.runpod.ai'): string {
  const value = requireId('endpointId', endpointId);
  const id = value.includes('://') ? idFromUrl(value, template) : value;
  return template.replaceAll('{endpointId}', encodeURIComponent(id)).replace(/\/+$/, '');
}

function idFromUrl(url: string, template: string): string {
  const escaped = template.replace(/\/+$/, '').split('{endpointId}').map((part) => part.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'));
  const match = escaped.length > 1 ? new RegExp(`^${escaped.join('([^/?#]+)')}/*$`, 'i').exec(url) : null;
  const ids = match ? [...new Set(match.slice(1))] : [];
  let id: string | undefined;
  try {
    id = ids.length === 1 ? decodeURIComponent(ids[0]!) : undefined;
  } catch {
    id = undefined;
  }
  if (id === undefined || id.includes('/')) {
    throw new ValidationError('endpointId', 'must be an endpoint id, not a URL: set the address with the loadBalancedUrl client option (the API key goes to no other address)');
  }
  return id;
}

export function createLoadBalancedClient(core: HttpCore, endpointId: string, clientOptions: LoadBalancedOptions = {}): LoadBalancedClient {
  const baseUrl = loadBalancedBaseUrl(endpointId, core.options.loadBalancedUrl);
  const coldStartTimeoutMs = clientOptions.coldStartTimeoutMs ?? 300_000;
  const attemptMs = clientOptions.timeoutMs ?? LOAD_BALANCED_ATTEMPT_MS;

  function toRequest(method: string, path: string, options: LoadBalancedRequestOptions, body: string | undefined): HttpRequest {
    const { json: _json, query, retryNonIdempotent, workerId, ...callOptions } = options;
    if (workerId !== undefined) requireString('workerId', workerId);
    if (body !== undefined) checkBodySize(options.json === undefined ? 'body' : 'json', body, LOAD_BALANCED_BODY_LIMIT_BYTES, 'a load-balanced endpoint');
    const idempotent = IDEMPOTENT_METHODS.has(method);
    const ridesColdStart = idempotent || (retryNonIdempotent ?? clientOptions.retryNonIdempotent ?? false);
    const slash = path.startsWith('/') ? '' : '/';
    return {
      ...callOptions,
      timeoutMs: callOptions.timeoutMs ?? attemptMs,
      headers: workerId === undefined ? callOptions.headers : { ...callOptions.headers, [WORKER_HEADER]: workerId },
      method,
      url: `${baseUrl}${slash}${path}${toQueryString(query)}`,
      auth: clientOptions.auth === false ? ('none' as const) : ('bearer' as const),
      body,
      operation: `${method} ${path}`,
      idempotent,
      retryWhen: ridesColdStart ? isColdStartAnswer : undefined,
      retryUntil: ridesColdStart ? monotonicNow() + coldStartTimeoutMs : undefined,
    };
  }

  async function exchange<T>(method: string, path: string, options: LoadBalancedRequestOptions = {}): Promise<LoadBalancedResponse<T>> {
    const request = toRequest(method.toUpperCase(), path, options, options.json === undefined ? undefined : toJsonBody('json', options.json));
    const result = await core.request(request);
    const answer = { status: result.status, headers: result.headers, workerId: result.headers.get(WORKER_HEADER) ?? undefined };
    // The routes are the owner's own: JSON when they say so, text otherwise.
    if (result.text === '') return { ...answer, data: undefined as T };
    if (!(result.headers.get('content-type') ?? '').includes('json')) return { ...answer, data: result.text as T };
    try {
      return { ...answer, data: JSON.parse(result.text) as T };
    } catch {
      throw core.notJson(request, result);
    }
  }

  const send = async <T>(method: string, path: string, options?: LoadBalancedRequestOptions): Promise<T> => (await exchange<T>(method, path, options)).data;

  return {
    baseUrl,
    get: (path, options) => send('GET', path, options),
    post: (path, options) => send('POST', path, options),
    put: (path, options) => send('PUT', path, options),
    patch: (path, options) => send('PATCH', path, options),
    delete: (path, options) => send('DELETE', path, options),
    request: (method, path, options) => exchange(method, path, options),
    async fetch(path, init = {}) {
      const { method = 'GET', body, headers, signal, query, timeoutMs, maxRetries, retryNonIdempotent, workerId } = init;
      if (body !== undefined && body !== null && typeof body !== 'string') throw new ValidationError('body', 'must be a string (serialise it first)');
      const options = { query, timeoutMs, maxRetries, retryNonIdempotent, workerId, signal: signal ?? undefined, headers: headerRecord(headers) };
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

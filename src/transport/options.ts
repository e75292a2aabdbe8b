import { ValidationError, type RequestSummary } from '../errors.js';
import type { RateLimitInfo } from './rate-limit-headers.js';

/** A `fetch` compatible function: the global one, undici's, a test double or `emulator.fetch`. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Reported before each automatic retry, so long waits are visible. */
export interface RetryEvent {
  /** GraphQL operation name, REST route or serverless action. */
  readonly operation: string;
  /** The attempt about to start, from 1 for the first retry. */
  readonly retry: number;
  readonly delayMs: number;
  /** HTTP status, or `timeout` / `connection`. */
  readonly reason: number | 'timeout' | 'connection';
}

/** Options of {@link createRunpodClient}. Every URL can be changed, so the emulator or a proxy can stand in. */
export interface RunpodClientOptions {
  /**
   * The account's API key.
   * @default process.env.RUNPOD_API_KEY, where `process` exists
   */
  apiKey?: string | undefined;
  /** @default 'https://api.runpod.io/graphql' */
  graphqlUrl?: string | undefined;
  /** @default 'https://rest.runpod.io/v1' */
  restUrl?: string | undefined;
  /** Base of queue-based endpoints; the endpoint id is appended. @default 'https://api.runpod.ai/v2' */
  serverlessUrl?: string | undefined;
  /** The fetch to use. @default globalThis.fetch, looked up at call time */
  fetch?: FetchLike | undefined;
  /** Limit for one attempt (headers and body), in milliseconds. @default 60000 */
  timeoutMs?: number | undefined;
  /** Automatic retries after the first attempt, for calls that are safe to retry. @default 2 */
  maxRetries?: number | undefined;
  /** Extra headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /** Called before every automatic retry. */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /**
   * Where the GraphQL key goes: `'query'` is the spec's `?api_key=`; `'header'` sends
   * `Authorization: Bearer` and keeps the key out of URLs (and so out of proxy logs).
   * @default 'query'
   */
  graphqlAuth?: 'query' | 'header' | undefined;
  /**
   * Address of a load-balanced endpoint, with `{endpointId}` in it.
   * @default 'https://{endpointId}.api.runpod.ai'
   */
  loadBalancedUrl?: string | undefined;
  /**
   * Client-side pacing per rate-limit bucket (see the README). `false` turns pacing off.
   * @default the platform's documented limits
   */
  rateLimits?: false | Readonly<Record<string, RateLimitSetting>> | undefined;
  /** Called with the quota the server announces (REST v2 `RateLimit` headers) on every answer that has it. */
  onRateLimit?: ((info: RateLimitInfo) => void) | undefined;
}

/** Pacing for one bucket: at most `requests` per `intervalMs`, and at most `concurrency` in flight. */
export interface RateLimitSetting {
  readonly requests?: number | undefined;
  readonly intervalMs?: number | undefined;
  readonly concurrency?: number | undefined;
}

/** Per-call options accepted by every method. */
export interface CallOptions {
  /** Aborts the call, including any retry wait. */
  signal?: AbortSignal | undefined;
  /** Overrides the client's per-attempt `timeoutMs`. */
  timeoutMs?: number | undefined;
  /** Overrides the client's `maxRetries`. */
  maxRetries?: number | undefined;
  /** Extra headers for this call. */
  headers?: Record<string, string> | undefined;
}

export const DEFAULT_GRAPHQL_URL = 'https://api.runpod.io/graphql';
export const DEFAULT_REST_URL = 'https://rest.runpod.io/v1';
export const DEFAULT_LOAD_BALANCED_URL = 'https://{endpointId}.api.runpod.ai';
export const DEFAULT_SERVERLESS_URL = 'https://api.runpod.ai/v2';
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

export interface ResolvedOptions {
  readonly graphqlUrl: string;
  readonly restUrl: string;
  readonly serverlessUrl: string;
  readonly fetch: FetchLike;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly onRetry: ((event: RetryEvent) => void) | undefined;
  readonly graphqlAuth: 'query' | 'header';
  readonly loadBalancedUrl: string;
  readonly rateLimits: false | Readonly<Record<string, RateLimitSetting>> | undefined;
  readonly onRateLimit: ((info: RateLimitInfo) => void) | undefined;
}

function envApiKey(): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const key = proc?.env?.RUNPOD_API_KEY;
  return key ? key : undefined;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** A time limit or interval: a finite number of milliseconds above 0 (0, NaN or "1" would remove the limit). */
export function checkDuration(field: string, value: unknown, request?: RequestSummary): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ValidationError(field, `must be a finite number of milliseconds above 0, got ${describe(value)}`, { request });
  }
}

/** A retry count: an integer from 0. */
export function checkRetries(field: string, value: unknown, request?: RequestSummary): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ValidationError(field, `must be an integer ≥ 0, got ${describe(value)}`, { request });
  }
}

// Header values are byte strings: fetch refuses anything above U+00FF, and CR, LF or NUL could
// split the request. Refused here, once, rather than as a ConnectionError after useless retries.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** A map of header names to values that can travel in an HTTP header. */
export function checkHeaders(field: string, value: unknown, request?: RequestSummary): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ValidationError(field, 'must be an object of header names to string values', { request });
  }
  for (const [name, v] of Object.entries(value)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new ValidationError(`${field}`, `"${name}" is not a valid header name`, { request });
    if (typeof v !== 'string' || !HEADER_VALUE.test(v)) {
      throw new ValidationError(`${field}.${name}`, 'must be a string of Latin-1 characters without CR, LF or NUL', { request });
    }
  }
}

function checkFunction(field: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') throw new ValidationError(field, 'must be a function');
}

function checkUrl(field: string, value: unknown): void {
  if (value === undefined) return;
  let ok = false;
  try {
    ok = typeof value === 'string' && /^https?:$/.test(new URL(value.replace('{endpointId}', 'x')).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw new ValidationError(field, `must be an absolute http(s) URL, got ${describe(value)}`);
}

/** Refuses a key that cannot travel in an Authorization header (so would fail on every call). */
function checkApiKey(value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'string') throw new ValidationError('apiKey', 'must be a string');
  // No echo of the key in these messages, not even in part.
  if (!/^[\x20-\x7e\x80-\xff]*$/.test(value)) {
    throw new ValidationError('apiKey', 'must hold only printable Latin-1 characters (no CR, LF, control or non-Latin-1 characters)');
  }
  if (value.trim() !== value) throw new ValidationError('apiKey', 'must not start or end with white space');
}

function checkRateLimits(value: unknown): void {
  if (value === undefined || value === false) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ValidationError('rateLimits', 'must be false or an object of bucket settings');
  }
  for (const [bucket, setting] of Object.entries(value)) {
    if (setting === null || typeof setting !== 'object') throw new ValidationError(`rateLimits.${bucket}`, 'must be an object');
    const { requests, intervalMs, concurrency } = setting as RateLimitSetting;
    for (const [name, n] of [['requests', requests], ['concurrency', concurrency]] as const) {
      if (n !== undefined && (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1)) {
        throw new ValidationError(`rateLimits.${bucket}.${name}`, `must be an integer ≥ 1, got ${describe(n)}`);
      }
    }
    checkDuration(`rateLimits.${bucket}.intervalMs`, intervalMs);
  }
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  return value === null ? 'null' : typeof value;
}

/** Every client option checked: a wrong one is a ValidationError naming it, at client creation. */
export function validateClientOptions(options: RunpodClientOptions): void {
  if (options === null || typeof options !== 'object') throw new ValidationError('options', 'must be an object');
  checkApiKey(options.apiKey);
  for (const field of ['graphqlUrl', 'restUrl', 'serverlessUrl', 'loadBalancedUrl'] as const) checkUrl(field, options[field]);
  checkDuration('timeoutMs', options.timeoutMs);
  checkRetries('maxRetries', options.maxRetries);
  checkHeaders('headers', options.headers);
  for (const field of ['fetch', 'onRetry', 'onRateLimit'] as const) checkFunction(field, options[field]);
  if (options.graphqlAuth !== undefined && options.graphqlAuth !== 'query' && options.graphqlAuth !== 'header') {
    throw new ValidationError('graphqlAuth', `must be 'query' or 'header', got ${describe(options.graphqlAuth)}`);
  }
  checkRateLimits(options.rateLimits);
}

/** The per-call options every method takes, checked before anything is sent. */
export function validateCallOptions(options: CallOptions, request?: RequestSummary): void {
  checkDuration('timeoutMs', options.timeoutMs, request);
  checkRetries('maxRetries', options.maxRetries, request);
  checkHeaders('headers', options.headers, request);
  const signal: unknown = options.signal;
  if (signal !== undefined && (signal === null || typeof signal !== 'object' || typeof (signal as AbortSignal).addEventListener !== 'function')) {
    throw new ValidationError('signal', 'must be an AbortSignal', { request });
  }
}

/** Resolves defaults. The API key is returned apart so it can live only in a closure. */
export function resolveOptions(options: RunpodClientOptions = {}): { apiKey: string | undefined; resolved: ResolvedOptions } {
  validateClientOptions(options);
  const apiKey = options.apiKey ?? envApiKey();
  checkApiKey(apiKey);
  const userFetch = options.fetch;
  return {
    apiKey,
    resolved: {
      graphqlUrl: options.graphqlUrl ?? DEFAULT_GRAPHQL_URL,
      restUrl: trimSlash(options.restUrl ?? DEFAULT_REST_URL),
      serverlessUrl: trimSlash(options.serverlessUrl ?? DEFAULT_SERVERLESS_URL),
      fetch: userFetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      headers: { ...options.headers },
      onRetry: options.onRetry,
      graphqlAuth: options.graphqlAuth ?? 'query',
      loadBalancedUrl: options.loadBalancedUrl ?? DEFAULT_LOAD_BALANCED_URL,
      rateLimits: options.rateLimits,
      onRateLimit: options.onRateLimit,
    },
  };
}

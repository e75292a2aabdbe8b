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
  /** Base of REST v2. @default 'https://api.runpod.io/v2' */
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
export const DEFAULT_REST_URL = 'https://api.runpod.io/v2';
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

/** Resolves defaults. The API key is returned apart so it can live only in a closure. */
export function resolveOptions(options: RunpodClientOptions): { apiKey: string | undefined; resolved: ResolvedOptions } {
  const userFetch = options.fetch;
  return {
    apiKey: options.apiKey ?? envApiKey(),
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

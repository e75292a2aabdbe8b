import { ValidationError, type RequestSummary } from '../errors.js';
import type { PacingStore } from './pacing.js';
import type { RateLimitInfo } from './rate-limit-headers.js';
import { MAX_KEY_LENGTH } from './redact.js';
import type { GraphQLTransport, TransportChangeEvent } from './transport-choice.js';

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
  /**
   * A `runpod-gql gateway`'s token, sent as `Authorization: Bearer` instead of a RunPod key. With
   * it, point `graphqlUrl` at the gateway; this is how a browser page calls RunPod.
   */
  gatewayToken?: string | undefined;
  /**
   * Create a client that holds a RunPod API key in a browser anyway. Anyone who opens the page can
   * read the key; serve `runpod-gql gateway` and pass `gatewayToken` instead.
   * @default false
   */
  dangerouslyAllowBrowser?: boolean | undefined;
  /**
   * In a browser page, a relative URL (`/graphql`) resolves against the page's address, e.g. to
   * a gateway on the app's own origin.
   * @default 'https://api.runpod.io/graphql'
   */
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
  /**
   * The API behind all GraphQL traffic: `rp.graphql` (`request`, `execute`), `rp.pods` and
   * `rp.gpuTypes`. `'auto'`: RunPod's GraphQL while it works; from the first 410 Gone on
   * `graphqlUrl`, REST v2 for this client's whole life (the call that met the 410 is re-issued on
   * REST; documents run in process against schema.graphql). `'graphql'`: GraphQL only (a 410 is an
   * ApiRetiredError). `'rest'`: REST v2 only, no GraphQL request ever. Inputs and fields REST v2
   * cannot honour are refused with TransportUnsupportedError.
   * @default 'auto'
   */
  graphqlTransport?: GraphQLTransport | undefined;
  /**
   * The old name of `graphqlTransport`, which it still sets.
   * @deprecated Use `graphqlTransport` (the same values).
   */
  podsTransport?: GraphQLTransport | undefined;
  /**
   * In `'auto'`, re-issue one call on REST v2 when GraphQL still answers 429 after the retries
   * (a refusal before any work). Off by default: results would switch between exact and lossy.
   * @default false
   */
  fallbackOnRateLimit?: boolean | undefined;
  /**
   * Called once per switch of `rp.pods` / `rp.gpuTypes` from GraphQL to REST v2. Without it, each
   * client warns once (a process warning, where the runtime has them).
   */
  onTransportChange?: ((event: TransportChangeEvent) => void) | undefined;
  /**
   * Where pacing keeps its send times, concurrency slots and pauses. Share one store (such as
   * `createRedisPacingStore` from `runpod-gql/pacing/redis`) between processes that call the same
   * endpoints with the same key, so that together they stay within the limits.
   * @default each client's own memory
   */
  pacingStore?: PacingStore | undefined;
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
  readonly pacingStore: PacingStore | undefined;
}

function envApiKey(): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const key = proc?.env?.RUNPOD_API_KEY;
  return key ? key : undefined;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

type Check = (value: unknown) => boolean;

/**
 * The request an error names, or a function that makes it: redacting a URL costs more than the
 * checks, so the hot path passes a function and pays only when an option is wrong.
 */
export type RequestForError = RequestSummary | (() => RequestSummary);

function check(field: string, value: unknown, ok: Check, what: string, request?: RequestForError): void {
  // null, like undefined, means the default (every reader uses `??`).
  if (value != null && !ok(value)) {
    // Numbers are shown; text is not (a header value may be a credential).
    const got = typeof value === 'number' ? value : typeof value;
    throw new ValidationError(field, `must be ${what}, got ${got}`, { request: typeof request === 'function' ? request() : request });
  }
}

const isDuration: Check = (v) => typeof v === 'number' && Number.isFinite(v) && v > 0;
const isCount = (min: number): Check => (v) => Number.isSafeInteger(v) && (v as number) >= min;
const isObject: Check = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
// Header values are byte strings: fetch refuses anything above U+00FF, and CR, LF or NUL could
// split the request. Refused here, once, rather than as a ConnectionError after useless retries.
const isHeaderValue: Check = (v) => typeof v === 'string' && /^[\t\x20-\x7e\x80-\xff]*$/.test(v);

/** A time limit or interval: a finite number of milliseconds above 0 (0, NaN or "1" would remove the limit). */
export function checkDuration(field: string, value: unknown, request?: RequestForError): void {
  check(field, value, isDuration, 'a finite number of milliseconds above 0', request);
}

function checkHeaders(value: unknown, request?: RequestForError): void {
  if (value == null) return;
  check('headers', value, isObject, 'an object of header names to values', request);
  for (const [name, v] of Object.entries(value)) {
    check(`headers.${name}`, v, isHeaderValue, 'a string of Latin-1 characters without CR, LF or NUL', request);
  }
}

const URL_OPTIONS = ['graphqlUrl', 'restUrl', 'serverlessUrl', 'loadBalancedUrl'] as const;

/**
 * What is wrong with a URL option, or undefined when it is an absolute http(s) URL. The value is
 * never echoed: a URL may carry a credential, or be a key pasted into the wrong option.
 */
export function urlProblem(value: unknown, template = false): string | undefined {
  if (template && typeof value === 'string' && !value.includes('{endpointId}')) return 'must contain {endpointId}, where the endpoint id goes';
  let url: URL | undefined;
  try {
    // `localhost:8787/x` parses with the scheme `localhost:`, `http:x` as http://x/: both are refused.
    if (typeof value === 'string' && /^https?:\/\//i.test(value)) url = new URL(value.replaceAll('{endpointId}', 'x'));
  } catch {}
  if (!url) return `must be an absolute URL starting with http:// or https://${typeof value === 'string' ? '' : `, got ${typeof value}`}`;
  if (url.username || url.password || url.hash) return 'must not carry a user name, password or #fragment';
  return undefined;
}

const g = globalThis as { location?: { href?: unknown }; window?: unknown; document?: unknown };

/** `graphqlUrl` resolved against the page in a browser (a relative URL reaches the page's own origin). */
function absoluteGraphqlUrl(value: unknown): unknown {
  const page = g.location?.href;
  return typeof value === 'string' && value.startsWith('/') && typeof page === 'string' ? new URL(value, page).href : value;
}

function checkUrls(options: RunpodClientOptions): void {
  for (const field of URL_OPTIONS) {
    const value = field === 'graphqlUrl' ? absoluteGraphqlUrl(options[field]) : options[field];
    if (value == null) continue;
    const problem = urlProblem(value, field === 'loadBalancedUrl');
    if (problem) throw new ValidationError(field, problem);
  }
}

/**
 * The client options that would fail silently or on every call, checked at creation: each wrong
 * one is a ValidationError naming it.
 */
export function validateClientOptions(options: RunpodClientOptions): void {
  check('options', options, isObject, 'an object');
  checkUrls(options);
  validateCallOptions(options);
  // A shared store names the account by a digest of the key, which needs Web Crypto.
  check('pacingStore', options.pacingStore, (v) => typeof (v as PacingStore).bucket === 'function' && !!globalThis.crypto?.subtle, 'a PacingStore, in a runtime with crypto.subtle');
}

/** The options of the GraphQL transport: checked by the full client only, the one that reads them. */
export function validateTransportOptions(options: RunpodClientOptions): void {
  const isMode = (v: unknown) => v === 'auto' || v === 'graphql' || v === 'rest';
  check('graphqlTransport', options.graphqlTransport, isMode, "'auto', 'graphql' or 'rest'");
  check('podsTransport', options.podsTransport, isMode, "'auto', 'graphql' or 'rest' (it is the old name of graphqlTransport)");
  if (options.graphqlTransport != null && options.podsTransport != null && options.graphqlTransport !== options.podsTransport) {
    throw new ValidationError('podsTransport', 'is the old name of graphqlTransport: give one of them, not two different values');
  }
  check('fallbackOnRateLimit', options.fallbackOnRateLimit, (v) => typeof v === 'boolean', 'a boolean');
  check('onTransportChange', options.onTransportChange, (v) => typeof v === 'function', 'a function');
}

/** The per-call options every method takes (and their client-wide defaults), checked before anything is sent. */
export function validateCallOptions(options: CallOptions, request?: RequestForError): void {
  checkDuration('timeoutMs', options.timeoutMs, request);
  check('maxRetries', options.maxRetries, isCount(0), 'an integer ≥ 0', request);
  checkHeaders(options.headers, request);
  check('signal', options.signal, (v) => typeof (v as AbortSignal | null)?.addEventListener === 'function', 'an AbortSignal', request);
}

/** Refuses a key that cannot travel in an Authorization header (so would fail on every call). */
function checkApiKey(value: unknown, field = 'apiKey'): void {
  // The message never echoes the key, not even in part.
  if (typeof value === 'string' && value.length > MAX_KEY_LENGTH) {
    throw new ValidationError(field, `must be at most ${MAX_KEY_LENGTH} characters, got ${value.length}`);
  }
  if (value !== undefined && value !== '' && (typeof value !== 'string' || !/^[\x21-\x7e\x80-\xff]([\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?$/.test(value))) {
    throw new ValidationError(field, 'must be printable Latin-1 text, with no CR, LF, control or non-Latin-1 character, nor white space at either end');
  }
}

/** The runtime's fetch, looked up per call (tests and polyfills may replace it). It never edits what it is given. */
export const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

/**
 * The credential: the gateway token, or the RunPod key. A RunPod key in a browser is refused
 * unless `dangerouslyAllowBrowser`: a page's code is readable by anyone who opens it.
 */
function credentialOf(options: RunpodClientOptions): string | undefined {
  check('dangerouslyAllowBrowser', options.dangerouslyAllowBrowser, (v) => typeof v === 'boolean', 'a boolean');
  if (options.gatewayToken != null) {
    if (options.apiKey) throw new ValidationError('gatewayToken', 'replaces `apiKey`: pass one');
    checkApiKey(options.gatewayToken, 'gatewayToken');
    return options.gatewayToken;
  }
  const apiKey = options.apiKey ?? envApiKey();
  checkApiKey(apiKey);
  // In a page (or Web Worker), anyone who opens it can read the key.
  if (apiKey && !options.dangerouslyAllowBrowser && g.document !== undefined && g.window !== undefined) {
    throw new ValidationError('apiKey', 'a page exposes it: use `runpod-gql gateway` with its `graphqlUrl` and a `gatewayToken`, or dangerouslyAllowBrowser: true');
  }
  return apiKey;
}

/** Resolves defaults. The API key is returned apart so it can live only in a closure. */
export function resolveOptions(options: RunpodClientOptions = {}): { apiKey: string | undefined; resolved: ResolvedOptions } {
  validateClientOptions(options);
  const apiKey = credentialOf(options);
  const userFetch = options.fetch;
  return {
    apiKey,
    resolved: {
      graphqlUrl: (absoluteGraphqlUrl(options.graphqlUrl) as string | undefined) ?? DEFAULT_GRAPHQL_URL,
      restUrl: trimSlash(options.restUrl ?? DEFAULT_REST_URL),
      serverlessUrl: trimSlash(options.serverlessUrl ?? DEFAULT_SERVERLESS_URL),
      fetch: userFetch ?? globalFetch,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      headers: { ...options.headers },
      onRetry: options.onRetry,
      // A gateway token is never put in a URL.
      graphqlAuth: options.gatewayToken != null ? 'header' : (options.graphqlAuth ?? 'query'),
      loadBalancedUrl: options.loadBalancedUrl ?? DEFAULT_LOAD_BALANCED_URL,
      rateLimits: options.rateLimits,
      onRateLimit: options.onRateLimit,
      pacingStore: options.pacingStore ?? undefined,
    },
  };
}

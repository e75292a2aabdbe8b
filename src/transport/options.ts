import { ValidationError, type RequestSummary } from '../errors.js';
import { DEFAULT_LOG_LEVEL, isLogger, isLogLevel, type LogLevel, type RunpodLogger } from './logger.js';
import type { PacingStore, RateLimitSetting } from './pacing.js';

export type { RateLimitSetting };
import type { RateLimitInfo, RateLimitWindow } from './rate-limit-headers.js';
import { MAX_KEY_LENGTH } from './redact.js';
import type { GraphQLTransport, TransportChangeEvent } from './transport-choice.js';
import { checkAppInfo, userAgent, type AppInfo } from './user-agent.js';

/** A `fetch` compatible function: the global one, undici's, a test double or `emulator.fetch`. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Extra `fetch` options, passed as they are with every request: undici's `dispatcher` (a proxy, a
 * connection pool) in Node, `cache`, `keepalive`, `priority`, … The client's own `method`, `headers`,
 * `body`, `signal` and `redirect` always win.
 */
export type FetchOptions = Omit<RequestInit, 'method' | 'headers' | 'body' | 'signal' | 'redirect'> & {
  /** undici's dispatcher (Node): a `ProxyAgent`, an `Agent` with its own pool, an `EnvHttpProxyAgent`. */
  dispatcher?: unknown;
  readonly [option: string]: unknown;
};

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
   * The account's API key, used as given. `null`: no key at all, not even `RUNPOD_API_KEY`, and
   * every request goes without credentials: a client of an anonymous gateway, or of the app's own
   * backend path (`graphqlUrl: '/api/runpod'`) that adds its own.
   * @default process.env.RUNPOD_API_KEY where `process` exists, with surrounding spaces, tabs, CR and LF trimmed
   */
  apiKey?: string | null | undefined;
  /**
   * A `runpod-gql gateway`'s token, sent as `Authorization: Bearer` instead of a RunPod key. With
   * it, point `graphqlUrl` at the gateway; this is how a browser page calls RunPod. The token goes
   * to the gateway's origin (`graphqlUrl`'s) and nowhere else: a call to any other origin (REST v2,
   * serverless, on RunPod's hosts) is refused before it is sent, with a `ValidationError` whose
   * `field` is `gatewayToken`.
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
   * @default process.env.RUNPOD_GRAPHQL_URL where `process` exists, else 'https://api.runpod.io/graphql'
   */
  graphqlUrl?: string | undefined;
  /** Base of REST v2. @default process.env.RUNPOD_REST_URL where `process` exists, else 'https://api.runpod.io/v2' */
  restUrl?: string | undefined;
  /**
   * Base of queue-based endpoints; the endpoint id is appended.
   * @default process.env.RUNPOD_SERVERLESS_URL where `process` exists, else 'https://api.runpod.ai/v2'
   */
  serverlessUrl?: string | undefined;
  /** The fetch to use. @default globalThis.fetch, looked up at call time */
  fetch?: FetchLike | undefined;
  /** Extra options for every `fetch` call, e.g. `{ dispatcher: new ProxyAgent(url) }` (see the README on proxies). */
  fetchOptions?: FetchOptions | undefined;
  /** Limit for one attempt (headers and body), in milliseconds. @default 60000 */
  timeoutMs?: number | undefined;
  /** Automatic retries after the first attempt, for calls that are safe to retry. @default 2 */
  maxRetries?: number | undefined;
  /**
   * The default whole-call deadline, in milliseconds (see {@link CallOptions.deadlineMs}).
   * @default undefined: off
   */
  deadlineMs?: number | undefined;
  /**
   * Extra headers sent with every request. Every request also carries
   * `User-Agent: runpod-gql/<version> (<runtime> <version>; <platform>)` (not in browsers, which
   * forbid it); a `user-agent` here replaces it. From a page through a runpod-gql gateway on another
   * origin, start the gateway with `--cors-header NAME` for each of them (its preflight allows only
   * `authorization`, `content-type`, `accept`, `x-request-id`, `user-agent` and `x-team-id`); a
   * refused call's ConnectionError names the flags.
   */
  headers?: Record<string, string> | undefined;
  /** Your app, appended to the User-Agent as `name/version`, so RunPod can tell its traffic apart. */
  appInfo?: AppInfo | undefined;
  /**
   * The team a console session acts for, sent as `X-Team-Id` on REST v2 requests only (never to
   * GraphQL or the serverless routes). An API key made inside a team already acts for it. From
   * RunPod's documentation; it is in no published contract yet.
   */
  teamId?: string | undefined;
  /** Called before every automatic retry. */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /**
   * Where the GraphQL key goes: `'query'` is the spec's `?api_key=`; `'header'` sends
   * `Authorization: Bearer` and keeps the key out of URLs (and so out of proxy logs).
   * @default 'query'
   */
  graphqlAuth?: 'query' | 'header' | undefined;
  /**
   * How a document that carries codegen's hash (`__meta__.hash`, as the package's own operations
   * and `persisted-documents.json` have) is sent. `'auto'`: to a gateway (any `graphqlUrl` that
   * is not RunPod's), `{ documentId, query }`, so a `--persisted` gateway runs it by id and any
   * other runs the text; to RunPod's GraphQL, the text. `'always'`: the id alone, never the text
   * (a document without a hash is then refused before sending). `'never'`: the text alone.
   * @default 'auto'
   */
  persistedDocuments?: 'auto' | 'always' | 'never' | undefined;
  /**
   * Address of a load-balanced endpoint, with `{endpointId}` in it.
   * @default process.env.RUNPOD_LOAD_BALANCED_URL where `process` exists, else 'https://{endpointId}.api.runpod.ai'
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
   * client warns once through its `logger` (at `warn`); every switch is logged at `info`.
   */
  onTransportChange?: ((event: TransportChangeEvent) => void) | undefined;
  /**
   * Where pacing keeps its send times, concurrency slots and pauses. Share one store (such as
   * `createRedisPacingStore` from `runpod-gql/pacing/redis`) between processes that call the same
   * endpoints with the same key, so that together they stay within the limits.
   * @default each client's own memory
   */
  pacingStore?: PacingStore | undefined;
  /**
   * How much to log: `'debug'` logs every attempt (method, redacted URL, status, duration), every
   * pacing wait, retry and its reason, and transport switches; `'info'` retries and switches;
   * `'warn'` the one-time transport warning. No line ever holds the key.
   * @default process.env.RUNPOD_LOG where `process` exists, else 'warn'
   */
  logLevel?: LogLevel | undefined;
  /**
   * Where log lines go: an object with `error`, `warn`, `info` and `debug` methods (pino, winston,
   * consola and `console` fit). Each call gets one complete message and an object of fields.
   * @default globalThis.console
   */
  logger?: RunpodLogger | undefined;
}

/** Per-call options accepted by every method. */
export interface CallOptions {
  /** Aborts the call, including any retry wait. */
  signal?: AbortSignal | undefined;
  /** Overrides the client's per-attempt `timeoutMs`. */
  timeoutMs?: number | undefined;
  /** Overrides the client's `maxRetries`. */
  maxRetries?: number | undefined;
  /**
   * Bounds everything the call does, in milliseconds: pacing waits, every attempt, retries and
   * their backoff, reads a create makes first (the GPU catalog) and its marker lookup after an
   * ambiguous failure. When it passes, the call ends in a `TimeoutError`, or, for a create that may
   * have reached the server, in a `PossiblyCreatedError` with its marker. A `Retry-After` past it
   * ends the call at once in a `RateLimitError`. `timeoutMs` still limits each attempt. Waits with
   * their own `timeoutMs` (`waitUntilReady`, `job.wait`) and log streams keep theirs.
   * @default the client's `deadlineMs` (off unless set)
   */
  deadlineMs?: number | undefined;
  /** Extra headers for this call (from a page, each needs the gateway's `--cors-header NAME`, as the client's `headers` do). */
  headers?: Record<string, string> | undefined;
  /** Extra `fetch` options for this call's requests, over the client's `fetchOptions`. */
  fetchOptions?: FetchOptions | undefined;
  /**
   * Called with each HTTP answer this call receives, as soon as its headers arrive: its status,
   * request id, serverless worker id, REST v2 `RateLimit` windows and (scrubbed) headers. A method
   * that sends more than one request (a retry, a wait that polls, a deploy's catalog check) calls it
   * once per answer; the last one is the result's. What it throws is ignored.
   */
  onResponse?: ((info: ResponseInfo) => void) | undefined;
}

/** One HTTP answer, as `onResponse` sees it. */
export interface ResponseInfo {
  /** GraphQL operation name, REST route or serverless action. */
  readonly operation: string;
  readonly status: number;
  /** `x-request-id` (else `x-runpod-request-id`, else `x-runpod-worker-id`): what RunPod support asks for. */
  readonly requestId: string | undefined;
  /** `x-runpod-worker-id`: the serverless worker that answered. */
  readonly workerId: string | undefined;
  /** REST v2's `RateLimit` / `RateLimit-Policy` windows; empty when the answer had none. */
  readonly rateLimit: readonly RateLimitWindow[];
  /** Every header but `set-cookie`, names in lower case, scrubbed of the key. */
  readonly headers: Readonly<Record<string, string>>;
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
  readonly fetchOptions: FetchOptions | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly deadlineMs: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** `X-Team-Id` for REST v2 requests. */
  readonly teamId: string | undefined;
  /** Sent as User-Agent unless `headers` has one; undefined in a browser. */
  readonly userAgent: string | undefined;
  readonly onRetry: ((event: RetryEvent) => void) | undefined;
  readonly graphqlAuth: 'query' | 'header';
  readonly persistedDocuments: 'auto' | 'always' | 'never';
  readonly loadBalancedUrl: string;
  readonly rateLimits: false | Readonly<Record<string, RateLimitSetting>> | undefined;
  readonly onRateLimit: ((info: RateLimitInfo) => void) | undefined;
  readonly pacingStore: PacingStore | undefined;
  readonly logLevel: LogLevel;
  readonly logger: RunpodLogger | undefined;
  /** The only origin a `gatewayToken` is sent to (`graphqlUrl`'s); undefined for a client with a RunPod key or none. */
  readonly gatewayOrigin: string | undefined;
  /** `apiKey: null`: requests go without credentials, and "no key" is not an error. */
  readonly keyless: boolean;
}

/**
 * An environment variable where the runtime has `process` (Node, Bun, Deno's Node mode), else
 * undefined. An empty value counts as unset. Never a `node:` import: the core stays portable.
 */
export function readEnv(name: string): string | undefined {
  let value: unknown;
  try {
    value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
  } catch {
    // Deno without --allow-env throws on read: no environment, then.
    return undefined;
  }
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The environment variable each URL option falls back to, where `process` exists (the lines `runpod-gql emulator` prints). */
export const URL_ENV_VARIABLES = {
  graphqlUrl: 'RUNPOD_GRAPHQL_URL',
  restUrl: 'RUNPOD_REST_URL',
  serverlessUrl: 'RUNPOD_SERVERLESS_URL',
  loadBalancedUrl: 'RUNPOD_LOAD_BALANCED_URL',
} as const;

/** The option, else its environment variable (trimmed), else undefined; a malformed variable is a ValidationError naming it. */
function urlOption(options: RunpodClientOptions, field: keyof typeof URL_ENV_VARIABLES): string | undefined {
  const explicit = options[field];
  if (explicit != null) return explicit;
  const variable = URL_ENV_VARIABLES[field];
  const value = readEnv(variable)?.trim();
  if (!value) return undefined;
  const problem = urlProblem(value, field === 'loadBalancedUrl');
  if (problem) throw new ValidationError(variable, problem);
  return value;
}

/** `logLevel`, else `RUNPOD_LOG`, else 'warn'; a wrong value is a ValidationError naming where it came from. */
function resolveLogLevel(option: unknown): LogLevel {
  check('logLevel', option, isLogLevel, LOG_LEVEL_LIST);
  if (option != null) return option as LogLevel;
  const env = readEnv('RUNPOD_LOG')?.trim().toLowerCase();
  if (env === undefined || env === '') return DEFAULT_LOG_LEVEL;
  if (!isLogLevel(env)) throw new ValidationError('RUNPOD_LOG', `must be ${LOG_LEVEL_LIST}`);
  return env;
}
const LOG_LEVEL_LIST = "'off', 'error', 'warn', 'info' or 'debug'";

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
  check('teamId', options.teamId, (v) => isHeaderValue(v) && /^\S(.*\S)?$/.test(v as string), 'a string of Latin-1 characters without CR, LF, NUL or white space at either end');
  // A shared store names the account by a digest of the key, which needs Web Crypto.
  checkAppInfo(options.appInfo);
  check('logger', options.logger, isLogger, 'an object with error, warn, info and debug methods');
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
  check('persistedDocuments', options.persistedDocuments, (v) => v === 'auto' || v === 'always' || v === 'never', "'auto', 'always' or 'never'");
  check('onTransportChange', options.onTransportChange, (v) => typeof v === 'function', 'a function');
}

// Made once: every call with an option set runs these checks.
const isCountFromZero = isCount(0);
const isSignal: Check = (v) => typeof (v as AbortSignal | null)?.addEventListener === 'function';

/** The per-call options every method takes (and their client-wide defaults), checked before anything is sent. */
export function validateCallOptions(options: CallOptions, request?: RequestForError): void {
  checkDuration('timeoutMs', options.timeoutMs, request);
  checkDuration('deadlineMs', options.deadlineMs, request);
  check('maxRetries', options.maxRetries, isCountFromZero, 'an integer ≥ 0', request);
  checkHeaders(options.headers, request);
  check('signal', options.signal, isSignal, 'an AbortSignal', request);
  check('fetchOptions', options.fetchOptions, isObject, 'an object of fetch options', request);
  check('onResponse', options.onResponse, (v) => typeof v === 'function', 'a function', request);
}

/**
 * Refuses a key that cannot travel in an Authorization header (so would fail on every call), as a
 * ValidationError whose `field` is `source`: where the key came from (`apiKey`, `RUNPOD_API_KEY`;
 * the CLI passes `--api-key` or its profile). Empty or undefined passes: "no key" is refused when a
 * call needs one. The message never echoes the key, not even in part.
 */
export function checkApiKey(value: unknown, source = 'apiKey'): void {
  if (typeof value === 'string' && value.length > MAX_KEY_LENGTH) {
    throw new ValidationError(source, `must be at most ${MAX_KEY_LENGTH} characters, got ${value.length}`);
  }
  if (value !== undefined && value !== '' && (typeof value !== 'string' || !/^[\x21-\x7e\x80-\xff]([\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?$/.test(value))) {
    throw new ValidationError(source, 'must be printable Latin-1 text, with no CR, LF, control or non-Latin-1 character, nor white space at either end');
  }
}

/**
 * A key as read from a file, a pipe or the environment: surrounding spaces, tabs, CR and LF
 * trimmed (`$(cat keyfile)`, a CRLF `.env`), then checked with {@link checkApiKey} under `source`.
 * Returns undefined for nothing but white space.
 */
export function readApiKey(raw: string | undefined, source: string): string | undefined {
  const key = raw?.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  checkApiKey(key, source);
  return key ? key : undefined;
}

/** The runtime's fetch, looked up per call (tests and polyfills may replace it). It never edits what it is given. */
export const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

/** A page (or a Web Worker): the globals a page has; unless `strict`, also no `process` to read a key from. */
function inPage(strict = false): boolean {
  return (g.document !== undefined && g.window !== undefined) || (!strict && typeof (globalThis as { process?: unknown }).process === 'undefined');
}

/** Whether `url` is on one of RunPod's own hosts (`runpod.io`, `runpod.ai` and their subdomains). */
function isRunpodHost(url: string): boolean {
  return /(^|\.)runpod\.(io|ai)$/.test(new URL(url).hostname);
}

/**
 * Why a call that needs a credential may not be sent to `url`, or undefined when it may:
 * - a `gatewayToken` goes to its gateway's origin only, never to RunPod's hosts nor anywhere else;
 * - a client with no credential at all is told where one comes from (in a page: a `gatewayToken`),
 *   unless it was made keyless on purpose (`apiKey: null`) or the call goes to a GraphQL URL of the
 *   user's own (an anonymous gateway), which needs none.
 * The messages name no credential, only where it may go.
 */
export function credentialProblem(resolved: ResolvedOptions, hasCredential: boolean, url: string): { field: string; message: string } | undefined {
  if (resolved.gatewayOrigin !== undefined) {
    // Every URL the core sends to is absolute (built from checked options).
    const origin = new URL(url).origin;
    if (origin === resolved.gatewayOrigin) return undefined;
    return { field: 'gatewayToken', message: `goes only to its gateway (${resolved.gatewayOrigin}), never to ${origin}: call the gateway, or make this call on a server with an apiKey` };
  }
  if (hasCredential || resolved.keyless) return undefined;
  // A GraphQL URL of your own (an `--allow-anonymous` gateway, your app's backend) takes documents
  // without a credential: they go as they are. RunPod's own hosts and the other surfaces need one.
  if (new URL(url).origin === new URL(resolved.graphqlUrl).origin && !isRunpodHost(resolved.graphqlUrl)) return undefined;
  const where = inPage() ? 'in a page, pass' : 'pass `apiKey`, set RUNPOD_API_KEY, or';
  return { field: 'apiKey', message: `no API key: ${where} \`gatewayToken\` (a runpod-gql gateway's) or \`apiKey: null\` (none)` };
}

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
  let apiKey: string | undefined;
  if (options.apiKey === null) return undefined;
  if (options.apiKey != null) {
    // A key given in code is taken as it is: a stray space there is a bug to show, not to hide.
    checkApiKey(options.apiKey, 'apiKey');
    apiKey = options.apiKey;
  } else apiKey = readApiKey(readEnv('RUNPOD_API_KEY'), 'RUNPOD_API_KEY');
  // In a page (or Web Worker), anyone who opens it can read the key.
  if (apiKey && !options.dangerouslyAllowBrowser && inPage(true)) {
    throw new ValidationError('apiKey', 'a page exposes it: use `runpod-gql gateway` with its `graphqlUrl` and a `gatewayToken`, or dangerouslyAllowBrowser: true');
  }
  return apiKey;
}

/** Resolves defaults. The API key is returned apart so it can live only in a closure. */
export function resolveOptions(options: RunpodClientOptions = {}): { apiKey: string | undefined; resolved: ResolvedOptions } {
  validateClientOptions(options);
  const logLevel = resolveLogLevel(options.logLevel);
  const apiKey = credentialOf(options);
  const userFetch = options.fetch;
  const graphqlUrl = (absoluteGraphqlUrl(urlOption(options, 'graphqlUrl')) as string | undefined) ?? DEFAULT_GRAPHQL_URL;
  return {
    apiKey,
    resolved: {
      graphqlUrl,
      restUrl: trimSlash(urlOption(options, 'restUrl') ?? DEFAULT_REST_URL),
      serverlessUrl: trimSlash(urlOption(options, 'serverlessUrl') ?? DEFAULT_SERVERLESS_URL),
      fetch: userFetch ?? globalFetch,
      fetchOptions: options.fetchOptions ?? undefined,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      deadlineMs: options.deadlineMs ?? undefined,
      headers: { ...options.headers },
      teamId: options.teamId || undefined,
      userAgent: userAgent(options.appInfo ?? undefined),
      onRetry: options.onRetry,
      // A gateway token is never put in a URL.
      graphqlAuth: options.gatewayToken != null ? 'header' : (options.graphqlAuth ?? 'query'),
      persistedDocuments: options.persistedDocuments ?? 'auto',
      loadBalancedUrl: urlOption(options, 'loadBalancedUrl') ?? DEFAULT_LOAD_BALANCED_URL,
      rateLimits: options.rateLimits,
      onRateLimit: options.onRateLimit,
      pacingStore: options.pacingStore ?? undefined,
      logLevel,
      logger: options.logger ?? undefined,
      gatewayOrigin: options.gatewayToken != null ? new URL(graphqlUrl).origin : undefined,
      keyless: options.apiKey === null && options.gatewayToken == null,
    },
  };
}

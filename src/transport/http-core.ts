import { AbortError, ApiError, ApiRetiredError, ConnectionError, RunpodError, ServerError, TimeoutError, ValidationError, type RequestSummary } from '../errors.js';
import { deadlineOf, linkAbort, sleep, startDeadline, timerFired, type LinkedAbort } from './abort.js';
import type { AfterAnswer } from './after-answer.js';
import { loadAfterAnswer } from './after-answer-loader.js';
import { MAX_ERROR_BODY_CHARS, REDIRECT_STATUSES, requestIdOf } from './answer-facts.js';
import { credentialProblem, globalFetch, resolveOptions, validateCallOptions, type CallOptions, type ResolvedOptions, type RetryEvent, type RunpodClientOptions } from './options.js';
import { budgetOf } from './call-budget.js';
import { createPacer, pacingScope, type PaceRelease, type Pacer } from './pacing.js';
import type { RateLimitInfo } from './rate-limit-headers.js';
import { ANSWERS_READ, createScrubber, redactUrl, scopeOf, withScope, withSummaryScope } from './redact.js';
import { backoffMs, isRetryableStatus, MAX_RETRY_AFTER_MS } from './retry.js';
import { monotonicNow } from './clock.js';
import { createLog, type Log } from './logger.js';
import type { RequestGate } from './transport-choice.js';

export type { RequestGate };

/** Where the API key goes: GraphQL takes it as `?api_key=`, REST and serverless as a Bearer token. */
export type AuthPlacement = 'api-key-query' | 'bearer' | 'none';

export interface HttpRequest extends CallOptions {
  readonly method: string;
  /** Absolute URL, without credentials: the core adds them at the last moment. */
  readonly url: string;
  readonly auth: AuthPlacement;
  /** JSON text. */
  readonly body?: string | undefined;
  /** Shown in errors and retry events: `DeployPod`, `POST /pods`, `status`. */
  readonly operation: string;
  /**
   * Declared by the call site, never guessed from the method: may this call be sent again after
   * it may have reached the server? False for anything that creates (deploy, create, /run).
   */
  readonly idempotent: boolean;
  /** Extra answers worth retrying for this call, such as a load-balanced endpoint's cold start. */
  readonly retryWhen?: ((status: number, text: string) => boolean) | undefined;
  /**
   * A reading of the monotonic clock (`monotonicNow()`): when set, 429 answers and answers matched by `retryWhen` (refused before
   * any work) are retried with backoff up to this deadline instead of `maxRetries`; every other
   * retryable failure still counts against `maxRetries`. Used for cold starts and waits on a job.
   */
  readonly retryUntil?: number | undefined;
  /**
   * The rate-limit bucket this request draws from, e.g. `graphql`, `rest` or
   * `serverless:{endpointId}:status`. Pacing (token bucket plus concurrency cap) is taken per key
   * before the attempt's timer starts. Undefined: not paced.
   */
  readonly rateLimitKey?: string | undefined;
  /**
   * For a delete or terminate: a 404 on a retry, after an earlier attempt that may have acted but
   * whose answer was lost (time-out, cut connection, 5xx), means the earlier attempt did the work;
   * the call resolves as a 204.
   */
  readonly notFoundOnRetryMeansDone?: boolean | undefined;
  /**
   * The first attempt's pacing turn, already taken from this core's `pacer` by a caller that held
   * the call as a small queued record until then (serverless). The core frees it after the attempt.
   */
  readonly paceTurn?: PaceRelease | undefined;
  /** Set by a surface whose requests may have to stop going out (GraphQL's, once retired): see {@link RequestGate}. */
  readonly gate?: RequestGate | undefined;
}

/** A 2xx answer, read in full within the attempt's time limit. */
export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export interface HttpCore {
  readonly options: ResolvedOptions;
  /** This client's pacing, per `rateLimitKey`. */
  readonly pacer: Pacer;
  /**
   * Throws the ValidationError a request with these options would meet before anything is sent,
   * so a caller can check before queueing it; `describe` is called only to name the request in it.
   */
  checkBeforeSending(options: CallOptions, auth: AuthPlacement, describe: () => HttpRequest): void;
  /** Sends with timeouts, retries and redirect handling; resolves with a 2xx answer or throws a RunpodError. */
  request(req: HttpRequest): Promise<HttpResult>;
  /** `request`, then the body parsed as JSON (`undefined` for an empty body). */
  requestJson<T>(req: HttpRequest): Promise<T>;
  /** `request` without reading the body: the time limit covers the wait for headers only. */
  requestRaw(req: HttpRequest): Promise<Response>;
  /** The key with which secrets are scrubbed from text; never exposed outside the package. */
  scrub(text: string): string;
  /** The error for a 2xx answer that is not the JSON it should be (an HTML proxy page, a cut-off body). */
  notJson(req: HttpRequest, result: HttpResult): ServerError;
  /**
   * The error for an answer that parsed but has the wrong shape (`expected` says what was wanted,
   * e.g. `an object with id`). Surfaces throw it instead of reading fields that are not there.
   */
  wrongShape(req: HttpRequest, expected: string, body: unknown, status?: number): ServerError;
  /** The AbortError of a call whose caller's signal fired before or while it was sent. */
  abortedByCaller(req: HttpRequest): AbortError;
  /** This client's log (`logLevel`, `logger`): every line is scrubbed of the key. */
  readonly log: Log;
}

/** A `RateLimit` member with nothing left (`r=0`): the one window the pacer acts on (see rate-limit-headers.ts). */
const SPENT_WINDOW = /;\s*r\s*=\s*0+\s*(?:[;,]|$)/;
const afterLostAnswer = new WeakSet<object>();
/** Read past the cut of a long error answer, so a secret that straddles it is still seen whole. */
const SCRUB_MARGIN = 64 * 1024;
const unsent = new WeakSet<object>();

/**
 * A failure after which a request may have been acted on, its answer lost: a 5xx (or an answer of
 * the wrong shape), a time-out, a connection cut after the request may have left, a 301, 302 or
 * 303 to another origin not followed (the server may have acted before it pointed elsewhere).
 */
export function mayHaveActed(err: unknown): boolean {
  return (
    err instanceof ServerError ||
    err instanceof TimeoutError ||
    (err instanceof ConnectionError && !err.notSent) ||
    (err instanceof ApiError && (err.status === 301 || err.status === 302 || err.status === 303))
  );
}

/**
 * True for an error the core threw before any attempt of its request was handed to `fetch` (a
 * pacing wait aborted, a deadline passed in the queue): nothing of that request reached a server.
 */
export function neverSent(err: unknown): boolean {
  return typeof err === 'object' && err !== null && unsent.has(err);
}
/**
 * The headers of the last answer a request received, kept on the request under a symbol: a
 * wrong-shaped body's error names its request id. A property costs a fraction of a WeakMap's entry,
 * which every call would pay (and the collector after it). Every request is an object its surface
 * built for the call, never frozen.
 */
const ANSWER_HEADERS: unique symbol = Symbol('answer headers');
type AnswerCarrier = { [ANSWER_HEADERS]?: Headers };


/** A wait of `ms` from now would end past the deadline `signal` carries. */
function pastDeadline(signal: AbortSignal | undefined, ms: number): boolean {
  const deadline = deadlineOf(signal);
  return deadline !== undefined && monotonicNow() + ms >= deadline.at;
}

/** What `run` makes of a 2xx answer: its text (with status and headers), its body parsed as JSON, or the Response itself. */
const TEXT = 0;
const JSON_BODY = 1;
const RAW = 2;
type ReadMode = typeof TEXT | typeof JSON_BODY | typeof RAW;


/**
 * True for an HTTP error answered to a resend, after an earlier attempt that may have acted but
 * whose answer was lost: a 409 then may only say that the earlier attempt did the work.
 */
export function followedLostAnswer(err: unknown): boolean {
  return typeof err === 'object' && err !== null && afterLostAnswer.has(err);
}

/**
 * Calls a hook the user passed. A hook observes; it cannot change what a call means, so what it
 * throws is dropped (a runtime's `reportError` could end a Deno process, so it is not used).
 */
export function callHook<T>(hook: ((event: T) => void) | undefined, event: T): void {
  if (!hook) return;
  try {
    hook(event);
  } catch {
    // Deliberately ignored: see above.
  }
}

export function createHttpCore(resolved: ResolvedOptions, apiKey: string | undefined, keyNotIndexed?: unknown): HttpCore {
  // A shared store knows the account by a digest of the key, never the key.
  const pacer = createPacer(resolved.rateLimits, resolved.pacingStore && resolved.rateLimits !== false ? { store: resolved.pacingStore, scope: pacingScope(apiKey) } : undefined);
  // The client's key and every secret the process registered, in one pass. The key is filed in the
  // process-wide index for as long as this scrubber lives (so every error scrubs it), unless it is a
  // key the process must not index (a caller's pass-through key), which stays the scrubber's own.
  const scrub = createScrubber(apiKey, { registered: true, register: !keyNotIndexed });
  // A call that sends secrets of its caller's (a registry password) carries them in its own scope:
  // what its answers echo is scrubbed of them, and no other call's.
  const scrubOf = (req: HttpRequest) => withScope(scrub, scopeOf(req));
  const log = createLog(resolved.logLevel, resolved.logger, scrub);
  // Fixed for the client's life: the hot path pays one boolean when debug is off.
  const debug = log.enabled('debug');

  // A `user-agent` (any case) of the caller's, client-wide or for one call, replaces ours.
  const hasUserAgent = (headers: Record<string, string> | undefined) => !!headers && Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent');
  const ourUserAgent = hasUserAgent(resolved.headers) ? undefined : resolved.userAgent;

  function buildHeaders(bearer: boolean, hasBody: boolean, own?: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', ...resolved.headers, ...own };
    if (ourUserAgent && !hasUserAgent(own)) headers['user-agent'] = ourUserAgent;
    if (hasBody) headers['content-type'] ??= 'application/json';
    if (bearer && apiKey) headers.authorization = `Bearer ${apiKey}`;
    return headers;
  }
  // Built once per client, indexed by (bearer ? 2 : 0) + (body ? 1 : 0), and shared only with the
  // runtime's own fetch: a caller's `fetch` may edit what it is given (a tracing header, say), so
  // it gets a fresh object every time, as does a call with headers of its own. Frozen, so a
  // replaced global fetch that edited them would fail loudly rather than change later requests.
  const commonHeaders = resolved.fetch === globalFetch ? [0, 1, 2, 3].map((i) => Object.freeze(buildHeaders(i > 1, i % 2 === 1))) : undefined;

  function headersFor(req: HttpRequest, withCredentials: boolean, hasBody: boolean): Record<string, string> {
    const bearer = withCredentials && req.auth === 'bearer';
    if (commonHeaders && !req.headers) return commonHeaders[(bearer ? 2 : 0) + (hasBody ? 1 : 0)]!;
    return buildHeaders(bearer, hasBody, req.headers);
  }

  // Encoded once per client, not per request.
  const keyParam = apiKey ? `api_key=${encodeURIComponent(apiKey)}` : '';

  /** The URL to fetch: the API key is appended here, and only here. */
  function withCredentials(url: string, req: HttpRequest): string {
    if (req.auth !== 'api-key-query' || !keyParam) return url;
    return `${url}${url.includes('?') ? '&' : '?'}${keyParam}`;
  }

  /** One hop; the key goes only to the request's own origin. A plain function: no async layer. */
  // `body` null: this hop has none (a redirect turned it into a GET); undefined: the request's own.
  function send(req: HttpRequest, signal: AbortSignal, url = req.url, method = req.method, body: string | null | undefined = req.body, sameOrigin = true): Promise<Response> {
    const init: RequestInit = {
      method,
      headers: headersFor(req, sameOrigin, body != null),
      body: body ?? undefined,
      signal,
      redirect: 'manual',
    };
    // The caller's fetch options go under the client's own fields, which always win.
    const extra = req.fetchOptions ? { ...resolved.fetchOptions, ...req.fetchOptions } : resolved.fetchOptions;
    return resolved.fetch(sameOrigin ? withCredentials(url, req) : url, extra ? { ...extra, ...init } : init);
  }

  function summarise(req: HttpRequest): RequestSummary {
    // Marked with the call's scope: every error built with this summary is scrubbed of its secrets.
    return withSummaryScope({ method: req.method, url: redactUrl(req.url), operation: req.operation }, scopeOf(req));
  }

  // What runs only once an answer (or a failure) has arrived: loaded by the first that needs it,
  // after an await that call makes anyway; later calls find it here and do not await.
  let afterAnswer: AfterAnswer | undefined;
  const loadAfter = async (): Promise<AfterAnswer> => (afterAnswer = await loadAfterAnswer({ options: resolved, pacer, log, scrub, summarise, send }));

  function abortedByCaller(req: HttpRequest): AbortError {
    return new AbortError(`${req.operation} aborted by the caller`, { request: summarise(req), cause: req.signal?.reason });
  }

  function checkBeforeSending(options: CallOptions, auth: AuthPlacement, describe: () => HttpRequest): void {
    validateCallOptions(options, () => summarise(describe()));
    // Which credential may go where is decided in options.ts; a call it refuses sends nothing.
    if (auth !== 'none' && (!apiKey || resolved.gatewayOrigin !== undefined)) {
      const problem = credentialProblem(resolved, !!apiKey, describe().url);
      if (problem) throw new ValidationError(problem.field, problem.message, { request: summarise(describe()) });
    }
  }

  /**
   * One call: its attempts, retries and their backoff, in one async frame. What is made of a 2xx
   * answer is decided by `mode` inside it (the text, the parsed JSON, or the Response itself), so
   * `requestJson` adds no frame or promise of its own.
   */
  async function run(req: HttpRequest, mode: ReadMode): Promise<unknown> {
    checkBeforeSending(req, req.auth, () => req);
    // The whole call's deadline: the caller's (a create's, across its steps) or one of its own.
    const own = startDeadline(req.signal, req.deadlineMs ?? resolved.deadlineMs);
    const signal = own?.signal ?? req.signal;
    const gate = req.gate;
    const maxRetries = Math.max(0, req.maxRetries ?? resolved.maxRetries);
    const timeoutMs = req.timeoutMs ?? resolved.timeoutMs;
    // Retries counted against maxRetries; those allowed by `retryUntil` are not counted.
    let counted = 0;
    let earlierMayHaveActed = false;
    let fetched = false;
    // A raw answer's body took the call's deadline over (see followCallerSignal).
    let handed = false;
    try {
      for (let attempt = 0; ; attempt++) {
        if (signal?.aborted) throw stopped(req, signal);
        let release: PaceRelease;
        const queuedAt = debug ? monotonicNow() : 0;
        // A budget's slot (a gateway document's share of the upstream), taken before the pacer's turn.
        let slot: PaceRelease | undefined;
        try {
          const budget = budgetOf(req.fetchOptions);
          if (budget) slot = await budget.acquire(req.rateLimitKey, signal, gate?.signal);
          // Taken before the attempt's timer starts: waiting for a turn is not part of the attempt.
          // The wait for a turn also ends when the gate's reason arises.
          // A turn granted at once is taken without a promise (one less await on every call).
          release = attempt === 0 && req.paceTurn ? req.paceTurn : (pacer.tryTake(req.rateLimitKey) ?? (await pacer.acquire(req.rateLimitKey, signal, gate?.signal)));
        } catch (err) {
          slot?.();
          throw gate?.check() ?? (err instanceof AbortError ? stopped(req, signal) : err);
        }
        const refused = gate?.check();
        if (refused) {
          release();
          slot?.();
          throw refused;
        }
        const sentAt = debug ? monotonicNow() : 0;
        if (debug && req.rateLimitKey !== undefined && sentAt - queuedAt >= 1) {
          log.debug(`${req.operation} waited ${Math.round(sentAt - queuedAt)} ms for its turn in pacing bucket ${req.rateLimitKey}`, {
            operation: req.operation,
            bucket: req.rateLimitKey,
            durationMs: Math.round(sentAt - queuedAt),
          });
        }
        const link = linkAbort(signal, timeoutMs);
        let keepLink = false;
        let delayMs: number;
        let reason: RetryEvent['reason'];
        let answered = false;
        let answerStatus = 0;
        let headers: Headers | undefined;
        let quota: RateLimitInfo | undefined;
        try {
          fetched = true;
          let res = await send(req, link.signal);
          // Read once: each of a Response's getters checks its brand.
          let status = res.status;
          if (res.type === 'opaqueredirect' || REDIRECT_STATUSES.has(status)) {
            res = await (afterAnswer ?? (await loadAfter())).followRedirects(req, res, link.signal);
            status = res.status;
          }
          answerStatus = status;
          headers = res.headers;
          // A 410 closes the gate before its body is read: a turn freed meanwhile sends nothing.
          // Built here, not by the lazily loaded error mapping: the gate must close in this tick, even
          // on the first 410 a process sees (the error read from the whole answer replaces this one).
          if (status === 410 && gate) gate.retired(new ApiRetiredError(`${req.operation}: HTTP 410 Gone`, { status: 410, request: summarise(req), requestId: requestIdOf(headers) }), true);
          if (debug) {
            const tookMs = monotonicNow() - sentAt;
            (afterAnswer ?? (await loadAfter())).logAttempt(req, attempt, tookMs, status);
          }
          (req as AnswerCarrier)[ANSWER_HEADERS] = headers;
          if (req.onResponse) callHook(req.onResponse, (afterAnswer ?? (await loadAfter())).responseInfo(req, res));
          // Parsed only where something reads it: onRateLimit, or the pacer once a window is spent.
          if (resolved.onRateLimit ? headers.has('ratelimit') || headers.has('ratelimit-policy') : req.rateLimitKey !== undefined && SPENT_WINDOW.test(headers.get('ratelimit') ?? '')) {
            quota = (afterAnswer ?? (await loadAfter())).rateLimitFeedback(req, headers);
          }
          // The earlier attempt did the work: read as the 204 it would have had.
          if (status === 404 && req.notFoundOnRetryMeansDone && earlierMayHaveActed) {
            await res.body?.cancel().catch(() => undefined);
            res = new Response(null, { status: (status = 204), headers });
          }
          if (res.ok) {
            if (mode === RAW) {
              if (!req.signal) return res;
              keepLink = handed = true;
              own?.stopTimer();
              return (afterAnswer ?? (await loadAfter())).followCallerSignal(res, link, own);
            }
            // Read within the attempt's time limit; parsed as the caller asked.
            const text = await res.text();
            return mode === TEXT ? { status, headers, text } : parseJson(req, status, headers, text);
          }
          // Bounded before anything reads it: a 20 MB error page is kept as its first part. Scrubbed
          // before that cut and before any later clip (a message, a body's strings): a secret cut in
          // two there would leave a piece no scrubber recognises.
          const full = await res.text();
          answered = true;
          const scrubbed = scrubOf(req);
          const text = full.length > MAX_ERROR_BODY_CHARS ? scrubbed(full.slice(0, MAX_ERROR_BODY_CHARS + SCRUB_MARGIN)).slice(0, MAX_ERROR_BODY_CHARS) : scrubbed(full);
          const after = afterAnswer ?? (await loadAfter());
          const retryAfterMs = after.parseRetryAfterMs(headers);
          if (status === 429) pacer.pause(req.rateLimitKey, Math.min(retryAfterMs ?? backoffMs(attempt, () => 0), MAX_RETRY_AFTER_MS));
          const extra = req.retryWhen?.(status, text) ?? false;
          const retryable = (req.idempotent ? isRetryableStatus(status) : status === 429) || extra;
          // 429 (refused before any work) and the call's own extra answers may be retried up to
          // `retryUntil`; they follow the backoff even when Retry-After says 0.
          const extended = req.retryUntil !== undefined && (status === 429 || extra);
          delayMs = extended ? Math.max(retryAfterMs ?? 0, backoffMs(attempt)) : (retryAfterMs ?? backoffMs(attempt));
          const canRetry = (extended ? monotonicNow() + delayMs < req.retryUntil! : counted < maxRetries) && !pastDeadline(signal, delayMs);
          // A wait the server asks for past the cap (or the deadline) ends the call now, with its hint.
          if (!retryable || !canRetry || (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS)) {
            const error = after.errorFromResponse(status, text, headers, { request: summarise(req), retryAfterMs });
            if (earlierMayHaveActed) afterLostAnswer.add(error);
            if (error instanceof ApiRetiredError) gate?.retired(error);
            throw error;
          }
          if (!extended) counted++;
          reason = status;
          if (status >= 500) earlierMayHaveActed = true;
        } catch (err) {
          if (err instanceof RunpodError) throw err;
          // The server answered with an error status and something failed while reading what it
          // meant: that is still an HTTP error of that status, never a lost answer to resend.
          if (answered) throw (afterAnswer ?? (await loadAfter())).unreadableAnswer(req, answerStatus, err, headers);
          if (debug && !answerStatus) {
            const tookMs = monotonicNow() - sentAt;
            const after = afterAnswer ?? (await loadAfter());
            after.logAttempt(req, attempt, tookMs, after.failureOutcome(err, !!signal?.aborted, link.timedOut()));
          }
          if (signal?.aborted) throw stopped(req, signal);
          delayMs = backoffMs(attempt);
          const canRetry = counted < maxRetries && !pastDeadline(signal, delayMs);
          if (link.timedOut()) {
            if (!req.idempotent || !canRetry) {
              throw new TimeoutError(`${req.operation} timed out after ${timeoutMs} ms`, { timeoutMs, request: summarise(req) });
            }
            reason = 'timeout';
            earlierMayHaveActed = true;
          } else {
            const after = afterAnswer ?? (await loadAfter());
            const notSent = after.wasNotSent(err);
            if (!(req.idempotent || notSent) || !canRetry || after.refusingPage(req, err)) throw after.connectionError(req, err, notSent);
            reason = 'connection';
            if (!notSent) earlierMayHaveActed = true;
          }
          counted++;
        } finally {
          release();
          slot?.();
          if (keepLink) link.stopTimer();
          else link.dispose();
          // Hooks run after the attempt, whatever its outcome: what they throw is theirs, and never
          // turns an answer into a network failure or a resend.
          if (quota) callHook(resolved.onRateLimit, quota);
        }
        if (log.enabled('info')) (afterAnswer ?? (await loadAfter())).logRetry(req, attempt, maxRetries, delayMs, reason);
        callHook(resolved.onRetry, { operation: req.operation, retry: attempt + 1, delayMs, reason });
        await sleep(delayMs, signal).catch(() => {
          throw stopped(req, signal);
        });
      }
    } catch (err) {
      // Thrown before any byte could have left: a create that never went out made nothing.
      if (!fetched && err instanceof RunpodError) unsent.add(err);
      throw err;
    } finally {
      if (!handed) own?.dispose();
    }
  }

  /** Why the call's signal fired: its deadline passed (a TimeoutError), or the caller aborted. */
  function stopped(req: HttpRequest, signal: AbortSignal | undefined): RunpodError {
    const deadline = deadlineOf(signal);
    return deadline && timerFired(signal)
      ? new TimeoutError(`${req.operation}: the call's ${deadline.ms} ms deadline passed`, { timeoutMs: deadline.ms, request: summarise(req) })
      : abortedByCaller(req);
  }

  /** The body of a 2xx answer as JSON (`undefined` for an empty one), or the error for one that is not JSON. */
  function parseJson(req: HttpRequest, status: number, headers: Headers, text: string): unknown {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // An empty body (or nothing but white space) is no answer (undefined) rather than a wrong one.
      if (text.trim()) throw notJson(req, { status, headers, text });
      return undefined;
    }
    // A gateway document keeps what it read, to scrub its answer's upstream details of the env values in it.
    (req as { [ANSWERS_READ]?: (value: unknown) => void })[ANSWERS_READ]?.(value);
    return value;
  }

  function notJson(req: HttpRequest, { status, headers, text }: HttpResult): ServerError {
    const body = scrubOf(req)(text).slice(0, 300);
    return new ServerError(`${req.operation}: expected JSON, got ${headers.get('content-type') ?? 'no content-type'}: ${body.slice(0, 120)}`, {
      status,
      body,
      request: summarise(req),
      requestId: requestIdOf(headers),
    });
  }

  function wrongShape(req: HttpRequest, expected: string, body: unknown, status = 200): ServerError {
    let text: string;
    try {
      text = typeof body === 'string' ? body : (JSON.stringify(body) ?? String(body));
    } catch {
      text = Object.prototype.toString.call(body);
    }
    const snippet = scrubOf(req)(text).slice(0, 300);
    return new ServerError(`${req.operation}: unexpected answer: expected ${expected}, got ${snippet.slice(0, 120)}`, {
      status,
      body: snippet,
      request: summarise(req),
      requestId: requestIdOf((req as AnswerCarrier)[ANSWER_HEADERS]),
    });
  }

  const core: HttpCore = {
    options: resolved,
    pacer,
    checkBeforeSending,
    scrub,
    request: (req) => run(req, TEXT) as Promise<HttpResult>,
    requestRaw: (req) => run(req, RAW) as Promise<Response>,
    notJson,
    wrongShape,
    abortedByCaller,
    log,
    requestJson: <T>(req: HttpRequest) => run(req, JSON_BODY) as Promise<T>,
  };
  return core;
}

/**
 * Internal client option (a symbol, in no public type): the key stays out of the process-wide
 * redaction index. The gateway's pass-through clients hold strangers' keys, and that index scrubs
 * every error and answer of the process: a "key" such as `errors` would rewrite everyone's. Their
 * core still scrubs its own key from what it builds, and the gateway scrubs each answer for its caller.
 */
export const KEY_NOT_INDEXED: unique symbol = Symbol();

/** The core for a client's options; the key stays inside the core's closure. */
export function createHttpCoreFromOptions(options: RunpodClientOptions): HttpCore {
  const { apiKey, resolved } = resolveOptions(options);
  return createHttpCore(resolved, apiKey, (options as { [KEY_NOT_INDEXED]?: true })[KEY_NOT_INDEXED]);
}

// What the HTTP core runs only once an answer (or a failure) has arrived: following redirects,
// mapping an error answer to its class, the Retry-After and RateLimit headers, `onResponse`, the
// debug and retry log lines, classifying a failed connection. Loaded with the first answer that
// needs it (after-answer-loader.ts), so an app that code-splits keeps it out of its start-up bundle.
import { AbortError, ApiError, ConnectionError, ServerError, type RequestSummary } from '../errors.js';
import type { LinkedAbort } from './abort.js';
import { REDIRECT_STATUSES, requestIdOf } from './answer-facts.js';
import type { HttpRequest } from './http-core.js';
import type { Log } from './logger.js';
import type { ResolvedOptions, ResponseInfo, RetryEvent } from './options.js';
import { PREFLIGHT_HEADERS } from './preflight-headers.js';
import type { Pacer } from './pacing.js';
import { errorFromResponse, headersToRecord } from './error-mapping.js';
import { parseRateLimitHeaders, type RateLimitInfo } from './rate-limit-headers.js';
import { redactText, redactUrl, redactValue } from './redact.js';
import { MAX_RETRY_AFTER_MS } from './retry.js';
import { parseRetryAfterMs } from './retry-after.js';

/** One client's core, as the after-answer code sees it. */
export interface AnswerContext {
  readonly options: ResolvedOptions;
  readonly pacer: Pacer;
  readonly log: Log;
  /** Scrubs the client's key from text. */
  readonly scrub: (text: string) => string;
  readonly summarise: (req: HttpRequest) => RequestSummary;
  /** Sends one hop (the core's `send`): `body` null for a hop without one. */
  readonly send: (req: HttpRequest, signal: AbortSignal, url: string, method: string, body: string | null | undefined, sameOrigin: boolean) => Promise<Response>;
}

const MAX_REDIRECTS = 5;
/** Failure codes that prove no byte of the request reached the server. */
// UND_ERR_PRX_CONN: a proxy dropped the tunnel before answering its CONNECT (the CLI's proxy agent, undici 8).
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_PRX_CONN']);

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function innermostMessage(err: unknown): string {
  let message = String((err as { message?: unknown })?.message ?? err);
  for (let e: unknown = (err as { cause?: unknown })?.cause, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const inner = (e as { message?: unknown }).message;
    if (typeof inner === 'string' && inner) message = `${message}: ${inner}`;
    e = (e as { cause?: unknown }).cause;
  }
  return message;
}

/**
 * In a page (or a page's worker), the page's origin when a fetch to another origin failed as a bare
 * TypeError ("Failed to fetch"): all a browser says when it refused the call's CORS preflight.
 * Retrying cannot help. Undefined anywhere else.
 */
function refusingPage(req: HttpRequest, err: unknown): string | undefined {
  const g = globalThis as { location?: { origin?: unknown }; document?: unknown; WorkerGlobalScope?: unknown };
  const page = g.document ?? g.WorkerGlobalScope ? g.location?.origin : undefined;
  // req.url is absolute (checked when the client was made), so it parses.
  return typeof page === 'string' && page.startsWith('http') && err instanceof TypeError && new URL(req.url).origin !== page ? page : undefined;
}

/** The after-answer steps of one client's core. */
export function createAfterAnswer(c: AnswerContext) {
  const { options, pacer, log, scrub, summarise, send } = c;
  return {
    /** The typed error for an HTTP error answer (error-mapping.ts); `text` already scrubbed. */
    errorFromResponse,
    parseRetryAfterMs,
    /** True when a failed fetch proves that no byte of the request reached the server. */
    wasNotSent(err: unknown): boolean {
      return NOT_SENT_CODES.has(errorCode(err) ?? '');
    },

    refusingPage,

    /** The ConnectionError that ends a call whose fetch failed. */
    connectionError(req: HttpRequest, err: unknown, notSent: boolean): ConnectionError {
      const code = errorCode(err);
      const message = scrub(innermostMessage(err));
      // A browser does not say whether CORS or the network failed: the likelier cause, and its fix.
      const page = refusingPage(req, err);
      // The headers this call adds beyond those every gateway allows, each named with its flag.
      const added = page ? [...new Set(Object.keys({ ...options.headers, ...req.headers }).map((name) => name.toLowerCase()))].filter((name) => !PREFLIGHT_HEADERS.includes(name)) : [];
      const flags = [`--cors-origin ${page}`, ...added.map((name) => `--cors-header ${name}`)].join(' ');
      const hint = page ? `: refused by the browser, most often by CORS: allow ${page}${added.length ? ` and the headers this client adds (${added.join(', ')})` : ''} (runpod-gql gateway ${flags}); not retried` : '';
      return new ConnectionError(`${req.operation}: ${message}${hint}`, {
        notSent,
        request: summarise(req),
        cause: Object.assign(new Error(message), code ? { code } : {}),
      });
    },

    /** What a failed attempt's debug line says happened. */
    failureOutcome(err: unknown, aborted: boolean, timedOut: boolean): string {
      return aborted ? 'aborted' : timedOut ? 'timeout' : `connection failure (${innermostMessage(err)})`;
    },

    /** After a redirect answer to the first hop: follows it, stripping the key off other origins. */
    async followRedirects(req: HttpRequest, first: Response, signal: AbortSignal): Promise<Response> {
      // Strings on the common path; URLs are parsed only when the server redirects.
      let url = req.url;
      let sameOrigin = true;
      let method = req.method;
      let body: string | null | undefined = req.body;
      let res = first;
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        if (hop > 0) res = await send(req, signal, url, method, body, sameOrigin);
        if (res.type === 'opaqueredirect') {
          throw new ConnectionError(`${req.operation}: the server redirected, and this runtime hides where to; not followed`, {
            notSent: false,
            request: summarise(req),
          });
        }
        const location = REDIRECT_STATUSES.has(res.status) ? res.headers.get('location') : null;
        if (!location) return res;
        await res.body?.cancel().catch(() => undefined);
        const next = new URL(location, url);
        next.searchParams.delete('api_key');
        sameOrigin = next.origin === new URL(req.url).origin;
        // A body (a create's `env`, a document's variables) is meant for the origin it was sent to:
        // it never follows a redirect elsewhere, whatever the status, and nothing goes there.
        // (After a 307 or 308 the server did not act; after a 301, 302 or 303 it may have: see mayHaveActed.)
        if (!sameOrigin && req.body != null) {
          throw new ApiError(`${req.operation}: HTTP ${res.status} to ${next.origin}, another origin: a request with a body is never sent there`, { status: res.status, request: summarise(req) });
        }
        // A login wall or SSO page often embeds the original URL (`?redirect_url=…api_key%3D…`):
        // another origin gets the URL with every spelling of the key, in any query value, replaced.
        url = sameOrigin ? next.toString() : redactText(scrub(next.toString()));
        // As the Fetch standard says: 303 turns anything but GET and HEAD into a GET, 301 and 302
        // turn a POST into a GET, both without a body; 307 and 308 keep method and body.
        if ((res.status === 303 && method !== 'GET' && method !== 'HEAD') || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = 'GET';
          body = null;
        }
      }
      throw new ConnectionError(`${req.operation}: more than ${MAX_REDIRECTS} redirects`, { notSent: false, request: summarise(req) });
    },

    /** One debug line per attempt: what was sent, where (redacted), what came back and how fast. */
    logAttempt(req: HttpRequest, attempt: number, tookMs: number, outcome: number | string): void {
      const durationMs = Math.round(tookMs);
      const url = redactUrl(req.url);
      const result = typeof outcome === 'number' ? `HTTP ${outcome}` : outcome;
      log.debug(`${req.method} ${url} (${req.operation}, attempt ${attempt + 1}) → ${result} in ${durationMs} ms`, {
        operation: req.operation,
        method: req.method,
        url,
        attempt: attempt + 1,
        durationMs,
        ...(typeof outcome === 'number' ? { status: outcome } : { reason: outcome }),
      });
    },

    /** The info line before a retry. */
    logRetry(req: HttpRequest, attempt: number, maxRetries: number, delayMs: number, reason: RetryEvent['reason']): void {
      // Retries up to a deadline (`retryUntil`) are not counted against maxRetries.
      const limit = req.retryUntil !== undefined ? '' : ` of ${maxRetries}`;
      log.info(`retrying ${req.operation} in ${Math.round(delayMs)} ms after ${typeof reason === 'number' ? `HTTP ${reason}` : reason} (retry ${attempt + 1}${limit})`, {
        operation: req.operation,
        method: req.method,
        url: redactUrl(req.url),
        attempt: attempt + 2,
        reason,
        delayMs: Math.round(delayMs),
      });
    },

    /**
     * REST v2 announces its quota: the caller hears of it through `onRateLimit`, and an exhausted
     * window pauses the bucket until it resets. Called only for an answer with a RateLimit header.
     */
    rateLimitFeedback(req: HttpRequest, headers: Headers): RateLimitInfo | undefined {
      const windows = parseRateLimitHeaders(headers);
      if (req.rateLimitKey !== undefined) {
        for (const window of windows) {
          // Capped: a longer pause would hold calls silently; past it the server's 429 says why.
          if (window.remaining === 0 && window.resetSeconds !== undefined) pacer.pause(req.rateLimitKey, Math.min(window.resetSeconds * 1000, MAX_RETRY_AFTER_MS));
        }
      }
      return windows.length && options.onRateLimit ? { operation: req.operation, windows } : undefined;
    },

    /** What `onResponse` is told of one answer; the headers are scrubbed of the key like an error's. */
    responseInfo(req: HttpRequest, res: Response): ResponseInfo {
      // Everything is read from scrubbed copies: a server may echo the key in any header. What a
      // hook does not read is never built (most read the id alone; a gateway reads every answer's).
      const get = (name: string) => {
        const value = res.headers.get(name);
        return value && redactText(scrub(value));
      };
      let headers: Record<string, string> | undefined;
      const all = () => (headers ??= redactValue(Object.fromEntries(Object.entries(headersToRecord(res.headers)).map(([name, value]) => [name, scrub(value)]))));
      return {
        operation: req.operation,
        status: res.status,
        // Scrubbed before requestIdOf clips it, so no key is cut in half and left partly readable.
        requestId: requestIdOf({ get } as Pick<Headers, 'get'> as Headers),
        get workerId() {
          return get('x-runpod-worker-id') || undefined;
        },
        get rateLimit() {
          return parseRateLimitHeaders(new Headers(all()));
        },
        get headers() {
          return all();
        },
      };
    },

    /** The error for an error answer whose body failed while it was read: still an HTTP error of that status. */
    unreadableAnswer(req: HttpRequest, status: number, err: unknown, headers: Headers | undefined): ApiError {
      const message = `${req.operation} failed with HTTP ${status}: the error answer could not be read`;
      const options = { status, request: summarise(req), cause: err, requestId: requestIdOf(headers) };
      return status >= 500 ? new ServerError(message, options) : new ApiError(message, options);
    },

    /**
     * A raw answer's body is read after the attempt: the attempt's timer stops, but the caller's
     * signal keeps aborting the body until it has been read, cancelled or has failed.
     */
    followCallerSignal(res: Response, link: LinkedAbort, own: LinkedAbort | undefined): Response {
      if (!res.body) {
        link.dispose();
        own?.dispose();
        return res;
      }
      const reader = res.body.getReader();
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        link.dispose();
        own?.dispose();
      };
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) {
              finish();
              controller.close();
            } else controller.enqueue(value);
          } catch (err) {
            finish();
            controller.error(link.signal.aborted ? new AbortError('response body aborted by the caller', { cause: link.signal.reason }) : err);
          }
        },
        cancel(reason) {
          finish();
          return reader.cancel(reason);
        },
      });
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
  };
}

export type AfterAnswer = ReturnType<typeof createAfterAnswer>;

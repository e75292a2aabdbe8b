// What the `openai` SDK needs to call a queue endpoint's OpenAI-compatible routes through this
// client: its HTTP core (key, pacing, retries, error types), with the key kept out of sight.
import { ValidationError } from '../errors.js';
import type { HttpCore, HttpRequest } from '../transport/http-core.js';
import { checkDuration, type FetchLike } from '../transport/options.js';
import { redactUrl } from '../transport/redact.js';
import { isRecord } from '../transport/shape.js';

/** The `apiKey` handed to the SDK: not a key. The helper's `fetch` sends the real one itself. */
export const OPENAI_API_KEY_PLACEHOLDER = 'runpod-gql-key-added-by-fetch';

export interface OpenAIHelperOptions {
  /**
   * Limit for one attempt: a whole answer, or a stream's first bytes. @default the client's `timeoutMs`
   */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt, for what is safe to resend (a 429, or `GET /models`). @default the client's `maxRetries` */
  maxRetries?: number | undefined;
  /** Extra headers for every request. */
  headers?: Record<string, string> | undefined;
}

/**
 * Options for `new OpenAI(…)`. `fetch` adds the `Authorization` header itself, so `apiKey` is a
 * placeholder; `maxRetries: 0` leaves retries and pacing to this client, so they happen once.
 */
export interface OpenAICompatible {
  /** `{serverlessUrl}/{endpointId}/openai/v1`. */
  readonly baseURL: string;
  readonly apiKey: string;
  readonly maxRetries: 0;
  readonly fetch: FetchLike;
}

/** Headers the SDK sets that this client sets itself (the key among them) or that fetch owns. */
const DROPPED_HEADERS = /^(authorization|host|content-length|connection|transfer-encoding)$/;

/** The body parsed as JSON, or undefined. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function createOpenAIHelper(core: HttpCore, endpointId: string, options: OpenAIHelperOptions = {}): OpenAICompatible {
  const baseURL = `${core.options.serverlessUrl}/${encodeURIComponent(endpointId)}/openai/v1`;
  const describe = (): HttpRequest => ({ method: 'POST', url: baseURL, auth: 'bearer', operation: `openai (endpoint ${endpointId})`, idempotent: false });
  checkDuration('timeoutMs', options.timeoutMs);
  core.checkBeforeSending(options, 'bearer', describe);
  const base = new URL(baseURL);

  async function fetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    const request = typeof input === 'object' && 'url' in input && !(input instanceof URL) ? input : undefined;
    let target: URL | undefined;
    try {
      target = new URL(request ? request.url : String(input));
    } catch {
      target = undefined;
    }
    // The key goes to this endpoint's OpenAI routes and nowhere else (the URL is normalised first,
    // so no `..` walks out of them).
    if (target?.origin !== base.origin || !target.pathname.startsWith(`${base.pathname}/`)) {
      throw new ValidationError('url', `must be under ${redactUrl(baseURL)}/`);
    }
    const method = (init.method ?? request?.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    new Headers(init.headers ?? request?.headers).forEach((value, name) => {
      if (!DROPPED_HEADERS.test(name)) headers[name] = value;
    });
    let body = init.body ?? (request?.body ? await request.text() : undefined);
    if (body instanceof Uint8Array || body instanceof ArrayBuffer) body = new TextDecoder().decode(body);
    if (body !== undefined && body !== null && typeof body !== 'string') throw new ValidationError('body', 'must be JSON text');
    const req: HttpRequest = {
      method,
      url: target.href,
      auth: 'bearer',
      body: body ?? undefined,
      operation: `${method} /openai/v1${target.pathname.slice(base.pathname.length)} (endpoint ${endpointId})`,
      // A completion runs a job (billed): never resent once it may have arrived.
      idempotent: method === 'GET',
      signal: init.signal ?? request?.signal ?? undefined,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      headers,
      rateLimitKey: `serverless:${endpointId}:openai`,
    };
    if (isRecord(parsed(body ?? '')) && (parsed(body!) as { stream?: unknown }).stream === true) {
      const res = await core.requestRaw(req);
      if (res.headers.get('content-type')?.includes('text/event-stream')) return res;
      throw core.wrongShape(req, 'a Server-Sent Events stream', await res.text().catch(() => ''), res.status);
    }
    const result = await core.request(req);
    if (!isRecord(parsed(result.text))) throw core.notJson(req, result);
    return new Response(result.text, { status: result.status, headers: result.headers });
  }

  return Object.freeze({ baseURL, apiKey: OPENAI_API_KEY_PLACEHOLDER, maxRetries: 0 as const, fetch });
}

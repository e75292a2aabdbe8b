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

const DROPPED_HEADERS = new Set(['authorization', 'host', 'content-length', 'connection', 'transfer-encoding']);

/** The JSON text of a request body, or undefined; anything else is refused. */
async function bodyText(body: unknown): Promise<string | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return new TextDecoder().decode(body);
  throw new ValidationError('body', 'must be JSON text: the OpenAI routes take no files or forms');
}

function asksForStream(body: string): boolean {
  try {
    const parsed: unknown = JSON.parse(body);
    return isRecord(parsed) && parsed.stream === true;
  } catch {
    return false;
  }
}

function isJsonObjectText(text: string): boolean {
  try {
    return isRecord(JSON.parse(text));
  } catch {
    return false;
  }
}

export function createOpenAIHelper(core: HttpCore, endpointId: string, options: OpenAIHelperOptions = {}): OpenAICompatible {
  const baseURL = `${core.options.serverlessUrl}/${encodeURIComponent(endpointId)}/openai/v1`;
  checkDuration('timeoutMs', options.timeoutMs);
  core.checkBeforeSending({ timeoutMs: options.timeoutMs, maxRetries: options.maxRetries, headers: options.headers }, 'bearer', () => ({
    method: 'POST',
    url: baseURL,
    auth: 'bearer',
    operation: `openai (endpoint ${endpointId})`,
    idempotent: false,
  }));
  const base = new URL(baseURL);
  const rateLimitKey = `serverless:${endpointId}:openai`;
  const own = options.headers ? Object.fromEntries(Object.entries(options.headers).map(([k, v]) => [k.toLowerCase(), v])) : undefined;

  async function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const request = typeof Request !== 'undefined' && input instanceof Request ? input : undefined;
    const urlText = request ? request.url : input instanceof URL ? input.href : String(input);
    let target: URL;
    try {
      target = new URL(urlText);
    } catch {
      throw new ValidationError('url', 'must be an absolute URL under the helper’s baseURL');
    }
    // The key goes to this endpoint's OpenAI routes and nowhere else (the URL is normalised first,
    // so no `..` walks out of them).
    if (target.origin !== base.origin || !target.pathname.startsWith(`${base.pathname}/`)) {
      throw new ValidationError('url', `must be under ${redactUrl(baseURL)}/; got ${redactUrl(target.href)}`);
    }
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = { ...own };
    new Headers(init?.headers ?? request?.headers).forEach((value, name) => {
      if (!DROPPED_HEADERS.has(name)) headers[name] = value;
    });
    const body = init?.body !== undefined ? await bodyText(init.body) : request?.body ? await request.text() : undefined;
    const route = target.pathname.slice(base.pathname.length);
    const req: HttpRequest = {
      method,
      url: target.href,
      auth: 'bearer',
      body,
      operation: `${method} /openai/v1${route} (endpoint ${endpointId})`,
      // A completion runs a job (billed): never resent once it may have arrived.
      idempotent: method === 'GET',
      signal: init?.signal ?? request?.signal ?? undefined,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      headers,
      rateLimitKey,
    };
    const streaming = body !== undefined && asksForStream(body);
    if (streaming) {
      const res = await core.requestRaw(req);
      if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
      const text = await res.text().catch(() => '');
      throw core.wrongShape(req, 'a Server-Sent Events stream', text, res.status);
    }
    const result = await core.request(req);
    if (!isJsonObjectText(result.text)) {
      if ((result.headers.get('content-type') ?? '').includes('json')) throw core.wrongShape(req, 'a JSON object', result.text, result.status);
      throw core.notJson(req, result);
    }
    return new Response(result.text, { status: result.status, headers: result.headers });
  }

  return Object.freeze({ baseURL, apiKey: OPENAI_API_KEY_PLACEHOLDER, maxRetries: 0 as const, fetch });
}

// The OpenAI helper's `fetch`, loaded with its first call.
import { ValidationError } from '../errors.js';
import type { HttpCore, HttpRequest } from '../transport/http-core.js';
import { redactUrl } from '../transport/redact.js';
import { isRecord } from '../transport/shape.js';
import type { OpenAIHelperOptions } from './openai.js';

export interface OpenAIFetchContext {
  readonly core: HttpCore;
  readonly endpointId: string;
  readonly options: OpenAIHelperOptions;
  readonly baseURL: string;
  readonly base: URL;
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

export async function openaiFetch({ core, endpointId, options, baseURL, base }: OpenAIFetchContext, input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
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
  // The SDK numbers its own resends. A POST runs a billed job and may have reached the server the
  // first time, so a resend could run it twice: refused, whatever `maxRetries` the SDK was given.
  const resend = Number(headers['x-stainless-retry-count'] ?? 0);
  if (method !== 'GET' && resend > 0) {
    throw new ValidationError(
      'maxRetries',
      `the openai SDK resent a ${method} (x-stainless-retry-count: ${resend}); a completion runs a billed job, so it is never sent twice. Construct the SDK with maxRetries: 0, as ep.openai() gives it: this client already retries what is safe to resend`,
    );
  }
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


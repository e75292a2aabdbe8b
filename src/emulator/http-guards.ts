import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';

/** Above the largest route limit the platform documents (20 MB for `/runsync`). */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Refuses a body larger than `maxBytes` with 413, counting the bytes that arrive rather than
 * trusting `Content-Length` (a chunked upload has none, and an in-process `Request` may claim any).
 * The body is buffered once, and the request handed on says its true length, so route-level limits
 * that read the header see the truth.
 */
export function bodyLimit(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return next();
    const tooLarge = () => c.json({ error: `request body exceeds ${maxBytes} bytes`, status: 413 }, 413);
    const declared = Number(raw.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) return tooLarge();
    const body = await readWithin(raw.body, maxBytes);
    if (!body) return tooLarge();
    const headers = new Headers(raw.headers);
    headers.delete('transfer-encoding');
    headers.set('content-length', String(body.byteLength));
    c.req.raw = new Request(raw.url, { method: raw.method, headers, body, signal: raw.signal });
    return next();
  };
}

/**
 * Reads a body, counting the bytes that arrive; past `limit` it stops reading, cancels the stream
 * and returns undefined.
 */
export async function readWithin(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

const LOOPBACK_ORIGIN = /^https?:\/\/(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i;

/**
 * CORS for pages on loopback origins only, unless `allowed` says otherwise (`'*'` or a list of
 * origins): with the well-known default key, `*` would let any web page drive a local emulator.
 */
export function emulatorCors(allowed: '*' | readonly string[] | undefined): MiddlewareHandler {
  const origin = (requestOrigin: string): string | null => {
    if (allowed === '*') return '*';
    if (allowed ? allowed.includes(requestOrigin) : LOOPBACK_ORIGIN.test(requestOrigin)) return requestOrigin;
    return null;
  };
  return cors({ origin, allowHeaders: ['authorization', 'content-type', 'last-event-id', 'x-runpod-worker-id'], allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], exposeHeaders: ['retry-after', 'ratelimit', 'ratelimit-policy', 'x-request-id', 'x-runpod-worker-id'] });
}

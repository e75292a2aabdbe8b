import type { Context, MiddlewareHandler } from 'hono';
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

/** Names that reach this machine only: a DNS name cannot be made to point at them by a web page. */
const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** True for a loopback host name (`localhost`, `127.x.x.x`, `[::1]`). */
export const isLoopbackName = (hostname: string): boolean => LOOPBACK_HOST.test(hostname);

/**
 * The host check against DNS rebinding, shared by the emulator and the gateway: the request's URL
 * (built from `Host` by a Node listener; an absolute-form target's own host) and its `Host` header
 * must both name an allowed host. Undefined when they do; else the name to show in the refusal
 * (printable, at most 100 characters).
 */
export function refusedHost(request: Request, isAllowed: (hostname: string) => boolean, url = new URL(request.url)): string | undefined {
  const header = request.headers.get('host');
  let headerHost: string | undefined;
  if (header !== null) {
    try {
      // A Host is a name and a port: user info or a path would make the URL parser read another name.
      headerHost = /[@/\\?#\s]/.test(header) ? '' : new URL(`http://${header}`).hostname;
    } catch {
      headerHost = '';
    }
  }
  if (isAllowed(url.hostname.toLowerCase()) && (headerHost === undefined || isAllowed(headerHost.toLowerCase()))) return undefined;
  return (headerHost ?? url.hostname).slice(0, 100).replace(/[^\x20-\x7e]/g, '?');
}

/**
 * The host names the emulator answers: loopback names and `inProcessHost` (`emulator.invalid`,
 * which no DNS can resolve), plus `allowed`, or any with `'*'`. Against DNS rebinding: a page on
 * `evil.example` whose name is made to resolve to 127.0.0.1 reaches a served emulator as its own
 * origin, where CORS does not apply, but its requests still carry `Host: evil.example`.
 */
export function hostCheck(allowed: '*' | readonly string[] | undefined, inProcessHost: string): MiddlewareHandler {
  if (allowed === '*') return (_c, next) => next();
  const extra = new Set((allowed ?? []).map((host) => host.toLowerCase()));
  const isAllowed = (hostname: string) => LOOPBACK_HOST.test(hostname) || hostname === inProcessHost || extra.has(hostname);
  return async (c, next) => {
    const shownHost = refusedHost(c.req.raw, isAllowed);
    if (shownHost === undefined) return next();
    return c.json({ error: `Host ${JSON.stringify(shownHost)} is not allowed: the emulator answers loopback names only (add it to the allowedHosts option)`, status: 403 }, 403);
  };
}

/**
 * 400 for a path whose percent-escapes do not decode (`%FF`, `%E0%A4%A`): every route decodes its
 * ids, and a broken escape is the client's mistake, not the emulator's (it answered 500).
 */
export function decodablePath(refuse: (c: Context, message: string) => Response): MiddlewareHandler {
  return async (c, next) => {
    const raw = c.req.raw.url;
    const start = raw.indexOf('/', raw.indexOf('//') + 2);
    const end = raw.search(/[?#]/);
    const path = start < 0 ? '/' : raw.slice(start, end < start ? undefined : end);
    if (path.includes('%')) {
      try {
        decodeURIComponent(path);
      } catch {
        return refuse(c, `the path ${path.slice(0, 200)} is not valid percent-encoded UTF-8`);
      }
    }
    return next();
  };
}

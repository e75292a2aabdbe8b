// Which pages may call the gateway, and what they are told: the allowlist as an operator writes it
// (a flag or an option), the preflight's answer, and one log line per refused origin.
import { ValidationError } from '../errors.js';
import type { Log } from '../transport/logger.js';

import { PREFLIGHT_HEADERS } from '../transport/preflight-headers.js';

/** What every preflight allows (the package's client's own headers), plus the operator's (`--cors-header`). */
export { PREFLIGHT_HEADERS };

/** RFC 9110's token: the only text a header name can be. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * `scheme://host[:port]` for each entry, or a ValidationError naming `field` (the flag when the
 * operator wrote it, `--cors-origin`; the option for a library caller). A trailing `/`, as copied
 * from an address bar, is dropped; a path, `*` or anything else that is not one origin is refused
 * with the reason.
 */
export function parseCorsOrigins(origins: readonly string[], field = 'corsOrigins'): string[] {
  return origins.map((origin) => {
    if (origin === '*' || origin === 'null') {
      throw new ValidationError(field, `${origin} is refused on purpose: every page on the web (or every sandboxed one) could then spend this gateway's key with its callers' credentials. Name each page's origin, e.g. http://localhost:5173`);
    }
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {}
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      throw new ValidationError(field, `"${origin}" is not an origin: write scheme://host[:port], e.g. http://localhost:5173`);
    }
    const bare = parsed.username === '' && parsed.password === '' && parsed.pathname === '/' && !/[?#]/.test(origin);
    if (!bare) throw new ValidationError(field, `"${origin}" has a path, a query or a user: write the origin alone, ${parsed.origin}`);
    // As browsers send it: lower case, no default port, no trailing slash.
    return parsed.origin;
  });
}

/** Header names for `corsHeaders` / `--cors-header`, lower-cased; a name that cannot be a header is a ValidationError naming `field`. */
export function parseCorsHeaders(names: readonly string[], field = 'corsHeaders'): string[] {
  return names.map((name) => {
    if (typeof name !== 'string' || !HEADER_NAME.test(name)) throw new ValidationError(field, `"${String(name)}" is not a header name`);
    return name.toLowerCase();
  });
}

/** The CORS side of one gateway: its allowlist, its preflight answer, and its notes to the operator. */
export interface CorsPolicy {
  /**
   * The origin to answer with (allowed, or one of the gateway's own, which `isOwn` tells from the
   * address it listens on, never from the request), or undefined.
   */
  allowed(origin: string | null, isOwn: (origin: string) => boolean): string | undefined;
  /** Logs `origin`'s refusal once per origin (a page retries; the log should not flood). */
  refused(origin: string): void;
  /** The answer to an `OPTIONS` preflight. */
  preflight(request: Request, origin: string | undefined): Response;
}

/** Refused origins remembered for their one log line; past this, new ones are still refused and logged, the set starts over. */
const MAX_REMEMBERED_ORIGINS = 1_000;

export function createCorsPolicy(origins: readonly string[], headers: readonly string[], log: Log): CorsPolicy {
  const allowlist = new Set(origins);
  const allowHeaders = [...new Set([...PREFLIGHT_HEADERS, ...headers])].join(', ');
  const told = new Set<string>();
  return {
    allowed: (origin, isOwn) => (origin !== null && (allowlist.has(origin) || isOwn(origin)) ? origin : undefined),
    refused(origin) {
      if (told.has(origin)) return;
      if (told.size >= MAX_REMEMBERED_ORIGINS) told.clear();
      told.add(origin);
      // The origin is the page's claim, shown as a JSON string so no text of it can forge a line.
      log.warn(`gateway: refused a page from origin ${JSON.stringify(origin.slice(0, 200))}: not allowed. If that page is yours, start the gateway with --cors-origin ${JSON.stringify(origin.slice(0, 200))}`);
    },
    preflight(request, origin) {
      if (origin === undefined) return new Response(null, { status: request.headers.has('origin') ? 403 : 204, headers: { allow: 'GET, POST, OPTIONS', vary: 'Origin' } });
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': origin,
          'access-control-allow-methods': 'GET, POST, OPTIONS',
          'access-control-allow-headers': allowHeaders,
          'access-control-max-age': '600',
          vary: 'Origin',
        },
      });
    },
  };
}

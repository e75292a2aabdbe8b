export const REDACTED = '[REDACTED]';

const SECRET_QUERY_PARAMS = ['api_key', 'apikey', 'token', 'access_token'];

/** A URL string with every credential-like query parameter, userinfo and known key replaced. */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return redactText(String(url).replace(/(api_key|apikey|token|access_token)=[^&#\s]*/gi, `$1=${REDACTED}`));
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_QUERY_PARAMS.includes(name.toLowerCase())) parsed.searchParams.set(name, REDACTED);
  }
  if (parsed.username) parsed.username = REDACTED;
  if (parsed.password) parsed.password = REDACTED;
  return redactText(parsed.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED));
}

// Keys shorter than this are only scrubbed as whole tokens (a letter or digit on neither side, bar
// a percent escape before), so a one-letter key cannot turn "no workers available" into
// "no wor[REDACTED]ers available".
const SHORT_KEY = 8;
/** Values nested deeper than this are cut: a 50k-deep answer must not overflow the stack later. */
export const MAX_REDACT_DEPTH = 32;

/** Set on errors that scrubbed themselves when they were built (every RunpodError). */
export const SCRUBBED: unique symbol = Symbol.for('runpod-gql.scrubbed');

const patterns = new Map<string, RegExp>();

const hex = (n: number, width = 2) => n.toString(16).padStart(width, '0');
const escapeRe = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
const utf8 = (s: string) => [...new TextEncoder().encode(s)];

/**
 * One character of the key in every spelling a server could echo it in: raw, percent-encoded
 * (UTF-8 or Latin-1, to any depth: `%2527`), `+` for a space, a JSON escape (`\u0027`, `\/`) or an
 * numeric HTML entity. The pattern is case-insensitive, which only ever scrubs more.
 */
function charPattern(ch: string): string {
  const code = ch.codePointAt(0)!;
  const alts = [
    escapeRe(ch),
    utf8(ch).map((b) => `%(?:25)*${hex(b)}`).join(''),
    `%(?:25)*${hex(code)}`,
    [...ch].length === ch.length ? `\\\\u${hex(code, 4)}` : '',
    ' /"\\'.includes(ch) ? (ch === ' ' ? '\\+' : escapeRe(`\\${ch}`)) : '',
    `&#(?:x0*${hex(code, 1)}|0*${code});`,
  ];
  // No alternative twice (an ASCII character's UTF-8 and Latin-1 escapes are the same): a
  // duplicate would make every failed match backtrack 2^length ways.
  return `(?:${[...new Set(alts.filter(Boolean))].join('|')})`;
}

/**
 * Base64 (and base64url) of the key inside a longer base64 text (Basic auth's `user:key`), at each
 * of the three byte alignments: only whole 3-byte groups of the key, which do not depend on neighbours.
 */
function base64Patterns(secret: string): string[] {
  const bytes = utf8(secret);
  return [0, 1, 2].flatMap((skip) => {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    const text = btoa(String.fromCharCode(...bytes.slice(skip, skip + whole)));
    return whole < 9 ? [] : [escapeRe(text), escapeRe(text.replace(/\+/g, '-').replace(/\//g, '_'))];
  });
}

function patternFor(secret: string): RegExp {
  let re = patterns.get(secret);
  if (!re) {
    const body = [[...secret].map(charPattern).join(''), ...(secret.length >= SHORT_KEY ? base64Patterns(secret) : [])].join('|');
    re = new RegExp(secret.length >= SHORT_KEY ? body : `(?:(?<![\\p{L}\\p{N}])|(?<=%[0-9a-f]{2}))(?:${body})(?![\\p{L}\\p{N}])`, 'giu');
    patterns.set(secret, re);
  }
  return re;
}

// Every key a live client of this process holds, counted per client. Errors scrub themselves
// against these, so no surface can forget to; module-private and never exported, like the key
// inside the core. A key is forgotten when the last client holding it is collected, so the cost of
// scrubbing does not grow with every client ever made.
const secrets = new Map<string, number>();
const release =
  typeof FinalizationRegistry === 'undefined'
    ? undefined
    : new FinalizationRegistry<string>((secret) => {
        const left = (secrets.get(secret) ?? 1) - 1;
        if (left > 0) secrets.set(secret, left);
        else (secrets.delete(secret), patterns.delete(secret));
      });

/** Registers a key to be scrubbed from every error for as long as `holder` (its client's core) lives. */
export function registerSecret(secret: string | undefined, holder?: object): void {
  if (!secret) return;
  secrets.set(secret, (secrets.get(secret) ?? 0) + 1);
  if (holder) release?.register(holder, secret);
}

/** `text` with every spelling of `secret` (or, by default, of every registered key) replaced. */
export function scrubSecret(text: string, secret?: string): string {
  for (const s of secret === undefined ? secrets.keys() : [secret]) {
    if (s) text = text.replace(patternFor(s), REDACTED);
  }
  return text;
}

/** `text` scrubbed of every registered key. */
export function redactText(text: string): string {
  return secrets.size === 0 ? text : scrubSecret(text);
}

/**
 * A copy of `value` with every registered key scrubbed from every string and property name,
 * cut at {@link MAX_REDACT_DEPTH}. Errors keep scrubbed copies of what they carry.
 */
export function redactValue<T>(value: T): T {
  return redactAt(value, 0, new WeakMap()) as T;
}

function redactAt(value: unknown, depth: number, seen: WeakMap<object, unknown>): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return seen.get(value);
  if (depth >= MAX_REDACT_DEPTH) return '[TOO DEEP]';
  if (value instanceof Error) return redactError(value, depth, seen);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(redactAt(item, depth + 1, seen));
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = Object.create(proto);
  seen.set(value, out);
  for (const [k, v] of Object.entries(value)) out[redactText(k)] = redactAt(v, depth + 1, seen);
  return out;
}

/** A foreign error (a fetch failure, an abort reason) rebuilt with scrubbed text, its `code` kept. */
function redactError(err: Error, depth: number, seen: WeakMap<object, unknown>): Error {
  if ((err as { [SCRUBBED]?: unknown })[SCRUBBED]) return err;
  const copy = new Error(redactText(err.message), { cause: redactAt(err.cause, depth + 1, seen) });
  copy.name = err.name;
  copy.stack = redactText(err.stack ?? '');
  seen.set(err, Object.assign(copy, { code: (err as { code?: unknown }).code }));
  return copy;
}

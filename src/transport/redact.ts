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
// an escape before), so a one-letter key cannot turn "no workers available" into
// "no wor[REDACTED]ers available".
const SHORT_KEY = 8;
/** Longest API key accepted: longer ones are refused at client creation (and never registered). */
export const MAX_KEY_LENGTH = 512;
/** Values nested deeper than this are cut: a 50k-deep answer must not overflow the stack later. */
export const MAX_REDACT_DEPTH = 32;

/** Set on errors that scrubbed themselves when they were built (every RunpodError). */
export const SCRUBBED: unique symbol = Symbol.for('runpod-gql.scrubbed');

// How scrubbing works, and why it is linear: the text is decoded once into "units", one per
// character it spells (raw, percent-encoded to any depth as UTF-8 or Latin-1, a JSON escape, a
// numeric HTML entity), each case-folded and with `+` read as a space. Every key, and its base64
// spellings, is stored as folded units too, indexed by a rolling hash per pattern length. One pass
// per distinct length finds every spelling of every key at once: the cost does not depend on how
// many keys are alive (keys share a handful of lengths), and a near miss costs nothing extra, as
// no pattern is ever compared unless its whole hash matched. No regular expression is built from a key.

const hexValue = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1);

const foldCache = new Map<number, number>();
/** Case-folds one code point (both ways, so `µ`, `Μ` and `μ` agree) and reads `+` as a space. */
function fold(cp: number): number {
  if (cp < 128) return cp === 43 ? 32 : cp >= 65 && cp <= 90 ? cp + 32 : cp;
  let out = foldCache.get(cp);
  if (out === undefined) {
    const lower = String.fromCodePoint(cp).toUpperCase().toLowerCase();
    out = [...lower].length === 1 ? lower.codePointAt(0)! : cp;
    if (foldCache.size < 4096) foldCache.set(cp, out);
  }
  return out;
}

/** A percent escape at `i` (`%XX`, or `%25…25XX` for an escape escaped again): [byte, end] or undefined. */
function percentAt(t: string, i: number): [number, number] | undefined {
  if (t.charCodeAt(i) !== 37) return undefined;
  let j = i + 1;
  while (t.charCodeAt(j) === 50 && t.charCodeAt(j + 1) === 53 && hexValue(t.charCodeAt(j + 2)) >= 0 && hexValue(t.charCodeAt(j + 3)) >= 0) j += 2;
  const hi = hexValue(t.charCodeAt(j));
  const lo = hexValue(t.charCodeAt(j + 1));
  return hi >= 0 && lo >= 0 ? [hi * 16 + lo, j + 2] : undefined;
}

/** The escapes the scrubber reads: percent (`%XX`), JSON (`\uXXXX`, `\"`), HTML numeric entities (`&#65;`). */
const PERCENT = 1;
const JSON_ESCAPE = 2;
const ENTITY = 4;
const EVERY_ESCAPE = PERCENT | JSON_ESCAPE | ENTITY;

/**
 * The code point spelled at `i` and where its spelling ends; `escaped` when it was not written raw.
 * Only the escapes in `kinds` are read (text is always read with every kind; see `patternsOf`).
 */
function unitAt(t: string, i: number, kinds = EVERY_ESCAPE): { cp: number; end: number; escaped: boolean } {
  const c = t.charCodeAt(i);
  if (c === 37 && kinds & PERCENT) {
    const first = percentAt(t, i);
    if (first) {
      const [byte, end] = first;
      const more = byte >= 0xc2 && byte <= 0xdf ? 1 : byte >= 0xe0 && byte <= 0xef ? 2 : byte >= 0xf0 && byte <= 0xf4 ? 3 : 0;
      if (more) {
        let cp = byte & (0x3f >> more);
        let at = end;
        let ok = true;
        for (let k = 0; k < more && ok; k++) {
          const next = percentAt(t, at);
          if (!next || next[0] < 0x80 || next[0] > 0xbf) ok = false;
          else ((cp = (cp << 6) | (next[0] & 0x3f)), (at = next[1]));
        }
        if (ok && cp <= 0x10ffff) return { cp, end: at, escaped: true };
      }
      return { cp: byte, end, escaped: true };
    }
  } else if (c === 92 && kinds & JSON_ESCAPE) {
    const n = t.charCodeAt(i + 1);
    if (n === 117) {
      let cu = 0;
      for (let k = 2; k < 6 && cu >= 0; k++) {
        const h = hexValue(t.charCodeAt(i + k));
        cu = h < 0 ? -1 : cu * 16 + h;
      }
      if (cu >= 0) {
        if (cu >= 0xd800 && cu <= 0xdbff && t.charCodeAt(i + 6) === 92 && t.charCodeAt(i + 7) === 117) {
          const low = unitAt(t, i + 6);
          if (low.end === i + 12 && low.cp >= 0xdc00 && low.cp <= 0xdfff) return { cp: 0x10000 + ((cu - 0xd800) << 10) + (low.cp - 0xdc00), end: i + 12, escaped: true };
        }
        return { cp: cu, end: i + 6, escaped: true };
      }
    } else if (n === 47 || n === 34 || n === 92) return { cp: n, end: i + 2, escaped: true };
  } else if (c === 38 && kinds & ENTITY && t.charCodeAt(i + 1) === 35) {
    const isHex = (t.charCodeAt(i + 2) | 32) === 120;
    let j = i + (isHex ? 3 : 2);
    let cp = 0;
    const from = j;
    for (; j < from + 10; j++) {
      const d = hexValue(t.charCodeAt(j));
      if (d < 0 || (!isHex && d > 9)) break;
      cp = cp * (isHex ? 16 : 10) + d;
    }
    if (j > from && t.charCodeAt(j) === 59 && cp <= 0x10ffff) return { cp, end: j + 1, escaped: true };
  }
  const cp = t.codePointAt(i)!;
  return { cp, end: i + (cp > 0xffff ? 2 : 1), escaped: false };
}

/** `text` decoded into folded units: `cps[u]`, spelled from `starts[u]` to `starts[u + 1]`. */
function decode(text: string, kinds = EVERY_ESCAPE): { cps: Int32Array; starts: Int32Array; escaped: Uint8Array; count: number } {
  const cps = new Int32Array(text.length);
  const starts = new Int32Array(text.length + 1);
  const escaped = new Uint8Array(text.length);
  let count = 0;
  for (let i = 0; i < text.length; count++) {
    const c = text.charCodeAt(i);
    if (c < 128 && c !== 37 && c !== 92 && c !== 38) {
      // The common case, without an object per character.
      cps[count] = c === 43 ? 32 : c >= 65 && c <= 90 ? c + 32 : c;
      starts[count] = i++;
      continue;
    }
    const unit = unitAt(text, i, kinds);
    cps[count] = fold(unit.cp);
    starts[count] = i;
    escaped[count] = unit.escaped ? 1 : 0;
    i = unit.end;
  }
  starts[count] = text.length;
  return { cps, starts, escaped, count };
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Base64 (and base64url) of the key inside a longer base64 text (Basic auth's `user:key`), at each byte alignment. */
function base64Spellings(secret: string): string[] {
  const bytes = utf8(secret);
  return [0, 1, 2].flatMap((skip) => {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole < 9) return [];
    const text = btoa(String.fromCharCode(...bytes.subarray(skip, skip + whole)));
    return [text, text.replace(/\+/g, '-').replace(/\//g, '_')];
  });
}

/**
 * The folded units of every spelling of `secret` to look for: as written, its base64 forms, and,
 * when the key itself holds escapes (`%41`, `\"`, `&#65;`), as the text decoder reads its echoes.
 * The text is decoded before matching, so a key holding `%41` reads as `A` wherever it is written
 * raw, and its once-URL-encoded `%2541` reads as `A` escaped twice. Which of the key's own escapes
 * are read depends on how the echo was encoded: URL-encoding keeps its percent escapes readable
 * (`%25XX`) but not its `\` or `&#` ones (`%5C`, `%26%23`); JSON keeps percent and entity escapes
 * but not `\` (`\\`); `\uXXXX` for every character keeps none. So the key is decoded once per
 * subset of the three kinds (at most 8 forms, only for a key that holds an escape).
 */
function patternsOf(secret: string): Array<{ units: Int32Array; short: boolean }> {
  const out: Array<{ units: Int32Array; short: boolean }> = [];
  const push = (units: Int32Array, short: boolean) => {
    if (units.length > 0 && !out.some((o) => o.units.length === units.length && sameUnits(o.units, units, 0))) out.push({ units, short });
  };
  const short = secret.length < SHORT_KEY;
  for (const spelled of [secret, ...(short ? [] : base64Spellings(secret))]) {
    push(Int32Array.from([...spelled], (ch) => fold(ch.codePointAt(0)!)), short);
  }
  if (!/[%\\&]/.test(secret)) return out;
  for (let kinds = 1; kinds <= EVERY_ESCAPE; kinds++) {
    // `%41%42%43%44` decodes to four letters: scrubbed only as a whole token, like any short key.
    const decoded = decode(secret, kinds);
    push(decoded.cps.slice(0, decoded.count), short || decoded.count < SHORT_KEY);
  }
  return out;
}

interface Pattern {
  readonly units: Int32Array;
  /** Scrubbed only as a whole token. */
  readonly short: boolean;
  refs: number;
}

// One random base per process: hashes cannot be aimed at from outside.
const BASE = (Math.floor(Math.random() * 0x3fffffff) | 1) + 0x10000;

function hashUnits(units: ArrayLike<number>, from: number, length: number): number {
  let h = 0;
  for (let k = 0; k < length; k++) h = (Math.imul(h, BASE) + units[from + k]!) | 0;
  return h;
}

function powBase(length: number): number {
  let p = 1;
  for (let k = 1; k < length; k++) p = Math.imul(p, BASE);
  return p;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Every spelling of a set of keys, indexed by length, then hash. */
class SecretIndex {
  private readonly byLength = new Map<number, { pow: number; patterns: Map<number, Pattern[]> }>();
  /** Keys held, counted per holder. */
  readonly secrets = new Map<string, number>();

  add(secret: string): void {
    const held = this.secrets.get(secret) ?? 0;
    this.secrets.set(secret, held + 1);
    if (held > 0) return;
    for (const { units, short } of patternsOf(secret)) {
      let slot = this.byLength.get(units.length);
      if (!slot) this.byLength.set(units.length, (slot = { pow: powBase(units.length), patterns: new Map() }));
      const hash = hashUnits(units, 0, units.length);
      const bucket = slot.patterns.get(hash) ?? [];
      const same = bucket.find((p) => sameUnits(p.units, units, 0));
      if (same) same.refs++;
      else bucket.push({ units, short, refs: 1 });
      slot.patterns.set(hash, bucket);
    }
  }

  remove(secret: string): void {
    const held = this.secrets.get(secret);
    if (held === undefined) return;
    if (held > 1) {
      this.secrets.set(secret, held - 1);
      return;
    }
    this.secrets.delete(secret);
    for (const { units } of patternsOf(secret)) {
      const slot = this.byLength.get(units.length);
      const hash = hashUnits(units, 0, units.length);
      const bucket = slot?.patterns.get(hash);
      const at = bucket?.findIndex((p) => sameUnits(p.units, units, 0)) ?? -1;
      if (!slot || !bucket || at < 0) continue;
      if (--bucket[at]!.refs > 0) continue;
      bucket.splice(at, 1);
      if (bucket.length === 0) slot.patterns.delete(hash);
      if (slot.patterns.size === 0) this.byLength.delete(units.length);
    }
  }

  get size(): number {
    return this.secrets.size;
  }

  scrub(text: string): string {
    if (this.byLength.size === 0 || text.length === 0) return text;
    const { cps, starts, escaped, count } = decode(text);
    // Matched spans, as [start, end) offsets into `text`.
    const spans: number[] = [];
    for (const [length, { pow, patterns }] of this.byLength) {
      if (length > count) continue;
      let h = hashUnits(cps, 0, length);
      for (let u = 0; ; u++) {
        const bucket = patterns.get(h);
        if (bucket) {
          for (const p of bucket) {
            if (sameUnits(p.units, cps, u) && (!p.short || this.isToken(text, starts, escaped, u, u + length))) {
              spans.push(starts[u]!, starts[u + length]!);
              break;
            }
          }
        }
        if (u + length >= count) break;
        h = (Math.imul(h - Math.imul(cps[u]!, pow), BASE) + cps[u + length]!) | 0;
      }
    }
    if (spans.length === 0) return text;
    const order = Array.from({ length: spans.length / 2 }, (_, k) => k).sort((a, b) => spans[2 * a]! - spans[2 * b]!);
    let out = '';
    let at = 0;
    for (let k = 0; k < order.length; ) {
      const start = spans[2 * order[k]!]!;
      let end = spans[2 * order[k]! + 1]!;
      for (k++; k < order.length && spans[2 * order[k]!]! <= end; k++) end = Math.max(end, spans[2 * order[k]! + 1]!);
      out += text.slice(at, Math.max(at, start)) + REDACTED;
      at = Math.max(at, end);
    }
    return out + text.slice(at);
  }

  /** A short key counts only as a whole token: no raw letter or digit right before or after it. */
  private isToken(text: string, starts: Int32Array, escaped: Uint8Array, from: number, to: number): boolean {
    if (from > 0 && !escaped[from - 1]) {
      const before = String.fromCodePoint(text.codePointAt(starts[from - 1]!)!);
      if (WORD_CHAR.test(before)) return false;
    }
    const after = starts[to]!;
    return after >= text.length || !WORD_CHAR.test(String.fromCodePoint(text.codePointAt(after)!));
  }
}

function sameUnits(pattern: Int32Array, units: Int32Array, from: number): boolean {
  for (let k = 0; k < pattern.length; k++) if (pattern[k] !== units[from + k]) return false;
  return true;
}

// Every key a live client of this process holds. Errors scrub themselves against these, so no
// surface can forget to; module-private and never exported, like the key inside the core. A key
// is forgotten when the last client holding it is collected.
const registered = new SecretIndex();
const release =
  typeof FinalizationRegistry === 'undefined' ? undefined : new FinalizationRegistry<string>((secret) => registered.remove(secret));

// Indexes for one key, for `scrubSecret(text, key)`: a client's core keeps its own.
const single = new Map<string, SecretIndex>();

/** The scrubbing function for one key: linear in the text, built once. */
export function createScrubber(secret: string | undefined): (text: string) => string {
  if (!secret || secret.length > MAX_KEY_LENGTH) return (text) => text;
  const index = new SecretIndex();
  index.add(secret);
  return (text) => index.scrub(text);
}

/** Registers a key to be scrubbed from every error for as long as `holder` (its client's core) lives. */
export function registerSecret(secret: string | undefined, holder?: object): void {
  // A longer key is refused at client creation; it is never indexed here.
  if (!secret || secret.length > MAX_KEY_LENGTH) return;
  registered.add(secret);
  if (holder) release?.register(holder, secret);
}

/** Pieces a long secret value is registered in: each between this and twice this long. */
const VALUE_PIECE = 256;

/**
 * Registers a secret value the client sends (an account secret's value) like a key, for as long as
 * `holder` lives. A value longer than a key may be is registered in pieces, so that every piece of
 * it, and so the whole, is scrubbed wherever a server or proxy echoes it.
 */
export function registerSecretValue(value: string, holder?: object): void {
  if (value.length <= MAX_KEY_LENGTH) return registerSecret(value, holder);
  for (let at = 0; at < value.length; at += VALUE_PIECE) {
    // The last piece takes the rest when what would remain is shorter than a piece.
    const end = value.length - at < 2 * VALUE_PIECE ? value.length : at + VALUE_PIECE;
    registerSecret(value.slice(at, end), holder);
    if (end === value.length) break;
  }
}

/** `text` with every spelling of `secret` (or, by default, of every registered key) replaced. */
export function scrubSecret(text: string, secret?: string): string {
  if (secret === undefined) return registered.scrub(text);
  if (!secret) return text;
  let index = single.get(secret);
  if (!index) {
    if (single.size >= 64) single.clear();
    index = new SecretIndex();
    if (secret.length <= MAX_KEY_LENGTH) index.add(secret);
    single.set(secret, index);
  }
  return index.scrub(text);
}

/** `text` scrubbed of every registered key. */
export function redactText(text: string): string {
  return registered.size === 0 ? text : registered.scrub(text);
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
  // Defined, never assigned: a `__proto__` key stays a plain data property of the copy instead of
  // replacing its prototype (which would let a body inject `isAdmin` into every lookup).
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, redactText(k), { value: redactAt(v, depth + 1, seen), enumerable: true, writable: true, configurable: true });
  }
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

import { installErrorScrubber, type CallScope } from '../errors.js';

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

// How scrubbing works, and why it costs the same however many secrets are live: the text is
// decoded once into "units", one per character it spells (raw, percent-encoded to any depth as
// UTF-8 or Latin-1, a JSON escape, a numeric HTML entity), each case-folded and with `+` read as a
// space. Every secret is stored as the folded units of each of its spellings (as written, base64,
// hex, its own escapes decoded), indexed by the hash of one STRIDE-unit run per STRIDE units, all
// secrets in one map per run width (at most STRIDE of them): one rolling pass per width looks each
// run of the text up once, compares a hit unit by unit, and extends it to all the text shares with
// that spelling. So any run of SECRET_WINDOW units of a secret (a slice a server clipped, a piece
// of a 2,000-character value) is found, and the cost does not depend on how many secrets are live.
// No regular expression is built from a secret.

const hexValue = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1);

/**
 * ASCII folded: lower case; `+` and `-` read as a space, `_` as `/`. So a form-encoded space
 * matches, and base64url reads as base64 (one spelling to index, not two); the few texts this
 * makes equal (`a-b`, `a+b`, `a b`) are scrubbed alike, which costs nothing.
 */
const FOLD_ASCII = Int32Array.from({ length: 128 }, (_, c) => (c === 43 || c === 45 ? 32 : c === 95 ? 47 : c >= 65 && c <= 90 ? c + 32 : c));

const foldCache = new Map<number, number>();
/** Case-folds one code point (both ways, so `µ`, `Μ` and `μ` agree), and ASCII as FOLD_ASCII says. */
function fold(cp: number): number {
  if (cp < 128) return FOLD_ASCII[cp]!;
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
    else {
      // `\n`, `\r`, `\t`, `\b`, `\f`: a secret value holding a line break is echoed with them.
      const control = n === 110 ? 10 : n === 114 ? 13 : n === 116 ? 9 : n === 98 ? 8 : n === 102 ? 12 : -1;
      if (control >= 0) return { cp: control, end: i + 2, escaped: true };
    }
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
      cps[count] = FOLD_ASCII[c]!;
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

/**
 * `text`'s characters as the scrubber reads them: escapes decoded (only `kinds`; see `patternsOf`),
 * case-folded, `+` and `-` as a space. For a matcher of few short texts (the gateway's request ids).
 */
export function foldedUnits(text: string, kinds = EVERY_ESCAPE): Int32Array {
  const decoded = decode(text, kinds);
  return decoded.cps.subarray(0, decoded.count);
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/**
 * Width, in decoded characters, of the runs by which a long secret is recognised: any run of at
 * least this many characters of a registered secret, in any spelling, is scrubbed wherever it
 * appears, however long the secret. Spellings shorter than this are matched whole.
 */
export const SECRET_WINDOW = 32;
// Every spelling is indexed by the hash of its STRIDE-unit runs that start at every STRIDE-th unit
// (and the last one): any run of 2 × STRIDE - 1 units of it holds one whole, and a run found is then
// extended unit by unit to all it shares with the spelling. So a run of SECRET_WINDOW is always
// found, at one index entry per STRIDE units; a spelling shorter than STRIDE is one run.
const STRIDE = 8;

/** Base64 (base64url folds to it) of the key inside a longer base64 text (Basic auth's `user:key`), at each byte alignment. */
function base64Spellings(secret: string): string[] {
  const bytes = utf8(secret);
  return [0, 1, 2].flatMap((skip) => {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    // Six bytes (eight characters) at least: an 8-character key inside `user:key` is still found.
    if (whole < 6) return [];
    let binary = '';
    // In chunks: a 5,000-character value would overflow an argument list spread at once.
    for (let at = skip; at < skip + whole; at += 4096) binary += String.fromCharCode(...bytes.subarray(at, Math.min(at + 4096, skip + whole)));
    // base64url folds to the same units (FOLD_ASCII).
    return [btoa(binary)];
  });
}

/** Hex of the key's UTF-8 bytes (the fold makes upper case match too); a slice's hex is a run of it. */
function hexSpelling(secret: string): string {
  return Array.from(utf8(secret), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The folded units of every spelling of `secret` to look for: as written, its base64 and hex forms,
 * and, when the key itself holds escapes (`%41`, `\"`, `&#65;`), as the text decoder reads its echoes.
 * The text is decoded before matching, so a key holding `%41` reads as `A` wherever it is written
 * raw, and its once-URL-encoded `%2541` reads as `A` escaped twice. Which of the key's own escapes
 * are read depends on how the echo was encoded: URL-encoding keeps its percent escapes readable
 * (`%25XX`) but not its `\` or `&#` ones (`%5C`, `%26%23`); JSON keeps percent and entity escapes
 * but not `\` (`\\`); `\uXXXX` for every character keeps none. So the key is decoded once per
 * subset of the three kinds (at most 8 forms, only for a key that holds an escape).
 */
function patternsOf(secret: string): Array<{ units: Units; short: boolean }> {
  const out: Array<{ units: Units; short: boolean }> = [];
  const push = (wide: Int32Array, short: boolean) => {
    // Two bytes a unit where every unit fits: half the memory a registered value holds.
    const units = wide.every((u) => u >= 0 && u <= 0xffff) ? Uint16Array.from(wide) : wide;
    if (units.length > 0 && !out.some((o) => o.units.length === units.length && sameUnits(o.units, units, 0))) out.push({ units, short });
  };
  const short = secret.length < SHORT_KEY;
  // Read with no escape (kinds 0): the folded characters as written.
  const unitsOf = (text: string, kinds = 0) => {
    const decoded = decode(text, kinds);
    return decoded.cps.slice(0, decoded.count);
  };
  for (const spelled of [secret, ...(short ? [] : [...base64Spellings(secret), hexSpelling(secret)])]) push(unitsOf(spelled), short);
  if (!/[%\\&]/.test(secret)) return out;
  for (let kinds = 1; kinds <= EVERY_ESCAPE; kinds++) {
    // `%41%42%43%44` decodes to four letters: scrubbed only as a whole token, like any short key.
    const units = unitsOf(secret, kinds);
    push(units, short || units.length < SHORT_KEY);
  }
  return out;
}


// One random base per process: hashes cannot be aimed at from outside.
const BASE = (Math.floor(Math.random() * 0x3fffffff) | 1) + 0x10000;

function hashUnits(units: ArrayLike<number>, from: number, length: number): number {
  let h = 0;
  for (let k = 0; k < length; k++) h = (Math.imul(h, BASE) + units[from + k]!) | 0;
  return h;
}

// Maps are keyed by 30 bits of a hash: a small integer, which V8 keys without allocating.
const KEY_BITS = 0x3fffffff;

function powBase(length: number): number {
  let p = 1;
  for (let k = 1; k < length; k++) p = Math.imul(p, BASE);
  return p;
}


/** A spelling's folded units: two bytes each when every unit fits (almost every secret). */
type Units = Int32Array | Uint16Array;

/** A spelling in the index: where the run it is found by starts in it. */
interface Entry {
  readonly units: Units;
  readonly at: number;
  /** Scrubbed only as a whole token. */
  readonly short: boolean;
}

/**
 * Most spellings one run is looked up to in an index of secrets callers sent (a document's scope):
 * a run that many of their values share (a pattern repeated in several passwords) is no more a
 * clue to each, and a bucket that grew with them made registration quadratic and a scrub of their
 * pieces take seconds. The process-wide index, which holds only what the process owns, has no such
 * cap: no key it holds is ever left unfiled because others share its runs.
 */
const MAX_PER_RUN = 8;
/** How far around a run two of its places in one spelling must agree for one of them to be filed for both. */
const CONTEXT = SECRET_WINDOW;

/**
 * Where a spelling is indexed: a run of `width` units at every `width`-th unit, and the last one,
 * but for runs of one repeated character (8 spaces or dashes tell nothing of a secret, and would
 * be looked at in every text), and for a run that a place already filed holds with the same
 * {@link CONTEXT} units on each side (a pattern repeated in one value is filed once: any match
 * through the place skipped is found through the one filed, and extended from there); a spelling
 * of one repeated character only, by its first run. Linear in the spelling, whatever its pattern.
 */
function strideStarts(units: Units, width: number, hashes: number[]): number[] {
  const out: number[] = [];
  const seen = new Map<number, number[]>();
  const last = units.length - width;
  for (let at = 0; ; at = Math.min(at + width, last)) {
    let plain = true;
    for (let k = at + 1; k < at + width && plain; k++) if (units[k] !== units[at]) plain = false;
    if (!plain) {
      const hash = hashUnits(units, at, width) & KEY_BITS;
      const earlier = seen.get(hash);
      if (!earlier?.some((e) => sameContext(units, e, at, width))) {
        // Only a few places per run are compared against: a run filed at many places with as many
        // contexts is a value built to be slow, and its later places are filed unchecked.
        if (!earlier) seen.set(hash, [at]);
        else if (earlier.length < MAX_PER_RUN) earlier.push(at);
        out.push(at);
        hashes.push(hash);
      }
    }
    if (at === last) {
      if (!out.length) (out.push(0), hashes.push(hashUnits(units, 0, width) & KEY_BITS));
      return out;
    }
  }
}

/** The runs of `width` at `a` and `b` agree, and so do {@link CONTEXT} units on each side (clipped alike at the ends). */
function sameContext(units: Units, a: number, b: number, width: number): boolean {
  const left = Math.min(a, CONTEXT);
  const right = Math.min(units.length - a - width, CONTEXT);
  if (left !== Math.min(b, CONTEXT) || right !== Math.min(units.length - b - width, CONTEXT)) return false;
  for (let k = -left; k < width + right; k++) if (units[a + k] !== units[b + k]) return false;
  return true;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

type Decoded = ReturnType<typeof decode>;

/**
 * What one secret put in an index: its spellings, whose entries are found again from them when it
 * leaves (the places and hashes are worked out as they were filed; keeping each entry's place
 * instead cost about a third of the index's memory).
 */
interface Filed {
  held: number;
  /** Units of its spellings, counted against the index's bound. */
  readonly cost: number;
  readonly spellings: Units[];
}

/** The characters one secret costs an index: its length times its spellings (as written, base64 ×3, hex ×2). */
const SPELLING_FACTOR = 7;

/**
 * Every spelling of a set of secrets, indexed by the hash of its STRIDE-unit runs (a shorter one by
 * all its units), per run width: at most STRIDE widths, so passes, whatever the number of secrets.
 * Secrets are counted per holder. Filing one is linear in its length whatever its pattern (a run
 * is filed once per spelling, and into a bucket of at most {@link MAX_PER_RUN}); `maxUnits` bounds
 * the units all of them may hold (a secret that would pass it is not filed, and `add` says so).
 */
class SecretIndex {
  /** Run width → hash of a run → the spellings that hold it, and where. */
  private readonly widths = new Map<number, { pow: number; runs: Map<number, Entry | Entry[]> }>();
  /** Secrets held, counted per holder, with what each filed. */
  private readonly filed = new Map<string, Filed>();
  /** Units of every spelling filed. */
  units = 0;

  /** `maxPerRun`: spellings filed under one run at most (see {@link MAX_PER_RUN}). */
  constructor(
    readonly maxUnits = Infinity,
    private readonly maxPerRun = Infinity,
  ) {}

  /** One more holder of `secret`; false when it is not (and was not) filed: it would pass the bound. */
  add(secret: string): boolean {
    const known = this.filed.get(secret);
    if (known) return (known.held++, true);
    const patterns = patternsOf(secret);
    let cost = 0;
    for (const { units } of patterns) cost += units.length;
    if (this.units + cost > this.maxUnits) return false;
    this.units += cost;
    this.filed.set(secret, { held: 1, cost, spellings: patterns.map((p) => p.units) });
    for (const { units, short } of patterns) {
      const width = Math.min(units.length, STRIDE);
      let slot = this.widths.get(width);
      if (!slot) this.widths.set(width, (slot = { pow: powBase(width), runs: new Map() }));
      const hashes: number[] = [];
      const starts = strideStarts(units, width, hashes);
      for (let k = 0; k < starts.length; k++) {
        const hash = hashes[k]!;
        const entry: Entry = { units, at: starts[k]!, short };
        const bucket = slot.runs.get(hash);
        if (bucket === undefined) slot.runs.set(hash, entry);
        else if (!Array.isArray(bucket)) slot.runs.set(hash, [bucket, entry]);
        else if (bucket.length < this.maxPerRun) bucket.push(entry);
      }
    }
    return true;
  }

  /** One less holder of `secret`; its spellings leave the index with the last. */
  remove(secret: string): void {
    const record = this.filed.get(secret);
    if (!record || --record.held > 0) return;
    this.filed.delete(secret);
    this.units -= record.cost;
    for (const units of record.spellings) {
      const width = Math.min(units.length, STRIDE);
      const slot = this.widths.get(width);
      if (!slot) continue;
      const hashes: number[] = [];
      const starts = strideStarts(units, width, hashes);
      for (let k = 0; k < starts.length; k++) {
        const hash = hashes[k]!;
        const bucket = slot.runs.get(hash);
        // An entry is its spelling's own units at its place (one a full bucket left out is not there).
        const mine = (e: Entry) => e.units === units && e.at === starts[k];
        if (bucket === undefined) continue;
        if (!Array.isArray(bucket)) {
          if (mine(bucket)) slot.runs.delete(hash);
          continue;
        }
        const i = bucket.findIndex(mine);
        if (i >= 0) bucket.splice(i, 1);
        if (bucket.length === 1) slot.runs.set(hash, bucket[0]!);
      }
      if (slot.runs.size === 0) this.widths.delete(width);
    }
  }

  /** Secrets held. */
  get size(): number {
    return this.filed.size;
  }

  get empty(): boolean {
    return this.widths.size === 0;
  }

  /** Index entries (runs filed), for tests of what a value costs. */
  get entries(): number {
    let n = 0;
    for (const { runs } of this.widths.values()) for (const bucket of runs.values()) n += Array.isArray(bucket) ? bucket.length : 1;
    return n;
  }

  /**
   * Adds to `spans` the [start, end) offsets into `text` of what it shares with a spelling: a run a
   * hit is extended to, unit by unit, counts when it holds SECRET_WINDOW units or the whole spelling
   * (a short one only as a whole token).
   */
  collect(text: string, { cps, starts, escaped, count }: Decoded, spans: number[]): void {
    for (const [width, { pow, runs }] of this.widths) {
      if (width > count) continue;
      let h = hashUnits(cps, 0, width);
      // Units up to here are inside a run found already: a hit there needs no second look.
      let covered = 0;
      for (let u = 0; ; u++) {
        const found = u + width > covered ? runs.get(h & KEY_BITS) : undefined;
        if (found !== undefined) {
          const bucket = Array.isArray(found) ? found : [found];
          for (const { units, at, short } of bucket) {
            if (!sameUnits(units.subarray(at, at + width), cps, u)) continue;
            let before = 0;
            while (before < at && before < u && units[at - before - 1] === cps[u - before - 1]) before++;
            let after = width;
            while (at + after < units.length && u + after < count && units[at + after] === cps[u + after]) after++;
            const whole = before === at && at + after === units.length;
            if (!(whole || before + after >= SECRET_WINDOW) || (short && !isToken(text, starts, escaped, u - before, u + after))) continue;
            spans.push(starts[u - before]!, starts[u + after]!);
            covered = Math.max(covered, u + after);
          }
        }
        if (u + width >= count) break;
        h = (Math.imul(h - Math.imul(cps[u]!, pow), BASE) + cps[u + width]!) | 0;
      }
    }
  }
}

/** A short key counts only as a whole token: no raw letter or digit right before or after it. */
function isToken(text: string, starts: Int32Array, escaped: Uint8Array, from: number, to: number): boolean {
  if (from > 0 && !escaped[from - 1]) {
    const before = String.fromCodePoint(text.codePointAt(starts[from - 1]!)!);
    if (WORD_CHAR.test(before)) return false;
  }
  const after = starts[to]!;
  return after >= text.length || !WORD_CHAR.test(String.fromCodePoint(text.codePointAt(after)!));
}

/** `text` with every spelling of every secret of `indexes` replaced: decoded once, whatever their number. */
function scrubWith(text: string, indexes: readonly SecretIndex[]): string {
  if (text.length === 0 || indexes.every((index) => index.empty)) return text;
  const decoded = decode(text);
  const spans: number[] = [];
  for (const index of indexes) if (!index.empty) index.collect(text, decoded, spans);
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

function sameUnits(pattern: Units, units: Units, from: number): boolean {
  for (let k = 0; k < pattern.length; k++) if (pattern[k] !== units[from + k]) return false;
  return true;
}

/** Longest secret value the process-wide index files (a registry password, a gateway token); longer ones are not filed. */
export const MAX_REGISTERED_VALUE_CHARS = 8_192;
/**
 * Most characters every secret the process-wide index holds may add up to (each costs about
 * {@link SPELLING_FACTOR} times its length in spellings): 2,000 live clients' 512-character keys
 * fit four times over. Past it a key is not filed, and is still scrubbed by its own client.
 */
export const MAX_REGISTERED_TOTAL_CHARS = 4_000_000;

// What the process owns: every key a live client of this process holds, the gateway's tokens, and
// secret values its own configuration registers. Errors scrub themselves against these, so no
// surface can forget to; module-private and never exported, like the key inside the core. A secret
// is forgotten when the last holder of it is collected. Nothing a caller sends goes here (a
// pass-through key, a registry password, an env value): those are scrubbed by their call's or
// document's own {@link SecretScope}, so no caller changes how another caller's text is scrubbed.
const registered = new SecretIndex(MAX_REGISTERED_TOTAL_CHARS * SPELLING_FACTOR);
const release =
  typeof FinalizationRegistry === 'undefined' ? undefined : new FinalizationRegistry<string>((secret) => registered.remove(secret));

/** Longest value a {@link SecretScope} files: longer ones are filed by their first part, which a window of the value holds. */
export const MAX_SCOPE_VALUE_CHARS = 65_536;
/** Most characters the values of one {@link SecretScope} may add up to. */
export const MAX_SCOPE_TOTAL_CHARS = 262_144;

/** The indexes of each scope: module-private, so a scope's secrets are never read back out. */
const scopeIndexes = new WeakMap<SecretScope, SecretIndex>();

/**
 * The secrets one call or one gateway document sends (a registry password, an account secret's
 * value, env values): scrubbed from that call's errors and that document's answer, and from no
 * one else's. Bounded ({@link MAX_SCOPE_TOTAL_CHARS}), and gone with the call. Internal: it rides in
 * a call's options under {@link SECRETS}.
 */
export class SecretScope {
  private readonly minChars: number;

  /** `minChars`: shorter values are not filed (a gateway scrubs a whole answer, where `true` is no secret). */
  constructor(options: { readonly minChars?: number } = {}) {
    this.minChars = Math.max(1, options.minChars ?? 1);
    scopeIndexes.set(this, new SecretIndex(MAX_SCOPE_TOTAL_CHARS * SPELLING_FACTOR, MAX_PER_RUN));
  }

  /** Files `value` (a string of `minChars` or more; others are skipped): false past the scope's bound. */
  add(value: unknown): boolean {
    if (typeof value !== 'string' || value.length < this.minChars) return true;
    return scopeIndexes.get(this)!.add(value.length > MAX_SCOPE_VALUE_CHARS ? value.slice(0, MAX_SCOPE_VALUE_CHARS) : value);
  }

  /** Forgets `value` (filed with {@link add}). */
  remove(value: string): void {
    scopeIndexes.get(this)!.remove(value.length > MAX_SCOPE_VALUE_CHARS ? value.slice(0, MAX_SCOPE_VALUE_CHARS) : value);
  }

  get empty(): boolean {
    return scopeIndexes.get(this)!.empty;
  }

  /** `text` scrubbed of this scope's secrets and every secret the process owns, in one pass. */
  scrub(text: string): string {
    return scrubWith(text, [scopeIndexes.get(this)!, registered]);
  }
}

/** Where a call's options carry its {@link SecretScope} (a symbol, in no public type). */
export const SECRETS: unique symbol = Symbol('runpod-gql.secrets');

/**
 * Where a call's options carry the observer of its JSON answers: a gateway document's, which keeps
 * them to find the env values it read (a symbol, in no public type; see src/gateway/scrub.ts).
 */
export const ANSWERS_READ: unique symbol = Symbol('runpod-gql.answers-read');

/** The scope a call's options carry, if any. */
export function scopeOf(options: object | undefined): SecretScope | undefined {
  const scope = (options as { [SECRETS]?: unknown } | undefined)?.[SECRETS];
  return scope instanceof SecretScope ? scope : undefined;
}

/** Options of {@link createScrubber}. */
export interface ScrubberOptions {
  /**
   * Also scrub every secret registered in this process (live clients' keys, gateway tokens, account
   * secret values), in the same pass. Reading them adds nothing to them.
   * @default false
   */
  readonly registered?: boolean | undefined;
  /**
   * File the secrets in the process-wide index instead of an index of the scrubber's own, for as
   * long as the scrubber lives (a client's key: one copy of its spellings, not two; implies
   * `registered`). One the index cannot take (past its bound) is kept in the scrubber's own.
   * @default false
   */
  readonly register?: boolean | undefined;
  /** Also scrub the secrets of these scopes (read when each text is scrubbed: what they file later counts). */
  readonly scopes?: readonly SecretScope[] | undefined;
}

/** The indexes each scrubber reads, so one with a scope more is built without filing its secrets again. */
const scrubberIndexes = new WeakMap<(text: string) => string, readonly SecretIndex[]>();

/**
 * A scrubbing function for a fixed list of secrets (a key, a caller's key plus the gateway's own
 * tokens, …): every spelling of each, and every {@link SECRET_WINDOW}-character run of a longer
 * one, is replaced by `[REDACTED]`. Built once, linear in the text, and private to the caller:
 * the secrets are never added to the process-wide index, so nothing a caller brings changes how
 * another caller's text is scrubbed. Empty and undefined entries are skipped; a key over
 * {@link MAX_KEY_LENGTH} characters is refused at client creation, so it is skipped here too.
 */
export function createScrubber(secrets: string | undefined | readonly (string | undefined)[], options: ScrubberOptions = {}): (text: string) => string {
  const index = new SecretIndex();
  const filed: string[] = [];
  for (const secret of typeof secrets === 'string' || secrets === undefined ? [secrets] : secrets) {
    if (!secret || secret.length > MAX_KEY_LENGTH) continue;
    if (options.register && registered.add(secret)) filed.push(secret);
    else index.add(secret);
  }
  const indexes = [index, ...(options.registered || options.register ? [registered] : []), ...(options.scopes ?? []).map((scope) => scopeIndexes.get(scope)!)];
  if (indexes.length === 1 && index.empty) return (text) => text;
  const scrub = (text: string) => scrubWith(text, indexes);
  // Held by the scrubber, not by its client: a call still in flight when its client is collected
  // still scrubs the key.
  for (const secret of filed) release?.register(scrub, secret);
  scrubberIndexes.set(scrub, indexes);
  return scrub;
}

/** `scrub` (made by {@link createScrubber}) with `scope`'s secrets too, in the same pass; `scrub` itself without a scope. */
export function withScope(scrub: (text: string) => string, scope: SecretScope | undefined): (text: string) => string {
  if (!scope) return scrub;
  const indexes = [...(scrubberIndexes.get(scrub) ?? [registered]), scopeIndexes.get(scope)!];
  const scoped = (text: string) => scrubWith(text, indexes);
  scrubberIndexes.set(scoped, indexes);
  return scoped;
}

/** Registers a key to be scrubbed from every error for as long as `holder` (its client's core) lives. */
export function registerSecret(secret: string | undefined, holder?: object): void {
  // A longer key is refused at client creation; it is never indexed here.
  if (!secret || secret.length > MAX_KEY_LENGTH) return;
  if (registered.add(secret) && holder) release?.register(holder, secret);
}

/**
 * Registers a secret value the process owns (one its own configuration holds), like a key, for as
 * long as `holder` lives: the whole value, and every {@link SECRET_WINDOW}-character run of it, is
 * scrubbed wherever a server or proxy echoes it, however it was clipped. A value a caller sent
 * belongs in its call's {@link SecretScope} instead. Values over {@link MAX_REGISTERED_VALUE_CHARS},
 * or past the index's total bound, are not filed: false.
 */
export function registerSecretValue(value: string, holder?: object): boolean {
  if (!value) return true;
  if (value.length > MAX_REGISTERED_VALUE_CHARS || !registered.add(value)) return false;
  if (holder) release?.register(holder, value);
  return true;
}

/** The process-wide index's size: secrets filed, units held and runs filed (for tests of its bounds). */
export function registeredFootprint(): { secrets: number; units: number; entries: number } {
  return { secrets: registered.size, units: registered.units, entries: registered.entries };
}

/** `text` with every spelling of `secret` (or, by default, of every registered key) replaced. */
export function scrubSecret(text: string, secret?: string): string {
  return secret === undefined ? redactText(text) : createScrubber(secret)(text);
}

const REGISTERED = [registered];
/** `text` scrubbed of every registered key. */
export function redactText(text: string): string {
  return registered.empty ? text : scrubWith(text, REGISTERED);
}

/**
 * A copy of `value` with every registered key scrubbed from every string and property name,
 * cut at {@link MAX_REDACT_DEPTH}. Errors keep scrubbed copies of what they carry.
 */
export function redactValue<T>(value: T, scope?: CallScope): T {
  return redactAt(value, 0, new WeakMap(), scope ? (text) => scope.scrub(text) : redactText) as T;
}

type TextScrub = (text: string) => string;

function redactAt(value: unknown, depth: number, seen: WeakMap<object, unknown>, redactText: TextScrub): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return seen.get(value);
  if (depth >= MAX_REDACT_DEPTH) return '[TOO DEEP]';
  if (value instanceof Error) return redactError(value, depth, seen, redactText);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(redactAt(item, depth + 1, seen, redactText));
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = Object.create(proto);
  seen.set(value, out);
  // Defined, never assigned: a `__proto__` key stays a plain data property of the copy instead of
  // replacing its prototype (which would let a body inject `isAdmin` into every lookup).
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, redactText(k), { value: redactAt(v, depth + 1, seen, redactText), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A foreign error (a fetch failure, an abort reason) rebuilt with scrubbed text, its `code` kept. */
function redactError(err: Error, depth: number, seen: WeakMap<object, unknown>, redactText: TextScrub): Error {
  if ((err as { [SCRUBBED]?: unknown })[SCRUBBED]) return err;
  const copy = new Error(redactText(err.message), { cause: redactAt(err.cause, depth + 1, seen, redactText) });
  copy.name = err.name;
  copy.stack = redactText(err.stack ?? '');
  seen.set(err, Object.assign(copy, { code: (err as { code?: unknown }).code }));
  return copy;
}

/** The scope of the call each request summary names: an error built with it is scrubbed of that call's secrets too. */
const summaryScopes = new WeakMap<object, CallScope>();

/** Marks `summary` (a call's {@link RequestSummary}) as the call's whose secrets `scope` holds. */
export function withSummaryScope<T>(summary: T, scope: CallScope | undefined): T {
  // Not an object: a summary that could not be scrubbed, withheld as a string.
  if (scope && typeof summary === 'object' && summary !== null) summaryScopes.set(summary, scope);
  return summary;
}

/** The scope `summary` was marked with, if any. */
export function summaryScope(summary: unknown): CallScope | undefined {
  return typeof summary === 'object' && summary !== null ? summaryScopes.get(summary) : undefined;
}

// Every RunpodError scrubs through this redactor, and finds its call's scope here, from the moment
// it loads (see errors.ts, which does not import this module, so the page fetcher stays small).
installErrorScrubber({ text: (text, scope) => (scope ? scope.scrub(text) : redactText(text)), value: redactValue, scopeOf: summaryScope, withScope: withSummaryScope });

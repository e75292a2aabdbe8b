// Secrets in every spelling, whatever their length: a run of SECRET_WINDOW characters of a
// registered secret is scrubbed wherever it appears (a slice a server clipped, a piece of a long
// value), hex joins the spellings, every error text is scrubbed before it is clipped, and a
// scrubber made from a list of strings never touches the process-wide index.
import { inspect } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createRunpodClient, RunpodError, ValidationError } from '../../src/index.js';
import { createScrubber, redactText, REDACTED, registeredFootprint, registerSecret, registerSecretValue, scrubSecret, SecretScope, SECRET_WINDOW } from '../../src/transport/redact.js';
import { json, recordingFetch } from '../helpers.js';

/** A value of `length` characters with no run that occurs twice (so any leak is a slice of it). */
function secretValue(length: number, seed: string): string {
  const alphabet = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789_-';
  let out = '';
  let x = [...seed].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  while (out.length < length) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out += alphabet[(x >>> 8) % alphabet.length];
  }
  return out;
}

const hex = (s: string) => [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** Every view of an error a caller, a log or a crash report may print. */
function viewsOf(err: unknown): string {
  const views = [inspect(err, { depth: 20, showHidden: true }), JSON.stringify(err)];
  for (let e: unknown = err; e instanceof Error; e = e.cause) views.push(e.message, e.stack ?? '');
  return views.join('\n');
}

/** The first run of `width` characters of `value` found in `text`, or undefined. */
function runOf(value: string, text: string, width = SECRET_WINDOW): string | undefined {
  for (let at = 0; at + width <= value.length; at++) if (text.includes(value.slice(at, at + width))) return value.slice(at, at + width);
  return undefined;
}

describe('a long secret value echoed in a 422 leaves no run of it', () => {
  it('2,000 characters, echoed whole in the detail and the errors[]: no 32-character run survives (scrubbed before the detail is clipped)', async () => {
    const value = secretValue(2_000, 'long-422');
    const { fetch } = recordingFetch(() =>
      json({ title: 'Unprocessable', detail: `value ${value} is not allowed`, errors: [`$.value: ${value}`] }, { status: 422, headers: { 'content-type': 'application/problem+json' } }),
    );
    const rp = createRunpodClient({ apiKey: 'rpa_window_test_key_0123456789', fetch, maxRetries: 0 });
    let error: unknown;
    await rp.rest.secrets.create({ name: 'LONG_TOKEN', value }).catch((err: unknown) => (error = err));
    expect(error).toBeInstanceOf(ValidationError);
    const views = viewsOf(error);
    expect(views).toContain(REDACTED);
    expect(runOf(value, views)).toBeUndefined();
  });

  it('a slice of a registered value, cut anywhere and at least the window long, is scrubbed; 31 characters are not a slice that counts', () => {
    const value = secretValue(3_000, 'slices');
    // Registered as rp.rest.secrets registers a value it sends, held for this test.
    const holder = {};
    registerSecretValue(value, holder);
    for (const [at, length] of [[0, 32], [17, 40], [1_234, 500], [2_968, 32], [5, 2_995]] as const) {
      const slice = value.slice(at, at + length);
      const out = redactText(`before ${slice} after`);
      expect(out, `slice at ${at}, ${length} long`).toBe(`before ${REDACTED} after`);
    }
    expect(redactText(`x ${value.slice(100, 131)} y`)).toBe(`x ${value.slice(100, 131)} y`);
    expect(holder).toBeDefined();
  });
});

describe('hex joins the spellings', () => {
  it.each([
    ['lower case', (s: string) => hex(s)],
    ['upper case', (s: string) => hex(s).toUpperCase()],
  ])('the key echoed as %s hex is scrubbed from the error', async (_name, spell) => {
    const key = 'rpa_HEX_echo_key_0123456789abcdef';
    const { fetch } = recordingFetch(() => json({ error: `invalid key ${spell(key)}` }, { status: 400 }));
    const rp = createRunpodClient({ apiKey: key, fetch, maxRetries: 0 });
    let error: unknown;
    await rp.rest.pods.list().catch((err: unknown) => (error = err));
    expect(error).toBeInstanceOf(RunpodError);
    const views = viewsOf(error);
    expect(views.toLowerCase()).not.toContain(hex(key));
    expect(views).toContain(REDACTED);
  });

  it('a hex slice of a long value is scrubbed like any run of it', () => {
    const value = secretValue(600, 'hex-slice');
    const out = scrubSecret(`dump: ${hex(value.slice(200, 260)).toUpperCase()} end`, value.slice(0, 512));
    expect(out).toBe(`dump: ${REDACTED} end`);
  });
});

describe('a secret value holding line breaks, echoed in JSON', () => {
  it('is scrubbed whole: \\n, \\r and \\t escapes are read as the characters they stand for', () => {
    const value = 'line one of a certificate\nline two\r\n\tindented line three';
    expect(scrubSecret(`{"detail":${JSON.stringify(value)}}`, value)).toBe(`{"detail":"${REDACTED}"}`);
  });
});

describe('a scrubber made from a list of strings', () => {
  it('scrubs each of them, in every spelling, and adds nothing to the process-wide index', () => {
    const callerKey = 'rpa_CALLER_only_key_for_this_request_42';
    const token = 'gw_fixed_token_0123456789abcdefghij';
    const scrub = createScrubber([callerKey, undefined, '', token]);
    expect(scrub(`a ${callerKey} b ${encodeURIComponent(token)} c ${hex(callerKey)}`)).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED}`);
    // Nothing a caller brings changes how any other text is scrubbed.
    expect(redactText(`a ${callerKey} b`)).toBe(`a ${callerKey} b`);
    expect(scrubSecret(`a ${callerKey} b`)).toBe(`a ${callerKey} b`);
  });

  it('with { registered: true }, also scrubs what the process registered, in the same pass', () => {
    const registered = 'rpa_REGISTERED_by_a_live_client_0123';
    const holder = {};
    registerSecret(registered, holder);
    const scrub = createScrubber(['rpa_LISTED_key_9876543210_abcdefgh'], { registered: true });
    expect(scrub(`x rpa_LISTED_key_9876543210_abcdefgh y ${registered} z`)).toBe(`x ${REDACTED} y ${REDACTED} z`);
    expect(createScrubber(['rpa_LISTED_key_9876543210_abcdefgh'])(`y ${registered} z`)).toBe(`y ${registered} z`);
    expect(holder).toBeDefined();
  });
});

describe('a secret leaves the index it was filed in', () => {
  it('removed from a scope, one of several values sharing runs is no longer scrubbed, and the others still are', () => {
    const scope = new SecretScope();
    // Three values with a long run in common (the bucket holds them all) and a part of their own.
    const common = secretValue(40, 'shared-part');
    const values = ['one', 'two', 'three'].map((name) => `${common}${secretValue(40, name)}`);
    for (const v of values) scope.add(v);
    scope.remove(values[1]!);
    expect(scope.scrub(`a ${values[0]} b`)).toBe(`a ${REDACTED} b`);
    expect(scope.scrub(`a ${values[2]!.slice(40)} b`)).toBe(`a ${REDACTED} b`);
    expect(scope.scrub(`a ${values[1]!.slice(40)} b`)).toBe(`a ${values[1]!.slice(40)} b`);
    scope.remove(values[0]!);
    scope.remove(values[2]!);
    expect(scope.empty).toBe(true);
  });

  it("a client's key is filed once in the process-wide index, and leaves it when the client is collected", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const key = `rpa_${secretValue(200, 'collected-client')}`;
    const before = registeredFootprint();
    let rp: ReturnType<typeof createRunpodClient> | undefined = createRunpodClient({ apiKey: key, fetch: async () => json({}) });
    const filed = registeredFootprint();
    expect(filed.secrets).toBe(before.secrets + 1);
    expect(redactText(`x ${key.slice(50, 90)} y`)).toBe(`x ${REDACTED} y`);
    expect(rp).toBeDefined();
    rp = undefined;
    const echo = `x ${key.slice(50, 90)} y`;
    for (let i = 0; i < 20 && redactText(echo) !== echo; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Its spellings left with it (other keys of this file's collected holders may have gone too).
    expect(redactText(echo)).toBe(echo);
    expect(registeredFootprint().units).toBeLessThanOrEqual(filed.units - 7 * 200);
  });
});

describe('the cost of scrubbing does not grow with the number of live keys', () => {
  it('2,000 keys of 2,000 different shapes are all still found, in one error', () => {
    const holders = Array.from({ length: 2_000 }, (_, i) => ({ i }));
    const keys = holders.map((h, i) => {
      const key = `rpa_${secretValue(20 + (i % 480), `k${i}`)}`;
      registerSecret(key, h);
      return key;
    });
    const picked = [0, 1, 7, 499, 1_000, 1_999].map((i) => keys[i]!);
    const text = picked.map((k, n) => (n % 2 ? hex(k) : encodeURIComponent(k))).join(' | ');
    const out = redactText(text);
    expect(out.split(REDACTED)).toHaveLength(picked.length + 1);
    expect(holders).toHaveLength(2_000);
  });
});

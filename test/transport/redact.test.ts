import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/client.js';
import { ApiError, GraphQLResponseError, JobFailedError, RunpodError, ServerError, ValidationError } from '../../src/errors.js';
import { REDACTED, redactValue, registerSecret, scrubSecret } from '../../src/transport/redact.js';
import { captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

const KEY = `rpa_t/e"s+t 'é\\k~ey!*()_${'x'.repeat(8)}`;
registerSecret(KEY);

/** Every way a server could echo `key` back. */
function spellings(key: string): string[] {
  const enc = encodeURIComponent(key);
  const form = new URLSearchParams({ k: key }).toString().slice(2);
  const json = JSON.stringify(key).slice(1, -1);
  const jsonAscii = [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  const latin1 = new TextEncoder().encode(key).every((b) => b < 0x80);
  return [
    key,
    enc,
    enc.toLowerCase().replace(/%[0-9a-f]{2}/gi, (m) => m.toLowerCase()),
    encodeURIComponent(enc),
    form,
    enc.replace(/'/g, '%27').replace(/\(/g, '%28').replace(/\)/g, '%29').replace(/\*/g, '%2A').replace(/!/g, '%21'),
    json,
    json.replace(/\//g, '\\/'),
    jsonAscii,
    jsonAscii.toUpperCase().replace(/\\U/g, '\\u'),
    encodeURI(key),
    btoa(String.fromCharCode(...new TextEncoder().encode(`user:${key}`))),
    btoa(String.fromCharCode(...new TextEncoder().encode(key))),
    ...(latin1 ? [] : []),
  ];
}

describe('scrubbing every spelling of the key', () => {
  it.each(spellings(KEY).map((s, i) => [i, s]))('spelling %i is replaced', (_i, spelled) => {
    const out = scrubSecret(`before ${spelled} after`, KEY);
    expect(out).toContain(REDACTED);
    expect(out).toMatch(/^before /);
    // What is left of a base64 spelling is at most two bytes either side: never the key.
    expect(out).not.toContain(KEY);
    expect(out.length).toBeLessThan(`before ${spelled} after`.length);
  });

  it('scrubs a long key anywhere, but a very short key only outside words', () => {
    expect(scrubSecret('no workers available', 'k')).toBe('no workers available');
    expect(scrubSecret('key=k&x', 'k')).toBe(`key=${REDACTED}&x`);
    expect(scrubSecret('Bearer abcdefgh1234', 'abcdefgh1234')).toBe(`Bearer ${REDACTED}`);
    expect(scrubSecret('xxabcdefgh1234yy', 'abcdefgh1234')).toBe(`xx${REDACTED}yy`);
  });

  it('a key of one repeated character is scrubbed, and a near miss does not backtrack forever', () => {
    const key = `k${' '.repeat(40)}z`;
    expect(scrubSecret(`a ${key} b`, key)).toBe(`a ${REDACTED} b`);
    // 31 characters of it: under the window, so not a slice that counts.
    expect(scrubSecret(`a k${'+'.repeat(30)}y b`, key)).toBe(`a k${'+'.repeat(30)}y b`);
    // 32 of one repeated character tell nothing of a secret: such a run alone is left as it is.
    expect(scrubSecret(`a ${'+'.repeat(32)}y b`, key)).toBe(`a ${'+'.repeat(32)}y b`);
    expect(scrubSecret(`a k${'%20'.repeat(40)}z b`, key)).toBe(`a ${REDACTED} b`);
  });

  it('scrubs parsed values: strings, property names, arrays, headers; cuts 50k-deep values', () => {
    let deep: unknown = KEY;
    for (let i = 0; i < 50_000; i++) deep = { e: [deep] };
    const out = redactValue({ [KEY]: [KEY, 1, null], deep, headers: { 'x-echo': KEY } });
    const text = JSON.stringify(out);
    expect(text).not.toContain(KEY);
    expect(text).toContain('[TOO DEEP]');
    expect(text).toContain(`"x-echo":"${REDACTED}"`);
  });
});

describe('errors scrub themselves at the root', () => {
  const request = { method: 'GET', url: `https://x.test/?q=${encodeURIComponent(KEY)}`, operation: 'op' };

  it.each<[string, () => RunpodError]>([
    ['ApiError headers and body', () => new ApiError(`m ${KEY}`, { status: 500, body: { msg: KEY, nested: [{ v: `a${KEY}` }] }, headers: { 'content-location': `/x?api_key=${KEY}` }, request })],
    ['GraphQLResponseError data and errors', () => new GraphQLResponseError('m', { errors: [{ message: KEY, extensions: { code: 'X', echo: KEY } }], data: { pod: { env: [`K=${KEY}`] } }, status: 200 })],
    ['JobFailedError job', () => new JobFailedError({ endpointId: 'ep', job: { id: 'j', status: 'FAILED', error: { detail: KEY }, output: KEY } })],
    ['ValidationError body and errors', () => new ValidationError('f', KEY, { status: 422, errors: [KEY], body: KEY })],
    ['a foreign cause', () => new ServerError('m', { status: 500, cause: Object.assign(new Error(`connect ${KEY}`), { code: 'E' }) })],
  ])('%s', (_name, make) => {
    const err = make();
    for (const view of [JSON.stringify(err), inspect(err, { depth: 20, showHidden: true }), err.stack ?? '', String(err)]) {
      for (const spelled of spellings(KEY).slice(0, 3)) expect(view).not.toContain(spelled);
    }
  });

  it('JSON.stringify gives the name, the message and the public fields', () => {
    const err = new ApiError('boom', { status: 503, body: { a: 1 }, request: { method: 'GET', url: 'https://x.test/', operation: 'op' } });
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({ name: 'ApiError', message: 'boom', status: 503, body: { a: 1 }, request: { operation: 'op' } });
  });
});

describe('the core', () => {
  it('keeps no key in headers a server echoes, nor in any spelling in the body', async () => {
    const { fetch } = recordingFetch(() =>
      json(
        { error: `bad key ${TEST_API_KEY.toUpperCase()}`, echo: `\\u0072pa`, url: `/x?api_key=${encodeURIComponent(encodeURIComponent(TEST_API_KEY))}` },
        { status: 400, headers: { 'content-location': `/graphql?api_key=${TEST_API_KEY}`, 'www-authenticate': `Bearer realm="${TEST_API_KEY}"` } },
      ),
    );
    const client = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 0 });
    const err = await captureError<ApiError>(client.rest.pods.list());
    expect(err.headers?.['www-authenticate']).toBe(`Bearer realm="${REDACTED}"`);
    expect(JSON.stringify(err.body)).toContain(`api_key=${REDACTED}`);
  });

  it('a refused call option is a ValidationError naming the field, carrying the request, with nothing sent', async () => {
    const { fetch, calls } = recordingFetch(() => json([]));
    const client = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError<ValidationError>(client.rest.pods.list({}, { timeoutMs: Number.NaN }));
    expect(err.field).toBe('timeoutMs');
    expect(err.request?.operation).toBe('GET /pods');
    expect(calls).toEqual([]);
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({ name: 'ValidationError', field: 'timeoutMs', request: { method: 'GET', operation: 'GET /pods' } });
    expect(JSON.stringify(err)).toContain('must be a finite number');
  });

  it('refuses a key that cannot travel in a header, at client creation, without echoing it', () => {
    for (const apiKey of ['rpa_key\r\nx-evil: 1', 'ключ-12345678', ' rpa_key']) {
      let error: unknown;
      try {
        createRunpodClient({ apiKey, fetch: async () => json({}) });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe('apiKey');
      expect((error as Error).message).not.toContain(apiKey.trim().slice(0, 6));
    }
  });

  it('drops every spelling of the key from a cross-origin redirect target', async () => {
    const embedded = encodeURIComponent(`https://api.runpod.io/v2/pods/p?api_key=${encodeURIComponent(TEST_API_KEY)}`);
    const { fetch, calls } = recordingFetch((call, i) =>
      i === 0 ? new Response(null, { status: 302, headers: { location: `https://login.other/?redirect_url=${embedded}&k=${TEST_API_KEY}` } }) : json({ id: 'p' }),
    );
    const client = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    // A GET: a request with a body never follows a redirect to another origin.
    await client.rest.pods.get('p').catch(() => undefined);
    const hop = calls[1]!;
    expect(hop.url.origin).toBe('https://login.other');
    expect(hop.headers.get('authorization')).toBeNull();
    for (const spelled of spellings(TEST_API_KEY)) expect(decodeURIComponent(hop.url.href)).not.toContain(spelled);
    expect(hop.url.href).not.toContain(TEST_API_KEY);
    expect([...hop.url.searchParams.values()].join(' ')).toContain(REDACTED);
  });
});

describe('scrubbing that scales and cannot fail', () => {
  it('refuses a key over 512 characters without echoing it, and other clients keep their errors', () => {
    const apiKey = `rpa_${'k'.repeat(9_996)}`;
    let error: unknown;
    try {
      createRunpodClient({ apiKey, fetch: async () => json({}) });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('apiKey');
    expect((error as Error).message.length).toBeLessThan(200);
    expect((error as Error).message).not.toContain('kkkk');
    expect(new ServerError('still a server error', { status: 500 })).toBeInstanceOf(ServerError);
    expect(() => createRunpodClient({ apiKey: 'k'.repeat(512), fetch: async () => json({}) })).not.toThrow();
  });

  it('a key of 512 characters and a near miss of a megabyte scrub in one pass', () => {
    const key = `${'k'.repeat(511)}z`;
    const nearMiss = 'k'.repeat(1_000_000);
    expect(scrubSecret(nearMiss, key)).toBe(nearMiss);
    expect(scrubSecret(`a ${nearMiss}z b`, key)).toBe(`a ${'k'.repeat(1_000_000 - 511)}${REDACTED} b`);
  });

  it('every registered key is scrubbed, however many clients hold one', () => {
    const holders = Array.from({ length: 300 }, (_, i) => ({ i }));
    const keys = holders.map((h, i) => {
      const key = `rpa_many_${i}_${'q'.repeat(i % 37)}_end`;
      registerSecret(key, h);
      return key;
    });
    const text = keys.map((k, i) => (i % 2 ? encodeURIComponent(k) : k.toUpperCase())).join(' | ');
    const err = new ServerError(text, { status: 500, body: { all: text } });
    for (const key of keys) expect(JSON.stringify(err)).not.toContain(key);
    expect(holders.length).toBe(300);
  });

  it('a cause that cannot be read is withheld; the error keeps its class', () => {
    const cause = new Proxy({}, { ownKeys: () => { throw new RangeError('boom'); } });
    const err = new ServerError('m', { status: 503, cause, body: { a: 1 } });
    expect(err).toBeInstanceOf(ServerError);
    expect(err.status).toBe(503);
    expect(err.cause).toBe('[withheld: could not be scrubbed]');
  });

  it('a __proto__ key in a body stays data: nothing is injected into the copy', () => {
    const body = JSON.parse('{"__proto__":{"isAdmin":true},"a":{"__proto__":{"x":1}}}') as object;
    const err = new ApiError('m', { status: 400, body });
    const copy = err.body as Record<string, unknown>;
    expect(copy.isAdmin).toBeUndefined();
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect((copy.a as Record<string, unknown>).x).toBeUndefined();
  });
});

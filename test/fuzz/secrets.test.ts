import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { RunpodError } from '../../src/errors.js';
import { echoSpelling, fuzzClient, METHODS, FUZZ_TIMEOUT_MS, params, reportFigures, settleWithin, spellingsOf, viewsOf } from './harness.js';

/** Keys of every character class a header can carry: letters, digits, ASCII punctuation, space, Latin-1. */
const CLASSES: Record<string, string> = {
  alnum: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  punctuation: `!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`,
  space: ' ',
  latin1: 'éüßçñøÆÐÞ¡¿£¥§©®±µ¶·»ÿ',
};

const keyArb = fc
  .tuple(
    fc.subarray(Object.keys(CLASSES), { minLength: 1 }),
    fc.integer({ min: 8, max: 48 }),
    fc.infiniteStream(fc.nat()),
  )
  .map(([classes, length, picks]) => {
    const alphabet = classes.map((c) => CLASSES[c]).join('');
    const it = picks[Symbol.iterator]();
    let key = '';
    while (key.length < length) key += alphabet[it.next().value % alphabet.length];
    // A key cannot start or end with white space (it would not survive a header).
    return `k${key}z`;
  });

/**
 * Keys holding `%XX` escapes (the `%25XX` of an escaped `%` among them): once URL-encoded, `%41`
 * becomes `%2541`, which also reads as `A` escaped twice. Hex digits in either case.
 */
const percentKeyArb = fc
  .tuple(keyArb, fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom('25', '41', '2f', '2F', 'c3', 'C3%A9', 'e9', '00', '7e', '2525'), fc.stringMatching(/^[0-9a-fA-F]{2}$/))), { minLength: 1, maxLength: 4 }))
  .map(([key, escapes]) => {
    let out = key;
    for (const [at, hex] of escapes) {
      // Inside the key: its first and last characters stay as keyArb made them.
      const i = 1 + (at % (out.length - 1));
      out = `${out.slice(0, i)}%${hex}${out.slice(i)}`;
    }
    return out;
  });

type Echo = (key: string, spelled: string) => Response | Promise<Response> | 'throw';

/** The ways a server, a proxy or the network can hand the key back. */
const ECHOES: Record<string, Echo> = {
  'error body': (_k, s) => Response.json({ error: `bad key ${s}`, detail: s, errors: [s], nested: { [s]: [{ v: s }] } }, { status: 400 }),
  'auth failure': (_k, s) => Response.json({ error: `key ${s} disabled` }, { status: 401, headers: { 'www-authenticate': `Bearer error="invalid_token" token="${s}"` } }),
  'headers echo URL': (_k, s) => Response.json({ error: 'x' }, { status: 500, headers: { 'content-location': `/graphql?api_key=${s}`, 'x-request-url': `https://x/?k=${s}` } }),
  'problem 422': (_k, s) => Response.json({ title: 'bad', detail: `key ${s}`, errors: [`$.apiKey: ${s}`] }, { status: 422, headers: { 'content-type': 'application/problem+json' } }),
  'html page': (_k, s) => new Response(`<html><body>login ${s}</body></html>`, { status: 502, headers: { 'content-type': 'text/html' } }),
  'graphql errors and data': (_k, s) => Response.json({ errors: [{ message: `no ${s}`, extensions: { code: 'X', echo: s } }], data: { myself: { id: s, pods: [] } } }),
  'graphql 200 deep partial': (_k, s) => Response.json({ errors: [{ message: 'partial', path: [s] }], data: { pod: { env: [`KEY=${s}`] } } }),
  'job failed': (_k, s) => Response.json({ id: 'j', status: 'FAILED', error: `worker saw ${s}`, output: { s } }),
  'wrong shape 200': (_k, s) => Response.json({ unexpected: s, id: 5 }),
  'not json 200': (_k, s) => new Response(`oops ${s}`, { status: 200, headers: { 'content-type': 'text/plain' } }),
  'rate limited': (_k, s) => Response.json({ error: `slow down ${s}` }, { status: 429, headers: { 'retry-after': '3600' } }),
  'request id echo': (_k, s) => Response.json({ error: 'gone' }, { status: 404, headers: { 'x-request-id': `r-${s}`, 'x-runpod-worker-id': `w-${s}` } }),
  'request id echo 200': (_k, s) => Response.json({ id: 'p1', status: 'COMPLETED', data: { myself: { id: 'u' } } }, { headers: { 'x-request-id': `r-${s}`, 'x-runpod-worker-id': `w-${s}`, ratelimit: `"minute";r=1;t=1, "${s}";r=2;t=2` } }),
  'connection failure': () => 'throw',
};

let errorObjects = 0;
let leaks = 0;
let logLines = 0;
let logLeaks = 0;
const keysSeen = new Set<string>();

afterAll(() => {
  reportFigures('no spelling of the key survives in any field of any error', {
    'error objects': errorObjects,
    'distinct keys': keysSeen.size,
    'spellings checked per key (e.g.)': spellingsOf('rpa_K3y!"é z/\\x').length,
    'keys leaked': leaks,
    'log lines read (debug)': logLines,
    'log lines leaking a key': logLeaks,
  });
});

/** One case of the key property: `method` meets `echoName`, the key spelled its `spelling`th way; errors and debug logs are read. */
async function keyEchoCase(key: string, method: (typeof METHODS)[number], echoName: string, spelling: number): Promise<void> {
  keysSeen.add(key);
  const spelled = echoSpelling(key, spelling);
  const echo = ECHOES[echoName]!;
  // Every line the client logs at its most talkative, with its fields, is read for the key too.
  const logged: unknown[][] = [];
  const keep = (...line: unknown[]) => void logged.push(line);
  const { client } = fuzzClient(async (url) => {
    const answer = await echo(key, spelled);
    if (answer === 'throw') {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ECONNRESET ${url.href} ${spelled}`), { code: 'ECONNRESET' }) });
    }
    return answer;
  }, { apiKey: key, logLevel: 'debug', logger: { error: keep, warn: keep, info: keep, debug: keep } });
  const settled = await settleWithin(() => method.call(client, 'p1'));
  logLines += logged.length;
  const logViews = logged.flatMap((line) => viewsOf(line)).join('\n');
  const inLogs = spellingsOf(key).filter((s) => logViews.includes(s));
  if (inLogs.length) logLeaks++;
  expect(inLogs, `log lines of ${method.name} × ${echoName}`).toEqual([]);
  if (settled.kind !== 'rejected') return;
  errorObjects++;
  const { error } = settled;
  if (!(error instanceof RunpodError)) return; // counted by the malformed-answer tests
  const views = viewsOf(error).join('\n');
  const found = spellingsOf(key).filter((s) => views.includes(s));
  if (found.length) leaks++;
  expect(found, `${method.name} × ${echoName}`).toEqual([]);
}

describe('no spelling of the key survives in any field of any error', () => {
  it('property: any key, any method, any echo, any spelling', async () => {
    await fc.assert(
      fc.asyncProperty(keyArb, fc.constantFrom(...METHODS), fc.constantFrom(...Object.keys(ECHOES)), fc.nat(), keyEchoCase),
      params(400),
    );
    // The log half of the property read real lines, not an empty log.
    expect(logLines).toBeGreaterThan(400);
  }, FUZZ_TIMEOUT_MS);
});

describe('a key holding %XX escapes: no spelling survives in errors or logs', () => {
  it('property: any such key, any method, any echo, any spelling', async () => {
    await fc.assert(fc.asyncProperty(percentKeyArb, fc.constantFrom(...METHODS), fc.constantFrom(...Object.keys(ECHOES)), fc.nat(), keyEchoCase), params(200));
  }, FUZZ_TIMEOUT_MS);
});

describe('no spelling of the key reaches onResponse', () => {
  it('property: any key, any echo, on REST v2, GraphQL and serverless', async () => {
    let answers = 0;
    await fc.assert(
      fc.asyncProperty(keyArb, fc.constantFrom('rest', 'graphql', 'serverless'), fc.constantFrom(...Object.keys(ECHOES).filter((e) => e !== 'connection failure')), fc.nat(), async (key, surface, echoName, spelling) => {
        const spelled = echoSpelling(key, spelling);
        const { client } = fuzzClient(async () => (await ECHOES[echoName]!(key, spelled)) as Response, { apiKey: key });
        const infos: unknown[] = [];
        const options = { onResponse: (info: unknown) => void infos.push(info) };
        const run =
          surface === 'rest' ? () => client.rest.pods.get('p1', options) : surface === 'graphql' ? () => client.graphql.request('query Q { myself { id } }', undefined, options) : () => client.endpoint('ep1').job('j1').status(options);
        await settleWithin(run);
        answers += infos.length;
        const views = viewsOf(infos).join('\n');
        expect(spellingsOf(key).filter((s) => views.includes(s)), `${surface} × ${echoName}`).toEqual([]);
      }),
      params(150),
    );
    expect(answers).toBeGreaterThan(100);
  }, FUZZ_TIMEOUT_MS);
});

describe('the account digest a shared pacing store sees', () => {
  it('names the key without any spelling of it, and is the same for the same key', async () => {
    const { pacingScope } = await import('../../src/transport/pacing.js');
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 8, maxLength: 64 }), async (key) => {
        const scope = await pacingScope(key);
        expect(scope).toMatch(/^[0-9a-f]{32}$/);
        expect(await pacingScope(key)).toBe(scope);
        for (const spelling of spellingsOf(key)) if (spelling.length >= 8) expect(scope).not.toContain(spelling);
      }),
      params(200),
    );
  }, FUZZ_TIMEOUT_MS);
});

const SECRET_ECHOES = ['error body', 'problem 422', 'html page', 'headers echo URL', 'rate limited', 'connection failure', 'wrong shape 200'];

/** A server that answers `spelled` the `echoName` way (a failed connection carries it in its message). */
function echoing(secret: string, echoName: string, spelled: string) {
  return async (url: URL) => {
    const answer = await ECHOES[echoName]!(secret, spelled);
    if (answer === 'throw') throw new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ECONNRESET ${url.href} ${spelled}`), { code: 'ECONNRESET' }) });
    return answer;
  };
}

/** A secret value sent by create or update to a server that echoes `spelled`: how the call settled. */
function sendValue(value: string, echoName: string, spelled: string, update: boolean) {
  const { client } = fuzzClient(echoing(value, echoName, spelled));
  return settleWithin(update ? () => client.rest.secrets.update('s1', { value }) : () => client.rest.secrets.create({ name: 'TOKEN', value }));
}

/** One case of the secret value property: the value sent by create or update, echoed back spelled its `spelling`th way. */
async function secretValueCase(value: string, echoName: string, spelling: number, update: boolean): Promise<void> {
  const settled = await sendValue(value, echoName, echoSpelling(value, spelling), update);
  if (settled.kind !== 'rejected' || !(settled.error instanceof RunpodError)) return;
  errorObjects++;
  const views = viewsOf(settled.error).join('\n');
  const found = spellingsOf(value).filter((s) => views.includes(s));
  if (found.length) leaks++;
  expect(found, echoName).toEqual([]);
}

describe('no spelling of an account secret value survives in any error', () => {
  it('property: any value, any echo, any spelling (rp.rest.secrets.create and update)', async () => {
    await fc.assert(
      fc.asyncProperty(keyArb, fc.constantFrom(...SECRET_ECHOES), fc.nat(), fc.boolean(), secretValueCase),
      params(200),
    );
  }, FUZZ_TIMEOUT_MS);
});

describe('an account secret value holding %XX escapes: no spelling survives in any error', () => {
  it('property: any such value, any echo, any spelling', async () => {
    await fc.assert(fc.asyncProperty(percentKeyArb, fc.constantFrom(...SECRET_ECHOES), fc.nat(), fc.boolean(), secretValueCase), params(150));
  }, FUZZ_TIMEOUT_MS);
});

/** Gateway tokens: any Bearer token (RFC 6750's b64token), 16 or more characters. */
const tokenArb = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9\-._~+/]{16,40}={0,2}$/), fc.constantFrom('read', 'write'))
  .map(([token, scope]) => ({ token: `t${token}`, scope: scope as 'read' | 'write' }));

let gatewayAnswers = 0;
let gatewayLeaks = 0;
afterAll(() => {
  reportFigures('no spelling of a gateway token or the upstream key survives in any byte of a gateway answer', {
    'answers checked': gatewayAnswers,
    'secrets leaked': gatewayLeaks,
  });
});

describe('no spelling of a gateway token or the upstream key survives in any byte of a gateway answer', () => {
  it('property: any token, any upstream echo of both secrets, any request', async () => {
    const { createGateway } = await import('../../src/gateway/index.js');
    await fc.assert(
      fc.asyncProperty(keyArb, tokenArb, fc.constantFrom(...Object.keys(ECHOES)), fc.nat(), fc.constantFrom('query', 'mutation', 'bad', 'unknown-token'), fc.constantFrom('graphql', 'rest') as fc.Arbitrary<'graphql' | 'rest'>, async (key, { token, scope }, echoName, spelling, kind, upstream) => {
        const echo = ECHOES[echoName]!;
        const gateway = createGateway({
          tokens: [{ scope, token }],
          upstream,
          limits: { rate: false },
          client: {
            apiKey: key,
            graphqlUrl: 'http://127.0.0.1:9/graphql',
            restUrl: 'http://127.0.0.1:9/v2',
            maxRetries: 0,
            rateLimits: false,
            // The worst upstream: it echoes the key and the token, each in some spelling.
            fetch: async (url) => {
              const answer = await echo(key, `${echoSpelling(key, spelling)} ${echoSpelling(token, spelling + 1)}`);
              if (answer === 'throw') throw new TypeError('fetch failed', { cause: new Error(`connect ECONNRESET ${String(url)} ${echoSpelling(token, spelling)}`) });
              return answer;
            },
          },
        });
        const query = kind === 'mutation' ? 'mutation { podStop(input: { podId: "p1" }) { id } }' : kind === 'bad' ? `{ myself { nope${echoSpelling(token, spelling)} } }` : '{ myself { id email } }';
        const response = await gateway.fetch(new Request('http://127.0.0.1/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${kind === 'unknown-token' ? `${token}x` : token}` },
          body: JSON.stringify({ query }),
        }));
        gatewayAnswers++;
        const bytes = `${response.status}\n${JSON.stringify([...response.headers])}\n${await response.text()}`;
        const found = [...spellingsOf(key), ...spellingsOf(token)].filter((s) => bytes.includes(s));
        if (found.length) gatewayLeaks++;
        expect(found, `${echoName} × ${kind} × ${upstream}`).toEqual([]);
      }),
      params(100),
    );
  }, FUZZ_TIMEOUT_MS);
});

describe("the gateway's per-caller rate: what its store sees", () => {
  it('property: one bucket per caller, named by a digest with no spelling of the token, however many requests and in any order', async () => {
    const { createGateway } = await import('../../src/gateway/index.js');
    const { memoryPacingStore, pacingScope } = await import('../../src/transport/pacing.js');
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(tokenArb, { minLength: 1, maxLength: 3, selector: (t) => t.token }), fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), async (tokens, order) => {
        const asked: string[] = [];
        const gateway = createGateway({
          tokens,
          limits: { rate: { requests: 1_000, intervalMs: 60_000 } },
          rateStore: { bucket: (scope, key, limit) => (asked.push(`${scope} ${key}`), memoryPacingStore.bucket(scope, key, limit)) },
          // Nothing reaches the upstream: every document here fails validation in the gateway.
          client: { apiKey: 'rpa_rate_store_key_0123456789', restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql', fetch: () => Promise.reject(new Error('no upstream here')) },
        });
        const callers = order.map((n) => tokens[n % tokens.length]!.token);
        // At once: the first requests of a caller race for its bucket.
        const statuses = await Promise.all(
          callers.map(async (token) => {
            const response = await gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{"query":"{ nope }"}' }));
            await response.text();
            return response.status;
          }),
        );
        expect(statuses.every((s) => s === 400)).toBe(true);
        const used = [...new Set(callers)];
        expect(asked.sort()).toEqual((await Promise.all(used.map(async (t) => `${await pacingScope(t)} gateway:caller`))).sort());
        for (const token of used) for (const spelling of spellingsOf(token)) if (spelling.length >= 8) expect(asked.join('\n')).not.toContain(spelling);
      }),
      params(60),
    );
  }, FUZZ_TIMEOUT_MS);
});

// ---- Secrets of any length, in every spelling, whole or sliced (issue 37, Deliver 6) ----

const WINDOW = 32;
const hexOf = (s: string) => [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, '0')).join('');
const unicodeEscapes = (s: string, units: string[]) => units.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
/**
 * Every spelling of a secret a server may echo: the harness's, plus hex in both cases. `\uXXXX`
 * is written per UTF-16 unit, as JSON does (the harness writes one escape per code point, which for
 * an emoji is not the secret at all).
 */
const secretSpellings = (s: string) => [
  ...spellingsOf(s).filter((spelled) => spelled !== unicodeEscapes(s, [...s]) || s.length === [...s].length),
  unicodeEscapes(s, s.split('')),
  hexOf(s),
  hexOf(s).toUpperCase(),
];

/** Values of 1 to 5,000 characters of any text: ASCII, Latin-1, other scripts, emoji, line breaks. */
const VALUE_CLASSES = { ...CLASSES, unicode: 'ЖжΩλ中文한글ǂ😀🔑', breaks: '\n\t\r' };
const anyValueArb = fc
  .tuple(fc.subarray(Object.keys(VALUE_CLASSES), { minLength: 1 }), fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 1, max: 5_000 })), fc.infiniteStream(fc.nat()))
  .map(([classes, length, picks]) => {
    const alphabet = [...classes.map((c) => VALUE_CLASSES[c as keyof typeof VALUE_CLASSES]).join('')];
    const it = picks[Symbol.iterator]();
    // A short value starts with a letter no message of this package holds, so finding it in an
    // error can only mean it leaked.
    let value = length < 8 ? 'ǂ' : '';
    while (value.length < length) value += alphabet[it.next().value % alphabet.length];
    return value;
  });

/** True when `needle` is in `text` with no letter or digit right before or after it (how short secrets are matched). */
function hasToken(text: string, needle: string): boolean {
  const word = /[\p{L}\p{N}]/u;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    const before = at > 0 ? String.fromCodePoint(text.codePointAt(at - 1)!) : '';
    const after = text.slice(at + needle.length, at + needle.length + 2);
    if (!word.test(before) && !(after && word.test(String.fromCodePoint(after.codePointAt(0)!)))) return true;
  }
  return false;
}

/**
 * What of `value` is in `views`: a whole spelling (a short value: raw, as a token), or a run of
 * WINDOW characters in any character-wise spelling (raw, percent, JSON, hex), checked every 4
 * characters, so any run of WINDOW + 3 is seen. A run of one repeated character tells nothing of
 * a secret and is not scrubbed (src/transport/README.md): it is not counted.
 */
function leaked(views: string, value: string): string[] {
  if ([...value].length < 8) return hasToken(views, value) ? [value] : [];
  const found = secretSpellings(value).filter((s) => views.includes(s));
  const lower = views.toLowerCase();
  const chars = [...value];
  for (let at = 0; at + WINDOW <= chars.length; at += 4) {
    const run = chars.slice(at, at + WINDOW);
    if (run.every((c) => c === run[0])) continue;
    const text = run.join('');
    for (const spelled of [text, encodeURIComponent(text), JSON.stringify(text).slice(1, -1)]) if (views.includes(spelled)) found.push(spelled);
    if (lower.includes(hexOf(text))) found.push(`hex of ${text}`);
  }
  return found;
}

/** The echo of `value`: whole or a slice of at least WINDOW characters, spelled its `spelling`th way. */
function echoOf(value: string, spelling: number, slice: [number, number]): string {
  const chars = [...value];
  const whole = chars.length < WINDOW || slice[0] % 3 === 0;
  const length = WINDOW + (slice[1] % Math.max(1, chars.length - WINDOW + 1));
  const start = slice[0] % Math.max(1, chars.length - length + 1);
  const part = whole ? value : chars.slice(start, start + length).join('');
  const all = secretSpellings(part);
  return all[spelling % all.length]!;
}

let valueCases = 0;
let valueLeaks = 0;
afterAll(() => {
  reportFigures('no spelling or slice of a secret value of 1 to 5,000 characters survives in any error', { cases: valueCases, leaks: valueLeaks });
});

describe('secret values of any length: no spelling, and no slice of the window width, in any error', () => {
  it('property: values of 1 to 5,000 characters of any text, echoed whole or sliced, in any spelling including hex', async () => {
    await fc.assert(
      fc.asyncProperty(anyValueArb, fc.constantFrom(...SECRET_ECHOES), fc.nat(), fc.tuple(fc.nat(), fc.nat()), fc.boolean(), async (value, echoName, spelling, slice, update) => {
        const settled = await sendValue(value, echoName, echoOf(value, spelling, slice), update);
        if (settled.kind !== 'rejected' || !(settled.error instanceof RunpodError)) return;
        valueCases++;
        const found = leaked(viewsOf(settled.error).join('\n'), value);
        if (found.length) valueLeaks++;
        expect(found, `${echoName}, ${[...value].length} characters`).toEqual([]);
      }),
      params(80),
    );
    expect(valueCases).toBeGreaterThan(40);
  }, FUZZ_TIMEOUT_MS);
});

/** Keys of arbitrary text: whatever is refused at creation is refused without being echoed. */
const arbitraryKeyArb = fc.oneof(fc.string({ minLength: 1, maxLength: 80, unit: 'binary' }), fc.string({ minLength: 1, maxLength: 600 }), keyArb.map((k) => `${k}${k}${k}`));

describe('keys of arbitrary text never leak', () => {
  it('property: refused at creation without an echo, or scrubbed from every error in every spelling (hex and slices included)', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(arbitraryKeyArb, fc.constantFrom(...Object.keys(ECHOES)), fc.nat(), fc.tuple(fc.nat(), fc.nat()), async (key, echoName, spelling, slice) => {
        const spelled = echoOf(key, spelling, slice);
        let made: ReturnType<typeof fuzzClient>;
        try {
          made = fuzzClient(echoing(key, echoName, spelled), { apiKey: key });
        } catch (err) {
          expect(err).toBeInstanceOf(RunpodError);
          if (key.trim().length >= 8) expect(leaked(viewsOf(err).join('\n'), key.trim())).toEqual([]);
          return;
        }
        accepted++;
        const settled = await settleWithin(() => made.client.rest.pods.get('p1'));
        // A key of a few characters (`:`, `a1`) is scrubbed as a whole token, but an error's own
        // words and punctuation may spell it too: it is counted from 8 characters on.
        if (settled.kind !== 'rejected' || !(settled.error instanceof RunpodError) || key.length < 8) return;
        const found = leaked(viewsOf(settled.error).join('\n'), key);
        expect(found, echoName).toEqual([]);
      }),
      params(150),
    );
    expect(accepted).toBeGreaterThan(20);
  }, FUZZ_TIMEOUT_MS);
});

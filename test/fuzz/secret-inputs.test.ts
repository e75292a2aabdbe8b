// Issue 43, cause 1, as properties: a secret input one caller sends (a registry password as a
// variable or a literal, an env value) never reaches its own answer in any spelling, and never
// changes another caller's; an env value a document READ (a pod's, returned with it) never reaches
// its answer through a later upstream error or request id (item 5); what the process-wide index
// holds per value is bounded and linear.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/index.js';
import { MAX_REGISTERED_VALUE_CHARS, registeredFootprint, registerSecretValue } from '../../src/transport/redact.js';
import { counted, echoSpelling, FUZZ_TIMEOUT_MS, params, spellingsOf } from './harness.js';

const A = 'gw-fuzz-caller-A-0123456789abcdef';
const B = 'gw-fuzz-caller-B-0123456789abcdef';

/** Values a caller may send: any text of 8 or more characters, or one built of a repeated piece. */
const valueArb = fc.oneof(
  fc.string({ minLength: 8, maxLength: 300, unit: 'grapheme' }),
  fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.integer({ min: 2, max: 200 })).map(([piece, n]) => piece.repeat(n)).filter((v) => v.length >= 8),
);

describe("secret inputs across callers: never in the sender's answer, never in another's", () => {
  it('property: any value, sent as a password (variable or literal) or env value, echoed in any spelling', async () => {
    await fc.assert(
      fc.asyncProperty(
        valueArb,
        fc.constantFrom('variable', 'literal', 'env'),
        fc.nat(),
        counted('secret-inputs-across-callers', async (value, how, spelling) => {
          const echo = echoSpelling(value, spelling);
          const pod = { id: 'p1', name: value, status: 'RUNNING', image: 'img', env: {}, gpu: { id: 'NVIDIA RTX A4000', count: 1 }, createdAt: '2026-11-28T00:00:00Z' };
          const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
            const url = new URL(String(input));
            if (init?.method === 'POST') return Response.json({ title: 'Unprocessable', status: 422, detail: `refused ${echo}` }, { status: 422, headers: { 'content-type': 'application/problem+json', 'x-request-id': `r-${echo}`.slice(0, 150) } });
            if (url.pathname.endsWith('/pods')) return Response.json({ pods: [pod], pagination: { nextCursor: null, hasNextPage: false } });
            return Response.json({ error: 'not found' }, { status: 404 });
          };
          const gateway = createGateway({
            tokens: `write:${A},write:${B}`,
            limits: { rate: false },
            client: { apiKey: 'rpa_fuzz_secret_inputs_KEY_0123456789', restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql', maxRetries: 0, rateLimits: false, fetch },
          });
          const ask = (token: string, query: string, variables?: unknown) =>
            gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) })).then((r) => r.text());
          const before = await ask(B, '{ myself { pods { id name } } }');
          const sent =
            how === 'variable'
              ? await ask(A, 'mutation($i: SaveRegistryAuthInput) { saveRegistryAuth(input: $i) { id } }', { i: { name: 'n', username: 'u', password: value } })
              : how === 'literal'
                ? await ask(A, `mutation { saveRegistryAuth(input: { name: "n", username: "u", password: ${JSON.stringify(value)} }) { id } }`)
                : await ask(A, 'mutation($i: SaveTemplateInput) { saveTemplate(input: $i) { id } }', { i: { name: 't', imageName: 'img', containerDiskInGb: 5, env: [{ key: 'HF_TOKEN', value }] } });
          const strip = (text: string) => text.replace(/"requestIds":\{[^}]*\}/, '');
          const found = spellingsOf(value).filter((s) => s.length >= 8 && strip(sent).includes(s));
          expect(found, how).toEqual([]);
          expect(strip(await ask(B, '{ myself { pods { id name } } }'))).toBe(strip(before));
        }),
      ),
      params(40),
    );
  }, FUZZ_TIMEOUT_MS);
});

describe('values read: an env value a document read never reaches its answer through upstream details', () => {
  it('property: any env value of a pod, echoed in any spelling by a later 4xx/5xx and its x-request-id (or by the id of a later 200 alone), for a write and a read token', async () => {
    await fc.assert(
      fc.asyncProperty(
        valueArb,
        fc.constantFrom(200, 400, 404, 422, 500, 503),
        fc.nat(),
        fc.constantFrom('{ a: pod(input: { podId: "p1" }) { id name } b: pod(input: { podId: "p2" }) { id } }', '{ myself { pods { id } } b: pod(input: { podId: "p2" }) { id } }'),
        counted('values-read-in-upstream-details', async (value, status, spelling, query) => {
          const echo = echoSpelling(value, spelling);
          const pod = { id: 'p1', name: 'env-pod', status: 'RUNNING', image: 'img', env: { MODEL: value }, gpu: { id: 'NVIDIA RTX A4000', count: 1 }, createdAt: '2026-11-28T00:00:00Z' };
          const fetch = async (input: RequestInfo | URL): Promise<Response> => {
            const url = new URL(String(input));
            if (url.pathname.endsWith('/pods/p1')) return Response.json(pod);
            if (url.pathname.endsWith('/pods')) return Response.json({ pods: [pod], pagination: { nextCursor: null, hasNextPage: false } });
            // 200: no error at all, the echo in the request id alone.
            if (status === 200) return Response.json({ ...pod, id: 'p2', env: {} }, { headers: { 'x-request-id': `r-${echo}`.slice(0, 150) } });
            return Response.json({ title: 'failed', status, detail: `MODEL=${echo}` }, { status, headers: { 'content-type': 'application/problem+json', 'x-request-id': `r-${echo}`.slice(0, 150) } });
          };
          const gateway = createGateway({
            tokens: `write:${A},read:${B}`,
            limits: { rate: false },
            client: { apiKey: 'rpa_fuzz_values_read_KEY_0123456789', restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql', maxRetries: 0, rateLimits: false, fetch },
          });
          for (const token of [A, B]) {
            const text = await gateway
              .fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query }) }))
              .then((r) => r.text());
            // Request ids included: an upstream id is the echo's second home.
            const found = spellingsOf(value).filter((s) => s.length >= 8 && text.includes(s));
            expect(found, token === A ? 'write' : 'read').toEqual([]);
          }
        }),
      ),
      params(40),
    );
  }, FUZZ_TIMEOUT_MS);
});

describe('memory per registered value', () => {
  it('property: the process-wide index holds a bounded number of units and runs per value, whatever its pattern', () => {
    const holders: object[] = [];
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 2_000 }),
          fc.tuple(fc.string({ minLength: 1, maxLength: 9 }), fc.integer({ min: 1, max: 900 })).map(([p, n]) => p.repeat(n)),
          fc.integer({ min: MAX_REGISTERED_VALUE_CHARS + 1, max: MAX_REGISTERED_VALUE_CHARS + 50 }).map((n) => 'x'.repeat(n)),
        ),
        counted('memory-per-registered-value', (value) => {
          const before = registeredFootprint();
          const holder = {};
          holders.push(holder);
          const filed = registerSecretValue(value, holder);
          const after = registeredFootprint();
          if (value.length > MAX_REGISTERED_VALUE_CHARS) {
            expect(filed).toBe(false);
            expect(after).toEqual(before);
            return;
          }
          const bytes = new TextEncoder().encode(value).length;
          const units = after.units - before.units;
          // As written, base64 at three alignments, hex, and at most 7 decoded forms of its own escapes.
          expect(units).toBeLessThanOrEqual(8 * value.length + 4 * bytes + 2 * bytes + 16);
          // One run per 8 units of each spelling, and the last of each.
          expect(after.entries - before.entries).toBeLessThanOrEqual(Math.ceil(units / 8) + 12);
        }),
      ),
      params(150),
    );
    expect(holders.length).toBeGreaterThan(0);
  });
});

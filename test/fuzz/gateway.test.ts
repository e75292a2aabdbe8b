// The gateway's edge under hostile input (issue 37): pass-through "keys" of any text, documents
// whose aliases and spreads nest any way, any Host header, and any value for its new options.
// Each case is checked against a model; no answer is ever a 500, and no option a TypeError.
import fc from 'fast-check';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/index.js';
import { checkShape, resolveLimits } from '../../src/gateway/limits.js';
import { Refusal } from '../../src/gateway/protocol.js';
import { withoutRequestIds } from '../gateway/harness.js';
import { counted, FUZZ_TIMEOUT_MS, params, spellingsOf } from './harness.js';

const OWNER_KEY = 'rpa_FUZZOWNER0123456789ABCDEFGHIJKLMNOPQRSTU';
const OWNER_ANSWER = { data: { myself: { id: 'user-1', pods: [{ id: 'pod-1', name: 'errors' }, { id: 'pod-2', name: 'train "data": run' }, { id: 'pod-3', name: 'rpa_tenant_pod_name_0123456789' }] } } };
const QUERY = '{ myself { id pods { id name } } }';

describe("fuzz: pass-through keys never change another caller's answer", () => {
  // One gateway for the whole run: whatever a stranger's key leaves behind stays for the next case.
  const gateway = createGateway({
    passThroughKeys: true,
    upstream: 'graphql',
    limits: { rate: false, refusedKeys: false },
    client: {
      graphqlUrl: 'http://127.0.0.1:9/graphql',
      restUrl: 'http://127.0.0.1:9/v2',
      maxRetries: 0,
      rateLimits: false,
      fetch: async (_input, init) => {
        const key = new Headers(init?.headers).get('authorization')?.slice(7) ?? '';
        if (key === OWNER_KEY) return Response.json(OWNER_ANSWER);
        // A refusal that echoes the key: the stranger's own answer must not carry it back.
        return new Response(JSON.stringify({ errors: [{ message: `Unauthorized: ${key}` }] }), { status: 401, headers: { 'content-type': 'application/json' } });
      },
    },
  });
  /** A header can carry only Latin-1 without CR, LF or NUL: any other key goes in the query string. */
  const headerSafe = (key: string) => /^[^\r\n\0\u0100-\uffff]*$/.test(key);
  const ask = (key: string, asked: 'bearer' | 'query', clientAddress: string, via = headerSafe(key) ? asked : 'query') =>
    gateway.fetch(
      new Request(`http://127.0.0.1/graphql${via === 'query' ? `?api_key=${encodeURIComponent(key)}` : ''}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(via === 'bearer' ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({ query: QUERY }),
      }),
      { clientAddress },
    );
  const answerWords = JSON.stringify(OWNER_ANSWER).split(/\b/).filter((w) => w.length > 0);
  const key = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.stringMatching(/^[A-Za-z0-9_-]{20,60}$/),
    fc.constantFrom(...answerWords, ...['"data":', 'errors', 'rpa_tenant_pod_name_0123456789', '{"data":', 'null', 'pod-1', '\\u0065rrors', '%22data%22']),
    fc.tuple(fc.constantFrom(...answerWords), fc.constantFrom(...answerWords)).map(([a, b]) => `${a}${b}`),
  );

  it('property: any key, by Bearer or ?api_key=, leaves the owner\'s answer byte-identical, and is never echoed to its sender', async () => {
    // Byte for byte, but for the request ids every answer carries (fresh for each request).
    const baseline = withoutRequestIds(await (await ask(OWNER_KEY, 'bearer', '192.0.2.1')).text());
    expect(JSON.parse(baseline)).toEqual(OWNER_ANSWER);
    await fc.assert(
      fc.asyncProperty(
        fc.array(key, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('bearer' as const, 'query' as const),
        counted('gateway: pass-through keys', async (keys, via) => {
          for (const stranger of keys) {
            if (stranger === OWNER_KEY) continue;
            const response = await ask(stranger, via, '198.51.100.2');
            const text = await response.text();
            expect(response.status, JSON.stringify(stranger)).not.toBe(500);
            expect(response.status).not.toBe(200);
            if (/^[A-Za-z0-9_-]{20,}$/.test(stranger)) for (const spelling of spellingsOf(stranger)) expect(text).not.toContain(spelling);
          }
          expect(withoutRequestIds(await (await ask(OWNER_KEY, via, '192.0.2.1')).text())).toBe(baseline);
        }),
      ),
      params(60),
    );
  }, FUZZ_TIMEOUT_MS);
});

/** A random document: fragments that spread earlier ones (no cycles), aliases, inline fragments. */
interface Item {
  readonly kind: 'alias' | 'field' | 'spread' | 'inline';
  readonly target?: number;
  readonly items?: readonly Item[];
}
const itemArb = (fragmentsBefore: number): fc.Arbitrary<Item> =>
  fc.letrec<{ item: Item }>((tie) => ({
    item: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant<Item>({ kind: 'alias' }),
      fc.constant<Item>({ kind: 'field' }),
      ...(fragmentsBefore > 0 ? [fc.nat({ max: fragmentsBefore - 1 }).map((target): Item => ({ kind: 'spread', target }))] : []),
      fc.array(tie('item'), { maxLength: 3 }).map((items): Item => ({ kind: 'inline', items })),
    ),
  })).item;

const documentArb = fc.nat({ max: 6 }).chain((fragmentCount) =>
  fc.record({
    fragments: fc.tuple(...Array.from({ length: fragmentCount }, (_, i) => fc.array(itemArb(i), { minLength: 1, maxLength: 5 }))),
    roots: fc.array(fc.record({ aliased: fc.boolean(), items: fc.array(itemArb(fragmentCount), { minLength: 1, maxLength: 5 }) }), { minLength: 1, maxLength: 4 }),
  }),
);

describe('fuzz: aliases and spreads under any nesting stay within the limits', () => {
  it('property: the gateway refuses exactly what a brute-force expansion says is over a limit', () => {
    fc.assert(
      fc.property(
        documentArb,
        fc.record({ maxAliases: fc.integer({ min: 1, max: 40 }), maxSpreadsPerSelection: fc.integer({ min: 1, max: 4 }), maxFragments: fc.integer({ min: 1, max: 7 }) }),
        counted('gateway: aliases and spreads', ({ fragments, roots }, limits) => {
          let alias = 0;
          const print = (items: readonly Item[]): string =>
            items
              .map((item) => (item.kind === 'alias' ? `a${alias++}: id` : item.kind === 'field' ? 'id' : item.kind === 'spread' ? `...F${item.target}` : `... on GpuType { id ${print(item.items!)} }`))
              .join(' ');
          const text = `{ ${roots.map((r, i) => `${r.aliased ? `g${i}: ` : ''}gpuTypes { ${print(r.items)} }`).join(' ')} } ${fragments.map((items, i) => `fragment F${i} on GpuType { ${print(items)} }`).join(' ')}`;
          // The model: every spread expanded in place, counted as many times as it is reached.
          let spreadOver = false;
          const reached = new Set<number>();
          const aliasesOf = (items: readonly Item[]): number => {
            if (items.filter((i) => i.kind === 'spread').length > limits.maxSpreadsPerSelection) spreadOver = true;
            return items.reduce((sum, item) => {
              if (item.kind === 'alias') return sum + 1;
              if (item.kind === 'inline') return sum + aliasesOf(item.items!);
              if (item.kind === 'spread') {
                reached.add(item.target!);
                return sum + aliasesOf(fragments[item.target!]!);
              }
              return sum;
            }, 0);
          };
          const aliases = roots.reduce((sum, r) => sum + (r.aliased ? 1 : 0) + aliasesOf(r.items), 0);
          const expected = fragments.length > limits.maxFragments ? 'FRAGMENT_LIMIT' : spreadOver ? 'SPREAD_LIMIT' : aliases > limits.maxAliases ? 'ALIAS_LIMIT' : undefined;
          const document = parse(text, { noLocation: true });
          const operation = document.definitions.find((d) => d.kind === 'OperationDefinition')!;
          let code: string | undefined;
          try {
            checkShape(document, operation as Parameters<typeof checkShape>[1], resolveLimits({ ...limits, maxDepth: 10 }));
          } catch (err) {
            expect(err).toBeInstanceOf(Refusal);
            code = (err as Refusal).code;
          }
          expect(code, text).toBe(expected);
        }),
      ),
      params(300),
    );
  });
});

describe('fuzz: the gateway edge', () => {
  const gateway = createGateway({ allowAnonymous: true, tokens: '', client: { apiKey: 'rpa_FUZZEDGE0123456789ABCDEFGHIJKLMNOPQRSTUVW', restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql', fetch: () => Promise.reject(new Error('nothing is sent')) } });
  const loopback = (hostname: string) => {
    if (hostname === 'localhost' || hostname === '[::1]') return true;
    const octets = hostname.split('.');
    return octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
  };
  const hostnameOf = (host: string) => {
    if (/[@/\\?#\s]/.test(host)) return undefined;
    try {
      return new URL(`http://${host}`).hostname.toLowerCase();
    } catch {
      return undefined;
    }
  };

  it('property: any Host header is answered when it names a loopback host and refused (403) otherwise, never 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom('localhost', 'LOCALHOST', '127.0.0.1', '127.1', '[::1]', '0x7f.0.0.1', 'localhost.', 'localhost.evil.example', 'evil.example@localhost', '0.0.0.0', '[::]', '127.0.0.1.nip.io'),
          fc.domain(),
          fc.ipV4(),
          fc.string({ unit: fc.constantFrom(...'abcxyz0123456789.-_:[]@%'.split('')), maxLength: 24 }),
        ),
        fc.option(fc.integer({ min: 0, max: 65535 }).map((p) => `:${p}`), { nil: '' }),
        counted('gateway: Host header', async (name, port) => {
          const header = `${name}${port}`;
          const response = await gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { host: header, 'content-type': 'application/json' }, body: '{"query":"{ nope }"}' }));
          const hostname = hostnameOf(header);
          expect(response.status).not.toBe(500);
          // Served: the invalid document is refused as such (400), not as a Host (403).
          if (hostname !== undefined && loopback(hostname)) expect(response.status, header).toBe(400);
          else expect(response.status, header).toBe(403);
          await response.body?.cancel();
        }),
      ),
      params(150),
    );
  }, FUZZ_TIMEOUT_MS);

  it('property: any value of the new options is taken or refused with a ValidationError naming it, never a TypeError', () => {
    const value = fc.oneof(fc.anything(), fc.integer({ min: -2, max: 10_000 }), fc.double(), fc.record({ requests: fc.anything(), intervalMs: fc.anything() }), fc.constant(false));
    fc.assert(
      fc.property(
        fc.constantFrom('maxTokens', 'maxFragments', 'maxSpreadsPerSelection', 'maxInFlight', 'deadlineMs', 'pacingWaitMs', 'refusedKeys', 'rate'),
        value,
        fc.oneof(fc.constant(undefined), fc.constant('*'), fc.array(fc.oneof(fc.domain(), fc.string({ maxLength: 12 }), fc.anything()), { maxLength: 3 })),
        counted('gateway: options', (name, v, allowedHosts) => {
          try {
            createGateway({ tokens: 'read:fuzz-options-token-0123456789', limits: { [name]: v }, allowedHosts: allowedHosts as never, client: { apiKey: 'rpa_FUZZOPTIONS0123456789ABCDEFGHIJKLMNOPQRS' } });
          } catch (err) {
            expect(err).toBeInstanceOf(ValidationError);
            expect((err as ValidationError).message).toMatch(/limits\.|allowedHosts/);
          }
        }),
      ),
      params(300),
    );
  });
});

// The leak fuzz over the gateway's response cache (issue 44 item 5, issue 42 item 4): any sequence
// of callers (keyless, pass-through keys, strangers) asking catalog, account and mixed documents,
// in any order and at once, against an upstream that echoes whichever key ran a read into its
// catalog answer (in any spelling). No stored key or value holds a key in any spelling, no caller
// ever receives another caller's key or account data, and a keyless caller reads the catalog only.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/index.js';
import { memoryResponseCacheStore, type ResponseCacheStore } from '../../src/gateway/response-cache.js';
import { counted, echoSpelling, FUZZ_TIMEOUT_MS, params, spellingsOf } from './harness.js';

const CATALOG_KEY = 'rpa_FUZZCATALOG0123456789ABCDEFGHIJKLMNOPQR';
const KEYS = ['rpa_FUZZCALLERA0123456789ABCDEFGHIJKLMNOPQR', 'rpa_FUZZCALLERB0123456789ABCDEFGHIJKLMNOPQR', 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6'];
const ALL_KEYS = [CATALOG_KEY, ...KEYS];
/** What each key's account holds: seen only by that key. */
const accountOf = (key: string) => `account-${ALL_KEYS.indexOf(key)}-private`;

const DOCUMENTS = {
  catalog: '{ gpuTypes { id displayName } }',
  catalogByFragment: 'fragment G on GpuType { id displayName } query Prices { gpuTypes { ...G } }',
  account: '{ myself { id pods { id name } } }',
  mixed: '{ gpuTypes { id displayName } myself { id } }',
} as const;
type DocumentName = keyof typeof DOCUMENTS;

describe('fuzz: the response cache holds no credential and shares no account data', () => {
  it('property: any callers, documents and spellings, in any order and at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            caller: fc.constantFrom(-1, 0, 1, 2),
            document: fc.constantFrom<DocumentName>('catalog', 'catalogByFragment', 'account', 'mixed'),
            via: fc.constantFrom('bearer' as const, 'query' as const),
            together: fc.boolean(),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        fc.nat({ max: 11 }),
        counted('gateway: response cache', async (steps, spelling) => {
          const inner = memoryResponseCacheStore();
          const writes: string[] = [];
          const store: ResponseCacheStore = {
            lookup: (key, generation) => inner.lookup(key, generation),
            store: (key, generation, value, ttlMs) => {
              writes.push(key, value);
              return inner.store(key, generation, value, ttlMs);
            },
            bump: (generation) => inner.bump(generation),
          };
          const gateway = createGateway({
            passThroughKeys: true,
            upstream: 'graphql',
            catalogKey: CATALOG_KEY,
            cache: { store },
            limits: { rate: false, refusedKeys: false, maxInFlight: 100 },
            client: {
              graphqlUrl: 'http://127.0.0.1:9/graphql',
              restUrl: 'http://127.0.0.1:9/v2',
              maxRetries: 0,
              rateLimits: false,
              fetch: async (_input, init) => {
                const key = new Headers(init?.headers).get('authorization')?.slice(7) ?? '';
                const query = String(JSON.parse(String(init?.body)).query);
                // A hostile upstream: the catalog answer echoes the key that asked for it.
                const data: Record<string, unknown> = {};
                if (query.includes('gpuTypes')) data.gpuTypes = [{ id: 'gpu-1', displayName: `ran by ${echoSpelling(key, spelling)}` }];
                if (query.includes('myself')) data.myself = { id: accountOf(key), pods: [{ id: `${accountOf(key)}-pod`, name: `${accountOf(key)} ${key}` }] };
                return Response.json({ data });
              },
            },
          });
          const ask = async ({ caller, document, via }: (typeof steps)[number]) => {
            const key = caller < 0 ? undefined : KEYS[caller]!;
            const url = `http://127.0.0.1/graphql${key && via === 'query' ? `?api_key=${encodeURIComponent(key)}` : ''}`;
            const headers: Record<string, string> = { 'content-type': 'application/json', ...(key && via === 'bearer' ? { authorization: `Bearer ${key}` } : {}) };
            const response = await gateway.fetch(new Request(url, { method: 'POST', headers, body: JSON.stringify({ query: DOCUMENTS[document] }) }));
            return { key, document, status: response.status, text: await response.text() };
          };
          const answers = [];
          for (let i = 0; i < steps.length; i++) {
            if (steps[i]!.together && i + 1 < steps.length) {
              answers.push(...(await Promise.all([ask(steps[i]!), ask(steps[i + 1]!)])));
              i++;
            } else answers.push(await ask(steps[i]!));
          }
          for (const { key, document, status, text } of answers) {
            expect(status).not.toBe(500);
            // Keyless: the catalog only; anything else is 401.
            if (key === undefined) expect(status).toBe(document.startsWith('catalog') ? 200 : 401);
            else expect(status).toBe(200);
            for (const other of ALL_KEYS) {
              if (other !== key) expect(text).not.toContain(accountOf(other));
              for (const s of spellingsOf(other)) expect(text).not.toContain(s);
            }
          }
          for (const written of writes) for (const secret of ALL_KEYS) for (const s of spellingsOf(secret)) expect(written).not.toContain(s);
        }),
      ),
      params(40),
    );
  }, FUZZ_TIMEOUT_MS);
});

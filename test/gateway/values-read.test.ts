// Issue 43, item 5: what a document READ from upstream that holds env values (a pod's env, a
// template's) is scrubbed from its answer's upstream details and request ids, as its own secret
// inputs are: an upstream whose later 4xx/5xx text or `x-request-id` echoes a pod's env value never
// shows it to the caller, whether its token may read env (`write`) or not (`read`). The data a
// `write` token asked for (its pods' env) is answered whole.
import { describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { idsHolding, MAX_VALUES_READ_CHARS } from '../../src/gateway/scrub.js';
import { spellingsOf } from '../fuzz/harness.js';

const KEY = 'rpa_values_read_upstream_KEY_0123456789';
const W = 'gw-values-read-W-token-0123456789abcdef';
const R = 'gw-values-read-R-token-0123456789abcdef';
const VALUE = 's3cr3t-model-value';

const hex = (s: string) => [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, '0')).join('');
/** Every spelling a leak is looked for in: the fuzz harness's, and hex in both cases. */
const leaks = (value: string) => [...spellingsOf(value), hex(value), hex(value).toUpperCase()];

const POD = {
  id: 'p1', name: 'env-pod', status: 'RUNNING', cost: 0.5, image: 'img', args: '', disk: 20, ports: ['22/tcp'], env: { MODEL: VALUE, PORT: '8080' }, registry: null, cloud: 'SECURE', dataCenterId: 'US-KS-2',
  gpu: { id: 'NVIDIA RTX A4000', count: 1, vcpuCount: 8, memory: 31 }, createdAt: '2026-11-28T00:00:00Z',
};

/**
 * A REST v2 upstream: pod p1 (with the env value) answers 200; pod p2 answers `status`, its text
 * and its `x-request-id` echoing the value in the spelling `echo` makes of it.
 */
function upstream(status: number, echo: (value: string) => string) {
  return async (input: RequestInfo | URL): Promise<Response> => {
    const url = new URL(String(input));
    if (url.pathname.endsWith('/pods/p1')) return Response.json(POD, { headers: { 'x-request-id': 'req-p1-0001' } });
    if (url.pathname.endsWith('/pods')) return Response.json({ pods: [POD], pagination: { nextCursor: null, hasNextPage: false } }, { headers: { 'x-request-id': 'req-list-0001' } });
    return Response.json(
      { title: 'failed', status, detail: `pod p2 could not start: MODEL=${echo(VALUE)} is not a model` },
      { status, headers: { 'content-type': 'application/problem+json', 'x-request-id': `req-${echo(VALUE)}` } },
    );
  };
}

function gatewayOver(fetch: ReturnType<typeof upstream>): Gateway {
  return createGateway({
    tokens: `write:${W},read:${R}`,
    limits: { rate: false },
    client: { apiKey: KEY, restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql', maxRetries: 0, rateLimits: false, fetch },
  });
}

const ask = async (gateway: Gateway, token: string, query: string) =>
  gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query }) }));

/** Reads p1 first (its env comes back with it, asked for or not), then p2, which fails. */
const TWO_PODS = '{ a: pod(input: { podId: "p1" }) { id name } b: pod(input: { podId: "p2" }) { id name } }';
const LIST_THEN_FAIL = '{ myself { pods { id } } b: pod(input: { podId: "p2" }) { id } }';

const ECHOES: Array<[string, (v: string) => string]> = [
  ['as is', (v) => v],
  ['upper case', (v) => v.toUpperCase()],
  ['URL-encoded', (v) => encodeURIComponent(v).replace(/-/g, '%2D')],
  ['base64', (v) => btoa(v)],
  ['hex', (v) => hex(v)],
];

describe('env values a document read are scrubbed from its upstream details and request ids', () => {
  for (const status of [422, 500]) {
    for (const [spelling, echo] of ECHOES) {
      for (const [token, name] of [[W, 'write'], [R, 'read']] as const) {
        it(`HTTP ${status} echoing it ${spelling}, ${name} token: no spelling of it in the answer`, async () => {
          const gateway = gatewayOver(upstream(status, echo));
          for (const query of [TWO_PODS, LIST_THEN_FAIL]) {
            const res = await ask(gateway, token, query);
            const text = await res.text();
            const body = JSON.parse(text);
            // The document ran: p1 (or the list) answered, p2's failure is its field error.
            expect(body.errors?.length).toBeGreaterThan(0);
            expect(text).toContain('[REDACTED]');
            for (const leak of leaks(VALUE)) expect(text).not.toContain(leak);
            expect(text.toLowerCase()).not.toContain(VALUE);
            // The other request ids are kept as they were.
            expect(body.extensions.requestIds.upstream.some((id: string) => /^req-(p1|list)-0001$/.test(id))).toBe(true);
          }
        });
      }
    }
  }

  for (const [spelling, echo] of [...ECHOES, ['as user:value base64', (v: string) => btoa(`me:${v}`)] as [string, (v: string) => string], ['clipped to 32 characters', (v: string) => `${v}${v}`.slice(3, 35)] as [string, (v: string) => string]]) {
    it(`no error at all, an x-request-id echoing it ${spelling}: that id is withheld, the others kept`, async () => {
      const value = spelling.startsWith('clipped') ? `${VALUE}-and-more-of-it-0123456789` : VALUE;
      const fetch = async (input: RequestInfo | URL): Promise<Response> => {
        const url = new URL(String(input));
        const pod = { ...POD, id: url.pathname.split('/').pop(), env: { MODEL: value } };
        return Response.json(pod, { headers: { 'x-request-id': url.pathname.endsWith('/p1') ? 'req-p1-0001' : `req-${echo(value)}` } });
      };
      const gateway = gatewayOver(fetch);
      for (const token of [W, R]) {
        const text = await (await ask(gateway, token, TWO_PODS)).text();
        const body = JSON.parse(text);
        expect(body.errors).toBeUndefined();
        expect(body.data.b.id).toBe('p2');
        expect(new Set(body.extensions.requestIds.upstream)).toEqual(new Set(['req-p1-0001', '[REDACTED]']));
        for (const leak of leaks(value)) expect(text).not.toContain(leak);
      }
    });
  }

  it("a write token still reads its pods' env whole, and the answer without errors is untouched", async () => {
    const gateway = gatewayOver(upstream(500, (v) => v));
    const body = await (await ask(gateway, W, '{ myself { pods { id env } } }')).json();
    expect(JSON.stringify(body.data)).toContain(`MODEL=${VALUE}`);
    expect(body.errors).toBeUndefined();
    expect(body.extensions.requestIds.upstream).toEqual(['req-list-0001']);
    // Asked with the failing read beside it: the env asked for stays, only the details are scrubbed.
    const mixed = await (await ask(gateway, W, '{ myself { pods { id env } } b: pod(input: { podId: "p2" }) { id } }')).json();
    expect(JSON.stringify(mixed.data)).toContain(`MODEL=${VALUE}`);
    expect(JSON.stringify(mixed.errors)).not.toContain(VALUE);
    expect(JSON.stringify(mixed.extensions.requestIds)).not.toContain(VALUE);
  });

  it('an env value shorter than 8 characters is not filed (a JSON answer is full of such tokens)', async () => {
    const gateway = gatewayOver(upstream(500, () => '8080'));
    const body = await (await ask(gateway, W, TWO_PODS)).json();
    expect(JSON.stringify(body.errors)).toContain('MODEL=8080');
  });
});

describe("over RunPod's GraphQL, the env values in the result's data are scrubbed from its errors and request ids", () => {
  it('a write token reads a pod env in one field and another field fails quoting it: data whole, errors and ids scrubbed', async () => {
    const fetch = async (): Promise<Response> =>
      Response.json(
        { data: { myself: { pods: [{ id: 'p1', env: [`MODEL=${VALUE}`] }] }, b: null }, errors: [{ message: `pod p2: MODEL=${btoa(VALUE)} refused`, path: ['b'] }] },
        { headers: { 'x-request-id': `req-${VALUE}` } },
      );
    const gateway = createGateway({
      tokens: `write:${W}`,
      upstream: 'graphql',
      limits: { rate: false },
      client: { apiKey: KEY, graphqlUrl: 'http://127.0.0.1:9/graphql', restUrl: 'http://127.0.0.1:9/v2', maxRetries: 0, rateLimits: false, fetch },
    });
    const body = await (await ask(gateway, W, '{ myself { pods { id env } } b: pod(input: { podId: "p2" }) { id } }')).json();
    expect(JSON.stringify(body.data)).toContain(`MODEL=${VALUE}`);
    expect(body.errors.length).toBe(1);
    for (const leak of leaks(VALUE)) {
      expect(JSON.stringify(body.errors)).not.toContain(leak);
      expect(JSON.stringify(body.extensions)).not.toContain(leak);
    }
  });
});

describe('the request-id matcher (no error in the answer)', () => {
  it('withholds an id holding a value whole or by 32 characters of a spelling, and no id that only shares a few characters', () => {
    const long = 'hf_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH';
    const ids = ['3f1c2b9a-1111-2222-3333-444455556666', 'req-abcdefghij0123456789', `x-${hex(long).slice(6, 40)}`, `r_${btoa(`me:${VALUE}`)}`, `id%20${encodeURIComponent(VALUE.toUpperCase())}`];
    const held = idsHolding(ids, ['abcdefgh-unrelated-value', long, VALUE]);
    expect([...held].sort()).toEqual([ids[2], ids[3], ids[4]].sort());
    expect(idsHolding(ids, ['3f1c2b9a-not-this'])).toEqual(new Set());
  });
});

describe('past the bound on values read', () => {
  it("RunPod's words after the status are withheld from the errors, whatever the token", async () => {
    const many = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`V${i}`, `${i}-${'x'.repeat(600)}`]));
    const fetch = async (input: RequestInfo | URL): Promise<Response> => {
      if (String(input).endsWith('/pods/p1')) return Response.json({ ...POD, env: { ...many, MODEL: VALUE } });
      return Response.json({ title: 'failed', status: 500, detail: `MODEL=${VALUE}` }, { status: 500, headers: { 'content-type': 'application/problem+json' } });
    };
    expect(Object.values(many).join('').length).toBeGreaterThan(MAX_VALUES_READ_CHARS);
    const body = await (await ask(gatewayOver(fetch), W, TWO_PODS)).json();
    expect(body.errors[0].message).toMatch(/HTTP 500 \(RunPod's details are withheld/);
    expect(JSON.stringify(body)).not.toContain(VALUE);
  });
});

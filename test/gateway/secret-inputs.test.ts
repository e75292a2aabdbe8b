// Issue 43, cause 1: nothing a caller sends enters state other callers share. A document's secret
// inputs (a registry password, a secret's value, env values) are scrubbed by that document's own
// scrubber; the process-wide index holds only what the process owns, bounded; pass-through keys
// RunPod accepted are scrubbed from every pass-through caller's answer for a while.
import { describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { createPassThroughPool } from '../../src/gateway/pass-through.js';
import { redactText, registeredFootprint } from '../../src/transport/redact.js';
import { spellingsOf } from '../fuzz/harness.js';

const KEY = 'rpa_secret_inputs_upstream_KEY_0123456789';
const A = 'gw-caller-A-token-0123456789abcdef';
const B = 'gw-caller-B-token-0123456789abcdef';
const R = 'gw-caller-R-token-0123456789abcdef';
/** A value in caller B's pod env, which caller A sends as a registry "password". */
const MODEL = 'meta-llama/Llama-3.1-70B-Instruct';

const POD = {
  id: 'p1', name: 'b-pod', status: 'RUNNING', cost: 0.5, image: 'img', args: '', disk: 20, ports: ['22/tcp'], env: { MODEL }, registry: null, cloud: 'SECURE', dataCenterId: 'US-KS-2',
  gpu: { id: 'NVIDIA RTX A4000', count: 1, vcpuCount: 8, memory: 31 }, createdAt: '2026-11-28T00:00:00Z',
};

/** A REST v2 upstream: pods list B's pod; a registry create is refused 422, quoting the body it got. */
function upstream(calls: string[], echo?: (body: string) => string) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    calls.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    if (url.pathname.endsWith('/registries') && init?.method === 'POST') {
      return Response.json({ title: 'Unprocessable', status: 422, detail: `refused: ${echo ? echo(String(init.body)) : String(init.body)}` }, { status: 422, headers: { 'content-type': 'application/problem+json' } });
    }
    if (url.pathname.endsWith('/pods')) return Response.json({ pods: [POD], pagination: { nextCursor: null, hasNextPage: false } });
    return Response.json({ error: 'not found' }, { status: 404 });
  };
}

function gatewayOver(fetch: ReturnType<typeof upstream>): Gateway {
  return createGateway({
    tokens: `write:${A},write:${B},read:${R}`,
    limits: { rate: false },
    client: { apiKey: KEY, restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql', maxRetries: 0, rateLimits: false, fetch },
  });
}

const ask = async (gateway: Gateway, token: string, query: string, variables?: unknown) =>
  gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) }));

const SAVE = 'mutation($input: SaveRegistryAuthInput) { saveRegistryAuth(input: $input) { id } }';
const READ_ENV = '{ myself { pods { id env } } }';

describe("one caller's secret inputs never change another caller's answer", () => {
  it("a registry password equal to B's env value, refused upstream, leaves B's answer whole", async () => {
    const calls: string[] = [];
    const gateway = gatewayOver(upstream(calls));
    const before = await (await ask(gateway, B, READ_ENV)).json();
    expect(JSON.stringify(before)).toContain(`MODEL=${MODEL}`);
    const saved = await ask(gateway, A, SAVE, { input: { name: 'ghcr', username: 'me', password: MODEL } });
    const savedText = await saved.text();
    // A's own answer is scrubbed of its password, in every spelling, though RunPod quoted it.
    expect(calls).toContain('POST /v2/registries');
    for (const spelling of spellingsOf(MODEL)) expect(savedText).not.toContain(spelling);
    const after = await (await ask(gateway, B, READ_ENV)).json();
    expect(after.data).toEqual(before.data);
    expect(JSON.stringify(after)).not.toContain('[REDACTED]');
  });

  it('a secret input as an inline literal is scrubbed from its own answer too, and a short one is not filed', async () => {
    const gateway = gatewayOver(upstream([]));
    const password = 'inline-registry-password-0123';
    const text = await (await ask(gateway, A, `mutation { saveRegistryAuth(input: { name: "n", username: "u", password: "${password}" }) { id } }`)).text();
    expect(text).not.toContain(password);
    expect(text).toContain('[REDACTED]');
    // `true` as an env value is no secret to scrub a JSON answer of.
    const short = await (await ask(gateway, A, 'mutation { saveRegistryAuth(input: { name: "n", username: "u", password: "true" }) { id } }')).json();
    expect(short.errors[0].extensions.code).toBeDefined();
  });

  it('refused passwords add nothing to the process-wide index: 100 × 8 KB in 10 documents', async () => {
    const gateway = gatewayOver(upstream([], () => 'no'));
    const footprint = registeredFootprint();
    const passwords: string[] = [];
    for (let doc = 0; doc < 10; doc++) {
      const aliases = Array.from({ length: 10 }, (_, i) => {
        const password = Array.from({ length: 8_192 }, (_, k) => String.fromCharCode(97 + ((doc * 131 + i * 17 + k * k) % 26))).join('');
        passwords.push(password);
        return `a${i}: saveRegistryAuth(input: { name: "n${i}", username: "u", password: "${password}" }) { id }`;
      });
      await (await ask(gateway, A, `mutation { ${aliases.join(' ')} }`)).text();
    }
    expect(registeredFootprint()).toEqual(footprint);
    for (const password of passwords.slice(0, 5)) expect(redactText(`x ${password.slice(100, 200)} y`)).toBe(`x ${password.slice(100, 200)} y`);
  });

  it('a variable that fails coercion is named by its field, without the password it holds', async () => {
    const gateway = gatewayOver(upstream([]));
    const password = 'coercion-password-0123456789';
    const answer = await ask(gateway, A, SAVE, { input: { name: 'n', username: 'u', password: { nested: password } } });
    expect(answer.status).toBe(400);
    const body = await answer.text();
    expect(body).not.toContain(password);
    expect(body).not.toContain('coercion-password');
    expect(JSON.parse(body).errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.password' });
  });
});

describe('pass-through: keys RunPod accepted are scrubbed from every caller answer, for a while', () => {
  const OWNER_A = 'rpa_OWNERA0123456789ABCDEFGHIJKLMNOPQRSTUVW';
  const OWNER_B = 'rpa_OWNERB0123456789ABCDEFGHIJKLMNOPQRSTUVW';
  /** An upstream that echoes the last key it accepted into the next caller's data. */
  function echoing() {
    let last = '';
    return async (_input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const key = new Headers(init?.headers).get('authorization')!.slice(7);
      const echoed = last;
      last = key;
      return Response.json({ data: { myself: { pods: [{ id: 'p1', name: echoed || 'first' }] } } });
    };
  }

  it("an upstream echo of A's key never reaches B", async () => {
    const gateway = createGateway({
      passThroughKeys: true,
      upstream: 'graphql',
      client: { graphqlUrl: 'http://127.0.0.1:9/graphql', restUrl: 'http://127.0.0.1:9/v2', maxRetries: 0, rateLimits: false, fetch: echoing() },
    });
    const send = (key: string) =>
      gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query: '{ myself { pods { id name } } }' }) }), { clientAddress: '192.0.2.1' });
    await (await send(OWNER_A)).text();
    const seenByB = await (await send(OWNER_B)).text();
    expect(seenByB).not.toContain(OWNER_A);
    expect(seenByB).toContain('[REDACTED]');
  });

  it('accepted keys are bounded by the pool and expire', () => {
    let now = 0;
    const pool = createPassThroughPool({ restUrl: 'http://127.0.0.1:9/v2', graphqlUrl: 'http://127.0.0.1:9/graphql' }, () => now);
    const keys = Array.from({ length: 300 }, (_, i) => `rpa_POOLKEY${String(i).padStart(4, '0')}ABCDEFGHIJKLMNOPQRSTUV`);
    for (const key of keys) {
      pool.get(key);
      pool.accept(key);
    }
    expect(pool.acceptedKeys).toBe(256);
    // The last one's scrubber knows another accepted key …
    expect(pool.get(keys[299]!).scrub(`x ${keys[298]} y`)).toBe('x [REDACTED] y');
    // … until it expires.
    now += 16 * 60_000;
    expect(pool.get(keys[299]!).scrub(`x ${keys[298]} y`)).toBe(`x ${keys[298]} y`);
    expect(pool.acceptedKeys).toBe(0);
  });
});

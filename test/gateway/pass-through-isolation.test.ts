// Issue 37, cause 1: in pass-through mode a caller's "key" must never reach state other callers
// share. Each answer is scrubbed for its own caller; a key that cannot be RunPod's is refused
// before a client is built; an address whose keys RunPod keeps refusing stops being relayed.
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { listen, type ListeningGateway } from '../../src/gateway/node.js';
import { redactText } from '../../src/transport/redact.js';
import { spellingsOf } from '../fuzz/harness.js';
import { withoutRequestIds } from './harness.js';

const OWNER_KEY = 'rpa_OWNERKEY0123456789ABCDEFGHIJKLMNOPQRSTUV';
/** Another tenant's pod name, which a stranger sends as its "key". */
const POD_NAME = 'tenant_b_training_run_2026';

/** A fake RunPod GraphQL: the owner's key sees its pods; any other key is refused (401). */
function upstream(calls: string[]) {
  return async (_input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const auth = new Headers(init?.headers).get('authorization') ?? '';
    calls.push(auth);
    if (auth !== `Bearer ${OWNER_KEY}`) return new Response(JSON.stringify({ errors: [{ message: 'Unauthorized' }] }), { status: 401, headers: { 'content-type': 'application/json' } });
    const body = JSON.parse(String(init?.body)) as { query: string };
    if (body.query.includes('nope')) return Response.json({ errors: [{ message: 'no such pod', extensions: { code: 'NOT_FOUND' } }], data: null });
    return Response.json({ data: { myself: { pods: [{ id: 'pod1', name: POD_NAME }, { id: 'pod2', name: 'data' }] } } });
  };
}

function passThroughGateway(calls: string[], limits = {}): Gateway {
  return createGateway({
    passThroughKeys: true,
    upstream: 'graphql',
    limits,
    client: { graphqlUrl: 'http://127.0.0.1:9/graphql', restUrl: 'http://127.0.0.1:9/v2', maxRetries: 0, rateLimits: false, fetch: upstream(calls) },
  });
}

const text = async (response: Response) => withoutRequestIds(await response.text());
const ask = (gateway: Gateway, key: string, query = '{ myself { pods { id name } } }', clientAddress = '192.0.2.1') =>
  gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query }) }), { clientAddress });

describe("pass-through: a caller's key never changes another caller's answer", () => {
  it("a stranger's key equal to another tenant's pod name, or to JSON's own words, leaves the owner's answer whole", async () => {
    const calls: string[] = [];
    const gateway = passThroughGateway(calls);
    const before = await text(await ask(gateway, OWNER_KEY));
    expect(before).toContain(POD_NAME);
    const errorsBefore = await text(await ask(gateway, OWNER_KEY, '{ nope: myself { id } }'));
    for (const key of [POD_NAME, '"data":', 'errors', 'data', 'pod1', 'message']) await (await ask(gateway, key, undefined, '198.51.100.7')).text();
    const after = await text(await ask(gateway, OWNER_KEY));
    expect(after).toBe(before);
    expect(JSON.parse(after).data.myself.pods.map((p: { name: string }) => p.name)).toEqual([POD_NAME, 'data']);
    const errorsAfter = await text(await ask(gateway, OWNER_KEY, '{ nope: myself { id } }'));
    expect(errorsAfter).toBe(errorsBefore);
    expect(JSON.parse(errorsAfter).errors[0].message).toBe('no such pod');
  });

  it('keeps pass-through keys out of the process-wide redaction index, and scrubs each from its own answer', async () => {
    const calls: string[] = [];
    const gateway = passThroughGateway(calls);
    const stranger = 'rpa_STRANGERKEY0123456789ABCDEFGHIJKLMNOPQR';
    await (await ask(gateway, stranger)).text();
    await (await ask(gateway, OWNER_KEY)).text();
    // Both reached the upstream (the owner's answer was built by a client holding its key) …
    expect(calls).toEqual([`Bearer ${stranger}`, `Bearer ${OWNER_KEY}`]);
    // … and neither is in the index every error of the process is scrubbed with.
    expect(redactText(`x ${stranger} ${OWNER_KEY} x`)).toBe(`x ${stranger} ${OWNER_KEY} x`);
  });

  it("scrubs the caller's own key from its answer, in every spelling, when the upstream echoes it", async () => {
    const gateway = createGateway({
      passThroughKeys: true,
      upstream: 'graphql',
      client: {
        graphqlUrl: 'http://127.0.0.1:9/graphql',
        restUrl: 'http://127.0.0.1:9/v2',
        maxRetries: 0,
        rateLimits: false,
        fetch: async (_input, init) => {
          const key = new Headers(init?.headers).get('authorization')!.slice(7);
          return Response.json({ data: { myself: { pods: spellingsOf(key).map((s, i) => ({ id: `p${i}`, name: s })) } } });
        },
      },
    });
    const text = await (await ask(gateway, OWNER_KEY)).text();
    expect(text).toContain('[REDACTED]');
    for (const spelling of spellingsOf(OWNER_KEY)) expect(text).not.toContain(spelling);
  });
});

describe('pass-through: a key that cannot be a RunPod key is refused before anything is built or sent', () => {
  it.each([
    ['too short', 'rpa_short_key'],
    ['a space', 'rpa_0123456789 ABCDEFGHIJ'],
    ['a quote', 'rpa_0123456789"ABCDEFGHIJ'],
    ['JSON', '"data":{"myself":null}'],
    ['punctuation', 'rpa_0123456789.ABCDEFGHIJ'],
  ])('%s: 401 with WWW-Authenticate, nothing upstream, the key not echoed', async (_name, key) => {
    const calls: string[] = [];
    const gateway = passThroughGateway(calls);
    const response = await ask(gateway, key);
    const text = await response.text();
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(JSON.parse(text).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(text).not.toContain(key);
    expect(calls).toEqual([]);
  });

  it('accepts both shapes RunPod has issued: rpa_ and 40-odd upper-case letters and digits, and 32+ letters and digits', async () => {
    const calls: string[] = [];
    const gateway = passThroughGateway(calls);
    for (const key of ['rpa_0A1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q7R8S9T', 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6']) expect((await ask(gateway, key)).status).toBe(401);
    expect(calls).toHaveLength(2);
  });
});

describe('pass-through: refused keys are counted per client address', () => {
  let served: ListeningGateway | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it('after N keys RunPod refused from one address, 429 with Retry-After and nothing relayed; other addresses still served', async () => {
    const calls: string[] = [];
    const gateway = passThroughGateway(calls, { refusedKeys: { requests: 3, intervalMs: 600_000 } });
    const guesses = Array.from({ length: 6 }, (_, i) => `rpa_GUESS${i}0123456789ABCDEFGHIJKLMNOPQRSTUV`);
    const statuses: number[] = [];
    for (const guess of guesses) {
      const response = await ask(gateway, guess, undefined, '203.0.113.9');
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      await response.text();
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    expect(calls).toHaveLength(3);
    // The owner, from its own address, is not held by a stranger's guesses.
    expect((await ask(gateway, OWNER_KEY, undefined, '192.0.2.50')).status).toBe(200);
  });

  it('over loopback: the listener counts by the socket address', async () => {
    const calls: string[] = [];
    served = await listen(passThroughGateway(calls, { refusedKeys: { requests: 2, intervalMs: 600_000 } }));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await fetch(served.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer rpa_LOOPGUESS${i}0123456789ABCDEFGHIJKLMNOP` }, body: '{"query":"{ myself { id } }"}' });
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses).toEqual([401, 401, 429, 429]);
    expect(calls).toHaveLength(2);
  });
});

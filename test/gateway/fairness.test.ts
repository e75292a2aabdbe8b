// Issue 37, causes 3 and 4, and the deadline of cause 5: one caller cannot take the gateway from
// the others (documents in flight, the rate charged in upstream calls), RunPod's long pause is
// answered at once instead of holding every caller, and no document runs past its deadline.
import { describe, expect, it } from 'vitest';
import { createGateway, type GatewayOptions } from '../../src/gateway/index.js';
import { bearer, READ_TOKEN, startRig, WRITE_TOKEN } from './harness.js';

type Upstream = (init: RequestInit | undefined) => Promise<Response>;

/** A gateway over a fake RunPod GraphQL whose answers the test decides, one call at a time. */
function gatewayOver(upstream: Upstream, options: Partial<GatewayOptions> = {}) {
  const calls: string[] = [];
  const gateway = createGateway({
    tokens: `read:${READ_TOKEN},write:${WRITE_TOKEN}`,
    upstream: 'graphql',
    // Each document's own run is what is measured here: identical reads would share one.
    cache: false,
    ...options,
    client: {
      apiKey: 'rpa_FAIRNESSUPSTREAM0123456789ABCDEFGHIJKLMN',
      graphqlUrl: 'http://127.0.0.1:9/graphql',
      restUrl: 'http://127.0.0.1:9/v2',
      maxRetries: 0,
      fetch: (_input, init) => {
        calls.push(JSON.parse(String(init?.body)).query);
        return upstream(init);
      },
      ...options.client,
    },
  });
  const ask = async (token: string, query = '{ myself { id } }') => {
    const response = await gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token) }, body: JSON.stringify({ query }) }));
    return { status: response.status, headers: response.headers, body: (await response.json()) as { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> } };
  };
  return { gateway, calls, ask };
}

/** An upstream that holds every answer until `release()`, and answers when the call's signal fires. */
function heldUpstream() {
  const waiting: Array<() => void> = [];
  const upstream: Upstream = (init) =>
    new Promise((resolve, reject) => {
      init?.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true });
      waiting.push(() => resolve(Response.json({ data: { myself: { id: 'u1' } } })));
    });
  return { upstream, waiting, release: () => waiting.splice(0).forEach((go) => go()) };
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('documents in flight, per caller', () => {
  it('past maxInFlight, 429 TOO_MANY_IN_FLIGHT with Retry-After and nothing sent; another caller is still served', async () => {
    const held = heldUpstream();
    const { ask, calls } = gatewayOver(held.upstream, { limits: { maxInFlight: 2, queueWaitMs: 0 } });
    const running = [ask(READ_TOKEN), ask(READ_TOKEN)];
    await until(() => held.waiting.length === 2);
    const refused = await ask(READ_TOKEN);
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('TOO_MANY_IN_FLIGHT');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(calls).toHaveLength(2);
    const other = ask(WRITE_TOKEN);
    await until(() => held.waiting.length === 3);
    held.release();
    expect((await Promise.all([...running, other])).map((r) => r.status)).toEqual([200, 200, 200]);
    // Freed: the caller may run again.
    const again = ask(READ_TOKEN);
    await until(() => held.waiting.length === 1);
    held.release();
    expect((await again).status).toBe(200);
  });

  it('defaults to 4 running; the fifth waits in line for a slot and runs once one is freed', async () => {
    const held = heldUpstream();
    const { ask, calls } = gatewayOver(held.upstream);
    const running = Array.from({ length: 4 }, () => ask(READ_TOKEN));
    await until(() => held.waiting.length === 4);
    const fifth = ask(READ_TOKEN);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toHaveLength(4);
    held.release();
    await until(() => held.waiting.length === 1);
    held.release();
    expect((await Promise.all([...running, fifth])).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('friction 9: 16 documents at once from one token, with the defaults, all succeed (they queue, none meets 429)', async () => {
    let concurrent = 0;
    let most = 0;
    const { ask } = gatewayOver(async () => {
      most = Math.max(most, ++concurrent);
      await new Promise((resolve) => setTimeout(resolve, 30));
      concurrent--;
      return Response.json({ data: { myself: { id: 'u1' } } });
    });
    const statuses = (await Promise.all(Array.from({ length: 16 }, () => ask(READ_TOKEN)))).map((r) => r.status);
    expect(statuses).toEqual(Array(16).fill(200));
    expect(most).toBeLessThanOrEqual(4);
  });

  it('the wait is bounded: past queueWaitMs, or past maxQueued waiting, 429 TOO_MANY_IN_FLIGHT', async () => {
    const held = heldUpstream();
    const { ask } = gatewayOver(held.upstream, { limits: { maxInFlight: 1, queueWaitMs: 100, maxQueued: 1 } });
    const running = ask(READ_TOKEN);
    await until(() => held.waiting.length === 1);
    const waiting = ask(READ_TOKEN);
    const beyond = await ask(READ_TOKEN);
    expect(beyond.status).toBe(429);
    const late = await waiting;
    expect(late.status).toBe(429);
    expect(late.body.errors?.[0]?.extensions?.code).toBe('TOO_MANY_IN_FLIGHT');
    held.release();
    expect((await running).status).toBe(200);
  });

  it('per token: a CI token with its own in-flight limit and rate, the page token keeps the defaults', async () => {
    const held = heldUpstream();
    const { ask } = gatewayOver(held.upstream, {
      tokens: [
        { scope: 'read', token: READ_TOKEN, name: 'page', maxInFlight: 1, queueWaitMs: 0 },
        { scope: 'write', token: WRITE_TOKEN, name: 'ci', maxInFlight: 6, rate: { requests: 6, intervalMs: 60_000 } },
      ],
    });
    const ci = Array.from({ length: 6 }, () => ask(WRITE_TOKEN));
    await until(() => held.waiting.length === 6);
    const page = ask(READ_TOKEN);
    await until(() => held.waiting.length === 7);
    expect((await ask(READ_TOKEN)).body.errors?.[0]?.extensions?.code).toBe('TOO_MANY_IN_FLIGHT');
    held.release();
    expect((await Promise.all([...ci, page])).map((r) => r.status)).toEqual(Array(7).fill(200));
    // The CI token's own rate (6 a minute) is spent; the page token's (the default 300) is not.
    const spent = await ask(WRITE_TOKEN);
    expect(spent.status).toBe(429);
    expect(spent.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
  });
});

describe('the per-caller rate, charged in upstream calls', () => {
  it('a document that makes five upstream calls costs five: 10 calls a minute serve two such documents, then 429', async () => {
    const rig = await startRig({ cache: false, limits: { rate: { requests: 10, intervalMs: 60_000 } } });
    try {
      const five = `{ ${Array.from({ length: 5 }, (_, i) => `p${i}: pod(input: { podId: "missing-${i}" }) { id }`).join(' ')} }`;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const before = rig.upstreamCalls.length;
        const response = await rig.post({ query: five }, bearer(READ_TOKEN));
        await response.text();
        statuses.push(response.status);
        if (response.status !== 429) expect(rig.upstreamCalls.length - before).toBe(5);
      }
      expect(statuses.map((s) => s === 429)).toEqual([false, false, true, true]);
      // Another caller's rate is its own.
      expect((await rig.post({ query: '{ __typename }' }, bearer(WRITE_TOKEN))).status).toBe(200);
    } finally {
      await rig.close();
    }
  });
});

describe("RunPod's rate limit: a short wait, then 503 with the remaining Retry-After", () => {
  it("after RunPod's Retry-After: 3600, the next caller's document is answered 503 at once, with nothing sent", async () => {
    let first = true;
    const { ask, calls } = gatewayOver(async () => {
      if (first) {
        first = false;
        return new Response(JSON.stringify({ errors: [{ message: 'slow down' }] }), { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '3600' } });
      }
      return Response.json({ data: { myself: { id: 'u1' } } });
    });
    const limited = await ask(READ_TOKEN);
    expect(limited.status).toBe(503);
    expect(limited.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_RATE_LIMITED');
    // Without the gateway's own wait this one sat out the client's 60 s pause on its connection.
    const next = await ask(WRITE_TOKEN);
    expect(next.status).toBe(503);
    expect(next.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_RATE_LIMITED');
    expect(Number(next.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(calls).toHaveLength(1);
  }, 20_000);

  it('a query already waiting upstream when RunPod asks for a long pause is answered 503 too', async () => {
    const held = heldUpstream();
    let calls = 0;
    const { ask } = gatewayOver((init) => {
      calls++;
      if (calls === 1) return held.upstream(init);
      return Promise.resolve(new Response('{"errors":[{"message":"slow down"}]}', { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '600' } }));
    });
    const waiting = ask(READ_TOKEN);
    await until(() => held.waiting.length === 1);
    expect((await ask(WRITE_TOKEN)).status).toBe(503);
    const stopped = await waiting;
    expect(stopped.status).toBe(503);
    expect(Number(stopped.headers.get('retry-after'))).toBeGreaterThan(500);
  }, 20_000);

  it('a pause within pacingWaitMs is waited out, and the document is served', async () => {
    let first = true;
    const { ask, calls } = gatewayOver(
      async () => {
        if (first) {
          first = false;
          return new Response('{"errors":[{"message":"slow down"}]}', { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '1' } });
        }
        return Response.json({ data: { myself: { id: 'u1' } } });
      },
      { limits: { pacingWaitMs: 5_000 } },
    );
    expect((await ask(READ_TOKEN)).status).toBe(503);
    const served = await ask(READ_TOKEN);
    expect(served.status).toBe(200);
    expect(calls).toHaveLength(2);
  }, 20_000);
});

describe('the per-document deadline', () => {
  it('a document still running at deadlineMs is answered 504 DEADLINE_EXCEEDED, and its slot is freed', async () => {
    const held = heldUpstream();
    const { ask } = gatewayOver(held.upstream, { limits: { deadlineMs: 300, maxInFlight: 1 } });
    const late = await ask(READ_TOKEN);
    expect(late.status).toBe(504);
    expect(late.body.errors?.[0]?.extensions?.code).toBe('DEADLINE_EXCEEDED');
    const next = ask(READ_TOKEN);
    await until(() => held.waiting.length === 2);
    held.release();
    expect((await next).status).toBe(200);
  }, 20_000);
});

describe("REST v2's spent window", () => {
  it('RateLimit: remaining 0 with a long reset is answered 503 at once to the next document, with nothing sent', async () => {
    let first = true;
    const { ask, calls } = gatewayOver(async () => {
      if (first) {
        first = false;
        return new Response(JSON.stringify({ data: { myself: { id: 'u1' } } }), { status: 200, headers: { 'content-type': 'application/json', ratelimit: '"default";r=0;t=900', 'ratelimit-policy': '"default";q=100;w=900' } });
      }
      return Response.json({ data: { myself: { id: 'u1' } } });
    });
    expect((await ask(READ_TOKEN)).status).toBe(200);
    const next = await ask(WRITE_TOKEN);
    expect(next.status).toBe(503);
    expect(Number(next.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(calls).toHaveLength(1);
  }, 20_000);
});

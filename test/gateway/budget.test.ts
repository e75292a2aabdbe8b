// Issue 43, item 2: one document's upstream work is bounded. Its calls stop once its caller's rate
// debt passes one bucket; its walks have a page cap of the gateway's own and its lists an item cap,
// whatever the client's maxPages; its calls at once are capped, and callers take turns for the
// upstream client's slots. Counts and orders at the fetch seam, never timings.
import { describe, expect, it } from 'vitest';
import { createGateway, LimitExceededError, type GatewayOptions } from '../../src/gateway/index.js';
import { bearer, READ_TOKEN, WRITE_TOKEN } from './harness.js';

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: Record<string, unknown> | null; errors?: Array<{ message: string; path?: unknown[]; extensions?: Record<string, unknown> }> };
}

type Upstream = (url: URL, init: RequestInit | undefined) => Promise<Response>;

/** A gateway in process over REST v2 on a fake upstream; `calls` lists every path it was asked for, in order. */
function gatewayOver(upstream: Upstream, options: Partial<GatewayOptions> = {}) {
  const calls: string[] = [];
  const gateway = createGateway({
    tokens: `read:${READ_TOKEN},write:${WRITE_TOKEN}`,
    ...options,
    client: {
      apiKey: 'rpa_BUDGETUPSTREAM0123456789ABCDEFGHIJKLMNOP',
      restUrl: 'http://127.0.0.1:9/v2',
      graphqlUrl: 'http://127.0.0.1:9/graphql',
      maxRetries: 0,
      fetch: (input, init) => {
        const url = new URL(String(input));
        calls.push(url.pathname);
        return upstream(url, init);
      },
      ...options.client,
    },
  });
  const ask = async (query: string, token = READ_TOKEN): Promise<Answer> => {
    const response = await gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...bearer(token) }, body: JSON.stringify({ query }) }));
    return { status: response.status, headers: response.headers, body: (await response.json()) as Answer['body'] };
  };
  return { gateway, calls, ask };
}

/** A pod list whose every page carries a fresh cursor (it never ends), `perPage` pods a page. */
function endlessPods(perPage = 2): Upstream {
  let n = 0;
  return async (url) => {
    if (url.pathname === '/v2/pods') {
      const page = ++n;
      return Response.json({ pods: Array.from({ length: perPage }, (_, i) => ({ id: `pod-${page}-${i}`, name: `p${i}` })), pagination: { nextCursor: `c${page}`, hasNextPage: true } });
    }
    return Response.json({ gpus: [] });
  };
}

/** `n` aliased reads of distinct pods: each its own call (reads by id of pods are not batched). */
const aliasedPods = (n: number, prefix: string) => `{ ${Array.from({ length: n }, (_, i) => `p${i}: pod(input: { podId: "${prefix}-${i}" }) { id }`).join(' ')} }`;

const codes = (answer: Answer) => (answer.body.errors ?? []).map((e) => e.extensions?.code);

describe('pages and items per document', () => {
  it('a list with a fresh cursor on every page is read to 200 pages (maxPages), not the pager\'s 10,000, and answered PAGE_LIMIT', async () => {
    const { ask, calls } = gatewayOver(endlessPods(), { limits: { rate: false } });
    const answer = await ask('{ myself { pods { id name } } }');
    expect(calls.filter((c) => c === '/v2/pods')).toHaveLength(200);
    // Nothing read: the gateway's limit, as its other limits are answered.
    expect(answer.status).toBe(400);
    expect(codes(answer)).toEqual(['PAGE_LIMIT']);
    expect(answer.body.errors?.[0]?.message).toMatch(/200 pages.*--max-pages/);
  });

  it('maxPages is a limit of its own: 5 pages, and what else the document read is answered (200)', async () => {
    const { ask, calls } = gatewayOver(endlessPods(), { limits: { rate: false, maxPages: 5 } });
    const answer = await ask('{ gpuTypes { id } myself { pods { id } } }');
    expect(calls.filter((c) => c === '/v2/pods')).toHaveLength(5);
    expect(answer.status).toBe(200);
    expect(answer.body.data?.gpuTypes).toEqual([]);
    expect(codes(answer)).toEqual(['PAGE_LIMIT']);
    expect(answer.body.errors?.[0]?.extensions?.limit).toBe('maxPages');
  });

  it('past maxItems items, the walk ends with ITEM_LIMIT before the next page is asked for', async () => {
    const { ask, calls } = gatewayOver(endlessPods(20), { limits: { rate: false, maxItems: 50 } });
    const answer = await ask('{ myself { pods { id } } }');
    // 20 + 20 + 20 > 50: the third page ends it.
    expect(calls.filter((c) => c === '/v2/pods')).toHaveLength(3);
    expect(codes(answer)).toEqual(['ITEM_LIMIT']);
  });

  it('a document makes at most maxUpstreamCalls calls: the call past it is not sent, and the rest is answered', async () => {
    const { ask, calls } = gatewayOver(async () => Response.json({ error: 'not found' }, { status: 404 }), { limits: { rate: false, maxUpstreamCalls: 10 } });
    const answer = await ask(aliasedPods(20, 'p'));
    expect(calls.length).toBeLessThanOrEqual(10);
    expect(codes(answer).filter((c) => c === 'CALL_LIMIT').length).toBeGreaterThan(0);
  });

  it('LimitExceededError is exported, names its limit and is a RunpodError', () => {
    const err = new LimitExceededError('maxItems', 'x');
    expect([err.name, err.limit, err.code]).toEqual(['LimitExceededError', 'maxItems', 'ITEM_LIMIT']);
  });
});

describe("the caller's rate debt", () => {
  it('a document stops once its caller owes more than one bucket: 429 RATE_LIMITED with Retry-After, and what it read is answered', async () => {
    const { ask, calls } = gatewayOver(endlessPods(), { limits: { rate: { requests: 10, intervalMs: 60_000 }, maxPages: 10_000 } });
    const answer = await ask('{ gpuTypes { id } myself { pods { id } } }');
    // One turn on arrival, then each answer past the first charged: 10 in the bucket, 10 of debt.
    const pages = calls.filter((c) => c === '/v2/pods').length;
    expect(pages).toBeGreaterThanOrEqual(19);
    expect(pages).toBeLessThanOrEqual(24);
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('60');
    expect(codes(answer)[0]).toBe('RATE_LIMITED');
    expect(answer.body.errors?.[0]?.message).toMatch(/more than one rate's worth/);
    expect(answer.body.data?.gpuTypes).toEqual([]);
  });
});

/** An upstream that holds each pod read until released, one at a time, in the order they arrived. */
function heldReads() {
  const waiting: Array<{ path: string; go: () => void }> = [];
  let inFlight = 0;
  let most = 0;
  const upstream: Upstream = (url, init) =>
    new Promise((resolve, reject) => {
      inFlight++;
      most = Math.max(most, inFlight);
      const done = (response: Response) => {
        inFlight--;
        resolve(response);
      };
      init?.signal?.addEventListener('abort', () => (inFlight--, reject(init.signal!.reason)), { once: true });
      waiting.push({ path: url.pathname, go: () => done(Response.json({ error: 'not found' }, { status: 404 })) });
    });
  return {
    upstream,
    waiting,
    most: () => most,
    releaseOne: () => waiting.shift()?.go(),
    releaseAll: () => waiting.splice(0).forEach((w) => w.go()),
  };
}

const until = async (check: () => boolean) => {
  for (let i = 0; !check(); i++) {
    if (i > 2_000) throw new Error('never');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
};


describe('upstream calls at once', () => {
  it("one document's calls at once are capped at maxUpstreamInFlight (8), below the client's 16 slots", async () => {
    const held = heldReads();
    const { ask } = gatewayOver(held.upstream, { limits: { rate: false } });
    const answer = ask(aliasedPods(25, 'a'));
    await until(() => held.waiting.length === 8);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(held.waiting.length).toBe(8);
    while (held.waiting.length > 0 || held.most() < 8) {
      held.releaseAll();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await answer;
    expect(held.most()).toBe(8);
  });

  it("callers take turns for the client's slots: another token's one call goes out at the first free slot, not behind the queue", async () => {
    const held = heldReads();
    const { ask } = gatewayOver(held.upstream, { limits: { rate: false, maxUpstreamInFlight: 16 } });
    // One token's two documents of 25 reads: 16 out, 34 queued.
    const heavy = [ask(aliasedPods(25, 'a')), ask(aliasedPods(25, 'b'))];
    await until(() => held.waiting.length === 16);
    const light = ask('{ pod(input: { podId: "light" }) { id } }', WRITE_TOKEN);
    await new Promise((resolve) => setTimeout(resolve, 20));
    held.releaseOne();
    await until(() => held.waiting.length === 16);
    // The freed slot went to the other caller's call.
    expect(held.waiting.map((w) => w.path)).toContain('/v2/pods/light');
    while (held.waiting.length > 0) {
      held.releaseAll();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all([...heavy, light]);
  });
});

describe("the rate debt with a shared store (Redis)", () => {
  it("what the store could not grant is the debt: past one bucket of it, the document is told to stop", async () => {
    const { createCallerRate } = await import('../../src/gateway/rate.js');
    let left = 5;
    // A store's bucket that grants what is left of its window, and nothing after.
    const store = {
      bucket: () => ({
        take: async (count: number) => {
          const granted = Math.min(count, left);
          left -= granted;
          return { granted, retryInMs: granted ? 0 : 60_000 };
        },
        release: () => {},
        pause: () => {},
        idle: () => false,
      }),
    };
    const rate = createCallerRate({ requests: 5, intervalMs: 60_000 }, store);
    await rate.take('caller');
    let stops = 0;
    // 4 granted, then 5 of debt, then the sixth past one bucket.
    for (let i = 0; i < 9; i++) rate.charge('caller', 1, () => stops++);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stops).toBe(0);
    for (let i = 0; i < 2; i++) rate.charge('caller', 1, () => stops++);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stops).toBe(2);
  });
});

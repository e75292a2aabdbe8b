// A caller that hangs up stops its document upstream, and frees its slot: through the Node
// listener (the connection's close, hang-up.ts) and in process (the request's signal); a document
// waiting in line for a slot leaves the line. A caller that stays is answered.
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/index.js';
import { listen } from '../../src/gateway/node.js';
import { bearer, READ_TOKEN } from './harness.js';

/** A gateway over a fake RunPod GraphQL that holds every call until it is released or aborted. */
function heldGateway(limits: { maxInFlight?: number } = {}) {
  const held: Array<{ signal: AbortSignal | undefined; release: () => void }> = [];
  const aborted: unknown[] = [];
  const gateway = createGateway({
    tokens: `read:${READ_TOKEN}`,
    upstream: 'graphql',
    cache: false,
    limits,
    client: {
      apiKey: 'rpa_HANGUPUPSTREAM0123456789ABCDEFGHIJKLMNOP',
      graphqlUrl: 'http://127.0.0.1:9/graphql',
      restUrl: 'http://127.0.0.1:9/v2',
      maxRetries: 0,
      fetch: (_input, init) =>
        new Promise<Response>((resolve, reject) => {
          const signal = init?.signal ?? undefined;
          signal?.addEventListener('abort', () => (aborted.push(signal.reason), reject(signal.reason)), { once: true });
          held.push({ signal, release: () => resolve(Response.json({ data: { myself: { id: 'u1' } } })) });
        }),
    },
  });
  return { gateway, held, aborted };
}

const until = async (check: () => boolean, what: string) => {
  const end = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const body = JSON.stringify({ query: '{ myself { id } }' });
const headers = { 'content-type': 'application/json', ...bearer(READ_TOKEN) };

describe('a caller that hangs up', () => {
  it('through the Node listener: its document is stopped upstream and its slot freed; the next caller is answered', async () => {
    const { gateway, held, aborted } = heldGateway();
    const served = await listen(gateway);
    try {
      const controller = new AbortController();
      const gone = fetch(served.graphqlUrl, { method: 'POST', headers, body, signal: controller.signal }).catch((err: Error) => err.name);
      await until(() => held.length === 1, 'the upstream call');
      expect(gateway.inFlight).toBe(1);
      controller.abort();
      expect(await gone).toBe('AbortError');
      await until(() => aborted.length === 1, 'the upstream call to be aborted');
      await until(() => gateway.inFlight === 0, 'the slot to be freed');
      // A caller that stays connected is answered, and its call is not aborted.
      const stays = fetch(served.graphqlUrl, { method: 'POST', headers, body });
      await until(() => held.length === 2, 'the second upstream call');
      held[1]!.release();
      const answer = await stays;
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { data: unknown }).data).toEqual({ myself: { id: 'u1' } });
      expect(aborted).toHaveLength(1);
      expect(held[1]!.signal?.aborted).toBe(false);
    } finally {
      await served.close();
    }
  });

  it('through the Node listener, while waiting in line for a slot: it leaves the line, and sends nothing', async () => {
    const { gateway, held } = heldGateway({ maxInFlight: 1 });
    const served = await listen(gateway);
    try {
      const first = fetch(served.graphqlUrl, { method: 'POST', headers, body });
      await until(() => held.length === 1, 'the first upstream call');
      const controller = new AbortController();
      const waiting = fetch(served.graphqlUrl, { method: 'POST', headers, body, signal: controller.signal }).catch((err: Error) => err.name);
      await until(() => gateway.inFlight === 2, 'the second request to wait');
      controller.abort();
      expect(await waiting).toBe('AbortError');
      await until(() => gateway.inFlight === 1, 'the waiting request to leave');
      held[0]!.release();
      expect((await first).status).toBe(200);
      // The one that left never ran.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(held).toHaveLength(1);
    } finally {
      await served.close();
    }
  });

  it("in process: the request's signal stops its document upstream", async () => {
    const { gateway, held, aborted } = heldGateway();
    const controller = new AbortController();
    const answered = gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers, body, signal: controller.signal }));
    await until(() => held.length === 1, 'the upstream call');
    controller.abort('gone');
    await until(() => aborted.length === 1, 'the upstream call to be aborted');
    await answered;
    expect(gateway.inFlight).toBe(0);
  });
});

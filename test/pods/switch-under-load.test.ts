import { describe, expect, it } from 'vitest';
import { createRunpodClient, type RunpodClientOptions, type TransportChangeEvent } from '../../src/index.js';
import { createEmulator, type EmulatorOptions } from '../../src/emulator/index.js';

const KEY = 'rpa_switch_under_load';
const CALLS = 200;
const BODIES = ['problem', 'graphql', 'empty'] as const;

/**
 * A client on an in-process emulator that counts GraphQL requests at the fetch seam, and notes how
 * many had been sent when the client first read a 410's status (the moment it can know of the
 * retirement): every GraphQL request counted after that was sent after the event.
 */
function setup(emulatorOptions: EmulatorOptions, clientOptions: RunpodClientOptions, beforeSend?: (graphqlSent: number) => void) {
  const emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 0, ...emulatorOptions });
  const base = emulator.clientOptions(KEY);
  const counts = { graphqlSent: 0, sentBeforeGone: undefined as number | undefined };
  const events: TransportChangeEvent[] = [];
  const observed = (res: Response): Response =>
    new Proxy(res, {
      get(target, prop) {
        if (prop === 'status' && target.status === 410) counts.sentBeforeGone ??= counts.graphqlSent;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  const rp = createRunpodClient({
    ...base,
    onTransportChange: (e) => events.push(e),
    ...clientOptions,
    fetch: async (input, init) => {
      const graphql = String(input instanceof Request ? input.url : input).includes('/graphql');
      if (!graphql) return base.fetch!(input, init);
      beforeSend?.(counts.graphqlSent);
      counts.graphqlSent++;
      return observed(await base.fetch!(input, init));
    },
  });
  const afterEvent = () => counts.graphqlSent - (counts.sentBeforeGone ?? Infinity);
  return { emulator, rp, counts, events, afterEvent };
}

describe('the switch under load: calls queued for a GraphQL turn when the 410 arrives go to REST v2 unsent', () => {
  it.each(BODIES)(`${CALLS} concurrent calls, GraphQL retired from the start (410 body: %s): 0 GraphQL requests after the event`, async (body) => {
    const { rp, counts, events, afterEvent } = setup({ graphqlRetired: { body } }, { rateLimits: { graphql: { requests: 1_000_000, intervalMs: 1_000, concurrency: 10 } } });
    const results = await Promise.all(Array.from({ length: CALLS }, () => rp.pods.list()));
    expect(results.every((pods) => Array.isArray(pods))).toBe(true);
    expect(counts.sentBeforeGone).toBeDefined();
    expect(afterEvent()).toBe(0);
    // Only the first turns (the concurrency cap) were ever sent.
    expect(counts.graphqlSent).toBeLessThanOrEqual(10);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ reason: 'retired', sticky: true });
  });

  it.each(BODIES)('calls waiting for a GraphQL rate window leave it at the switch, without waiting for it (410 body: %s)', async (body) => {
    // An hour-long window: a call that waited for its GraphQL turn would not finish within the test.
    const { rp, counts, afterEvent } = setup({ graphqlRetired: { body } }, { rateLimits: { graphql: { requests: 5, intervalMs: 3_600_000, concurrency: 5 } } });
    const pods = await Promise.all(Array.from({ length: CALLS }, () => rp.pods.get('no-such-pod')));
    expect(pods.every((pod) => pod === null)).toBe(true);
    expect(counts.graphqlSent).toBeLessThanOrEqual(5);
    expect(afterEvent()).toBe(0);
  });

  it.each(BODIES)(`retired mid-run under ${CALLS} concurrent calls (410 body: %s): 0 GraphQL requests after the event`, async (body) => {
    let retire = () => {};
    const { emulator, rp, counts, events, afterEvent } = setup({}, { rateLimits: { graphql: { requests: 1_000_000, intervalMs: 1_000, concurrency: 10 } } }, (sent) => {
      if (sent === 30) retire();
    });
    retire = () => emulator.retireGraphql(body);
    const results = await Promise.all(Array.from({ length: CALLS }, () => rp.pods.list()));
    expect(results).toHaveLength(CALLS);
    expect(counts.sentBeforeGone).toBeGreaterThanOrEqual(30);
    expect(afterEvent()).toBe(0);
    expect(events).toHaveLength(1);
  });

  it("with podsTransport: 'graphql' nothing is moved: queued calls still go to GraphQL and meet the 410", async () => {
    const { rp, counts } = setup({ graphqlRetired: true }, { podsTransport: 'graphql', rateLimits: { graphql: { requests: 1_000_000, intervalMs: 1_000, concurrency: 10 } } });
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => rp.pods.list()));
    expect(outcomes.every((o) => o.status === 'rejected' && (o.reason as Error).name === 'ApiRetiredError')).toBe(true);
    expect(counts.graphqlSent).toBe(30);
  });
});

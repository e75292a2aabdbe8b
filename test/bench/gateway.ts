// Issue 28's gateway row: the CPU one request costs through the gateway (a GraphQL document over
// HTTP semantics, authenticated, executed in process over REST v2) against the same read made
// directly with rp.rest. Both reach one in-process emulator through its fetch, so no socket is
// timed; both pay the emulator's REST handling, the gateway pays its own work on top.
import { createEmulator } from '../../src/emulator/index.js';
import { createGateway } from '../../src/gateway/index.js';
import { createRunpodClient } from '../../src/index.js';
import { mergeFailures, type Failures } from './honest-rows.js';
import { pairedCpu, type Spread } from './stats.js';

const TOKEN = 'bench-gateway-read-token-0123456789';

export interface GatewayFigures {
  /** CPU per request through the gateway / directly, per round. */
  readonly ratio: Spread;
  readonly gatewayUs: Spread;
  readonly directUs: Spread;
  /**
   * The same through a gateway that keeps a per-caller rate (as by default; here with a limit no
   * round reaches), against the direct read of the same rounds.
   */
  readonly rated: { readonly ratio: Spread; readonly gatewayUs: Spread; readonly directUs: Spread };
  /** Requests that failed, either side, in either comparison: with any, no ratio is printed. */
  readonly failures: Failures;
}

export async function measureGateway(quick: boolean): Promise<GatewayFigures> {
  // REST v2's per-minute limit out of the way: 15 rounds of 1,000 reads would otherwise wait for it.
  const emulator = createEmulator({ podStartupMs: 0, restRateLimitPerMinute: 1_000_000 });
  const options = emulator.clientOptions();
  const rp = createRunpodClient({ ...options, rateLimits: false });
  const { id: podId } = await rp.rest.pods.create({ name: 'bench', image: 'runpod/base', gpu: { id: 'NVIDIA RTX A4000' } });
  // The response cache off: the rows measure a document's run through the pipeline, which a cache
  // that answers the repeated read would hide (it is measured by the upstream-calls row instead).
  const gateway = createGateway({ tokens: `read:${TOKEN}`, cache: false, limits: { rate: false }, client: { ...options, rateLimits: false } });
  // A limit far out of reach: what is measured is the rate's bookkeeping, never a 429.
  const rated = createGateway({ tokens: `read:${TOKEN}`, cache: false, limits: { rate: { requests: 1_000_000_000, intervalMs: 60_000 } }, client: { ...options, rateLimits: false } });
  const body = JSON.stringify({ query: 'query Pod($id: String!) { pod(input: { podId: $id }) { id name desiredStatus imageName } }', variables: { id: podId } });
  const through = (g: typeof gateway) => async () => {
    const response = await g.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body }));
    const answer = (await response.json()) as { data?: { pod?: { id?: string } } };
    if (answer.data?.pod?.id !== podId) throw Object.assign(new Error(`gateway answered ${response.status}`), { name: `HTTP ${response.status}` });
  };
  const viaGateway = through(gateway);
  const direct = async () => {
    if ((await rp.rest.pods.get(podId)).id !== podId) throw new Error('direct read failed');
  };
  const { ratio, a, b, failures } = await pairedCpu(viaGateway, direct, quick ? 200 : 1000, quick ? 6 : 15);
  const withRate = await pairedCpu(through(rated), direct, quick ? 200 : 1000, quick ? 6 : 15);
  emulator.dispose();
  return { ratio, gatewayUs: a, directUs: b, rated: { ratio: withRate.ratio, gatewayUs: withRate.a, directUs: withRate.b }, failures: mergeFailures(failures, withRate.failures) };
}

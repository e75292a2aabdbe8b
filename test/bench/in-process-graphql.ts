// Issue 32's in-process GraphQL row: the client's own JavaScript for a document executed over
// REST v2 (`rp.graphql.request(PodDocument)` with graphqlTransport 'rest') against the REST path of
// `rp.pods.get` (graphqlTransport 'rest'). Both read the same pod through a fetch double that
// answers from memory (per-call-worker.ts's technique), so the network and the emulator are out
// of the figure: what is left is graphql-js's execution and the resolvers against the direct path.
import { createEmulator } from '../../src/emulator/index.js';
import { createRunpodClient, PodDocument } from '../../src/index.js';
import type { Failures } from './honest-rows.js';
import { pairedCpu, type Spread } from './stats.js';

export interface InProcessFigures {
  /** CPU per call, the document / rp.pods.get, per round. */
  readonly ratio: Spread;
  readonly documentUs: Spread;
  readonly directUs: Spread;
  /** Calls that failed (with any, the bench prints no ratio). */
  readonly failures: Failures;
}

export async function measureInProcessGraphQL(quick: boolean): Promise<InProcessFigures> {
  // The answer text comes once from the emulator, so it is the shape production gives.
  const emulator = createEmulator({ podStartupMs: 0 });
  const options = emulator.clientOptions();
  const seed = createRunpodClient({ ...options, rateLimits: false });
  const { id: podId } = await seed.rest.pods.create({ name: 'bench', image: 'runpod/base', gpu: { id: 'NVIDIA RTX A4000' }, ports: ['22/tcp'] });
  const podPath = `/pods/${encodeURIComponent(podId)}`;
  const text = await (await options.fetch!(`${options.restUrl}${podPath}`, { headers: { authorization: `Bearer ${options.apiKey}` } })).text();
  emulator.dispose();

  const headers = { 'content-type': 'application/json' };
  let sent = 0;
  const fetchDouble = (async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    // Anything but the one pod read would be a different call than the one measured.
    if (!url.endsWith(podPath)) throw new Error(`unexpected request ${url}`);
    sent++;
    return new Response(text, { status: 200, headers });
  }) as typeof fetch;
  const rp = createRunpodClient({ apiKey: 'rpa_bench_key', restUrl: options.restUrl, graphqlUrl: options.graphqlUrl, graphqlTransport: 'rest', rateLimits: false, fetch: fetchDouble });
  const variables = { input: { podId } };

  const document = async () => {
    if ((await rp.graphql.request(PodDocument, variables)).pod?.id !== podId) throw new Error('the document did not read the pod');
  };
  const direct = async () => {
    if ((await rp.pods.get(podId))?.id !== podId) throw new Error('rp.pods.get did not read the pod');
  };
  // Checked first: the document makes the one read the direct call makes, nothing more.
  await document();
  sent = 0;
  await document();
  if (sent !== 1) throw new Error(`the document sent ${sent} requests, not 1`);
  const { ratio, a, b, failures } = await pairedCpu(document, direct, quick ? 500 : 2_000, quick ? 8 : 15);
  return { ratio, documentUs: a, directUs: b, failures };
}

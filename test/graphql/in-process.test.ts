import { describe, expect, it } from 'vitest';
import { createRunpodClient, GraphQLResponseError, TransportUnsupportedError, type RunpodClientOptions, type TransportChangeEvent } from '../../src/index.js';
import { createEmulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { GpuTypesDocument, MyPodsDocument, PodDocument, DeployPodDocument, StopPodDocument, TerminatePodDocument, GpuTypeCatalogDocument } from '../../src/graphql/__generated__/operations.js';
import { captureError } from '../helpers.js';

const KEY = 'rpa_in_process_key';
const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';

/** A client on an in-process emulator, counting requests by kind at the fetch seam. */
function setup(emulatorOptions: EmulatorOptions = {}, clientOptions: RunpodClientOptions = {}) {
  const emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 0, ...emulatorOptions });
  const base = emulator.clientOptions(KEY);
  const sent: string[] = [];
  const events: TransportChangeEvent[] = [];
  const rp = createRunpodClient({
    ...base,
    rateLimits: false,
    onTransportChange: (e) => events.push(e),
    ...clientOptions,
    fetch: (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      sent.push(`${init?.method ?? 'GET'} ${url.pathname}`);
      return base.fetch!(input, init);
    },
  });
  const graphqlSent = () => sent.filter((s) => s.endsWith('/graphql')).length;
  return { emulator, rp, sent, events, graphqlSent };
}

describe('rp.graphql in process over REST v2', () => {
  it("graphqlTransport 'rest': generated documents run with no GraphQL request", async () => {
    const { rp, graphqlSent, sent } = setup({}, { graphqlTransport: 'rest' });
    const deployed = await rp.graphql.request(DeployPodDocument, { input: { name: 'a', imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, cloudType: 'SECURE', ports: '8888/http' } });
    const pod = deployed.podFindAndDeployOnDemand!;
    expect(pod.id).toBeTruthy();
    const got = await rp.graphql.request(PodDocument, { input: { podId: pod.id } });
    expect(got.pod?.id).toBe(pod.id);
    const mine = await rp.graphql.request(MyPodsDocument);
    expect(mine.myself?.pods?.map((p) => p?.id)).toEqual([pod.id]);
    const types = await rp.graphql.request(GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } });
    expect(types.gpuTypes?.length).toBeGreaterThan(0);
    const stopped = await rp.graphql.request(StopPodDocument, { input: { podId: pod.id } });
    expect(stopped.podStop?.desiredStatus).toBe('EXITED');
    expect((await rp.graphql.request(TerminatePodDocument, { input: { podId: pod.id } })).podTerminate).toBeNull();
    expect(graphqlSent()).toBe(0);
    expect(sent.length).toBeGreaterThan(0);
  });

  it('a field with no REST v2 source is an error naming it, never a value', async () => {
    const { rp } = setup({}, { graphqlTransport: 'rest' });
    const err = await captureError(rp.graphql.request('query { myself { clientBalance } }'));
    expect(err).toBeInstanceOf(TransportUnsupportedError);
    expect((err as TransportUnsupportedError).fields).toEqual(['User.clientBalance']);
    expect((err as Error).message).toContain('clientBalance');
    const result = await rp.graphql.execute('query { myself { clientBalance } }');
    expect(result.data).toEqual({ myself: { clientBalance: null } });
    expect(result.errors?.[0]?.message).toContain('clientBalance');
    expect(result.errors?.[0]?.path).toEqual(['myself', 'clientBalance']);
  });

  it('an invalid document: execute returns errors without data; request throws a GraphQLResponseError of HTTP 400', async () => {
    const { rp, sent } = setup({}, { graphqlTransport: 'rest' });
    const result = await rp.graphql.execute('query { myself { nope } }');
    expect(result.data).toBeUndefined();
    expect(result.errors?.[0]?.message).toContain('nope');
    const err = await captureError(rp.graphql.request('query { myself { nope } }'));
    expect(err).toBeInstanceOf(GraphQLResponseError);
    expect((err as GraphQLResponseError).status).toBe(400);
    expect(sent).toEqual([]);
  });

  it('within one document each thing is read once: myself { pods } with gpuTypes', async () => {
    const { rp, sent } = setup({}, { graphqlTransport: 'rest' });
    await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', cloudType: 'SECURE' });
    sent.length = 0;
    const doc = `query {
      a: myself { pods { id } } b: myself { pods { id name } }
      x: gpuTypes { id lowestPrice(input: { gpuCount: 1 }) { uninterruptablePrice } }
      y: gpuTypes { id displayName lowestPrice(input: { gpuCount: 1 }) { stockStatus } }
    }`;
    const result = await rp.graphql.execute(doc);
    expect(result.errors).toBeUndefined();
    expect(sent.filter((s) => s === 'GET /v2/pods')).toHaveLength(1);
    // One catalog read per cloud (the REST path reads SECURE and COMMUNITY), whatever selects it.
    expect(sent.filter((s) => s === 'GET /v2/catalog/gpus')).toHaveLength(2);
  });

  it("'auto': the call that meets the 410 is re-run in process, then no GraphQL request at all", async () => {
    const { rp, graphqlSent, events } = setup({ graphqlRetired: true });
    const first = await rp.graphql.request(GpuTypeCatalogDocument);
    expect(first.gpuTypes?.length).toBeGreaterThan(0);
    expect(graphqlSent()).toBe(1);
    expect(events.map((e) => [e.surface, e.reason])).toEqual([['graphql', 'retired']]);
    await rp.graphql.request(MyPodsDocument);
    await rp.graphql.execute(GpuTypesDocument, { lowestPriceInput: { gpuCount: 2 } });
    expect(graphqlSent()).toBe(1);
  });

  it("'graphql' (strict): a 410 is an ApiRetiredError naming graphqlTransport", async () => {
    const { rp } = setup({ graphqlRetired: true }, { graphqlTransport: 'graphql' });
    const err = await captureError(rp.graphql.request(MyPodsDocument));
    expect((err as Error).name).toBe('ApiRetiredError');
    expect(String((err as { replacement?: string }).replacement)).toContain('graphqlTransport');
  });

  it('podsTransport still works as the old name; two different values are refused', () => {
    const emulator = createEmulator({ apiKeys: [KEY] });
    expect(() => createRunpodClient({ ...emulator.clientOptions(KEY), podsTransport: 'rest', graphqlTransport: 'graphql' })).toThrow(/old name of graphqlTransport/);
    expect(() => createRunpodClient({ ...emulator.clientOptions(KEY), podsTransport: 'rest' })).not.toThrow();
  });
});

// Issue 44, frictions 17 and 18: the package's clients against the gateways a page meets. A client
// of an `--allow-anonymous` gateway needs no `apiKey: null`; a `--persisted` gateway finds a
// document by the `sha256:` spelling of its text's hash too, and runs `{ documentId, query }` (the
// full client's default) by the id.
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGatewayFetcher } from '../../src/graphql/gateway-fetch.js';
import { createRunpodClient, GpuTypesDocument, ValidationError } from '../../src/index.js';
import { captureError } from '../helpers.js';
import { READ_TOKEN, startRig, type GatewayRig } from './harness.js';
import { readFileSync } from 'node:fs';

const packaged = JSON.parse(readFileSync(new URL('../../persisted-documents.json', import.meta.url), 'utf8')) as Record<string, string>;
const hashOf = (document: unknown) => (document as { __meta__: { hash: string } }).__meta__.hash;

describe('a client of an --allow-anonymous gateway', () => {
  let rig: GatewayRig;
  beforeAll(async () => {
    rig = await startRig({ tokens: '', allowAnonymous: true });
  });
  afterAll(() => rig.close());
  afterEach(() => vi.unstubAllEnvs());

  it('needs no apiKey: null: with no key anywhere, its documents go to the gateway without one', async () => {
    vi.stubEnv('RUNPOD_API_KEY', '');
    const sent: Headers[] = [];
    const rp = createRunpodClient({ graphqlUrl: rig.gateway.graphqlUrl, fetch: (input, init) => (sent.push(new Headers(init?.headers)), fetch(input, init)) });
    const { gpuTypes } = await rp.graphql.request(GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } });
    expect(gpuTypes!.length).toBeGreaterThan(3);
    expect(sent[0]!.has('authorization')).toBe(false);
    // RunPod's own hosts still need a key: REST v2 is refused before anything is sent.
    const err = await captureError<ValidationError>(rp.rest.pods.list());
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toContain('no API key');
    expect(sent).toHaveLength(1);
  });

  it('a client still pointed at RunPod\'s GraphQL with no key is told where one comes from', async () => {
    vi.stubEnv('RUNPOD_API_KEY', '');
    const rp = createRunpodClient({ fetch: () => Promise.reject(new Error('nothing may be sent')) });
    expect((await captureError(rp.graphql.request(GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } }))).message).toContain('no API key');
  });
});

describe('a --persisted gateway', () => {
  let rig: GatewayRig;
  beforeAll(async () => {
    rig = await startRig({ persisted: packaged });
    // Ready once every persisted text is indexed by its hash too.
    while ((await fetch(rig.gateway.graphqlUrl.replace(/\/graphql$/, '/readyz'))).status !== 200) await new Promise((resolve) => setTimeout(resolve, 10));
  });
  afterAll(() => rig.close());

  it('finds a document by sha256:<hex of its text>, as codegen\'s client preset spells ids', async () => {
    const text = packaged[hashOf(GpuTypesDocument)]!;
    const id = `sha256:${createHash('sha256').update(text).digest('hex')}`;
    const execute = createGatewayFetcher({ url: rig.gateway.graphqlUrl, token: READ_TOKEN });
    const byId = await execute(Object.assign(new String(''), { __meta__: { hash: id } }) as unknown as typeof GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } });
    expect(byId.gpuTypes!.length).toBeGreaterThan(3);
  });

  it("runs the full client's default { documentId, query } by the id, and the page fetcher's { documentId }", async () => {
    const bodies: string[] = [];
    const rp = createRunpodClient({ graphqlUrl: rig.gateway.graphqlUrl, gatewayToken: READ_TOKEN, fetch: (input, init) => (bodies.push(String(init?.body)), fetch(input, init)) });
    const viaClient = await rp.graphql.request(GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } });
    expect(JSON.parse(bodies[0]!)).toMatchObject({ documentId: hashOf(GpuTypesDocument), query: String(GpuTypesDocument) });
    const viaPage = await createGatewayFetcher({ url: rig.gateway.graphqlUrl, token: READ_TOKEN })(GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } });
    expect(viaPage).toEqual(viaClient);
  });
});

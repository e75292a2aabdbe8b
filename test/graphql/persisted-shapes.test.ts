// Issue 44 item 7, friction 17: every persisted-document shape graphql-codegen's client preset
// writes (today's `sha256:` ids with no operation type, a DocumentNode's hash, SHA-1's bare hex, a
// document replaced by its id, `hashPropertyName: 'documentId'`), made by running the preset on a
// fixture with the README's config and its variants, goes by id to a `--persisted` gateway that
// holds the preset's persisted-documents.json: from the full client with its defaults and with
// `persistedDocuments: 'always'`, and from the page fetcher.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayFetcher } from '../../src/graphql/gateway-fetch.js';
import { createRunpodClient, ValidationError } from '../../src/index.js';
import { READ_TOKEN, startRig, type GatewayRig } from '../gateway/harness.js';
import { captureError } from '../helpers.js';
import { PRESET_SHAPES, runClientPreset, type PresetOutput, type PresetShape } from './codegen-preset.js';

const EXPECTED_ID: Record<PresetShape, RegExp> = {
  readme: /^sha256:[0-9a-f]{64}$/,
  documentNode: /^sha256:[0-9a-f]{64}$/,
  sha1: /^[0-9a-f]{40}$/,
  idOnly: /^sha256:[0-9a-f]{64}$/,
  documentId: /^sha256:[0-9a-f]{64}$/,
};

const idOf = (document: unknown): string => {
  const meta = (document as { __meta__: { hash?: string; documentId?: string } }).__meta__;
  return (meta.hash ?? meta.documentId)!;
};

describe("codegen's client preset: every persisted-document shape goes by id", () => {
  let preset: PresetOutput;
  let rig: GatewayRig;
  beforeAll(async () => {
    preset = await runClientPreset();
    rig = await startRig({ persisted: preset.persisted });
  }, 60_000);
  afterAll(() => rig?.close());

  const recording = () => {
    const bodies: Array<Record<string, unknown>> = [];
    const fetchAndRecord: typeof fetch = (input, init) => {
      bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      return fetch(input, init);
    };
    return { bodies, fetch: fetchAndRecord };
  };

  it.each(Object.keys(PRESET_SHAPES) as PresetShape[])('%s: the full client (defaults and persistedDocuments: always) and the page fetcher', async (shape) => {
    const document = preset.modules[shape].AppGpuNamesDocument as string;
    const id = idOf(document);
    expect(id).toMatch(EXPECTED_ID[shape]);
    expect(preset.persisted[id]).toContain('AppGpuNames');

    // The full client, with its defaults: the id, with the text when it has one.
    const auto = recording();
    const rp = createRunpodClient({ graphqlUrl: rig.gateway.graphqlUrl, gatewayToken: READ_TOKEN, fetch: auto.fetch });
    const data = (await rp.graphql.request(document)) as { gpuTypes: Array<{ id: string }> };
    expect(data.gpuTypes.length).toBeGreaterThan(3);
    expect(auto.bodies[0]!.documentId).toBe(id);
    if (shape === 'idOnly') expect(auto.bodies[0]).not.toHaveProperty('query');
    else expect(auto.bodies[0]!.query).toEqual(expect.stringContaining('AppGpuNames'));

    // 'always': the id alone, with the operation's name read from the text.
    const always = recording();
    const strict = createRunpodClient({ graphqlUrl: rig.gateway.graphqlUrl, gatewayToken: READ_TOKEN, persistedDocuments: 'always', fetch: always.fetch });
    expect(await strict.graphql.request(document)).toEqual(data);
    expect(always.bodies[0]).not.toHaveProperty('query');
    expect(always.bodies[0]!.documentId).toBe(id);

    // The page fetcher: the id alone.
    const page = recording();
    const execute = createGatewayFetcher({ url: rig.gateway.graphqlUrl, token: READ_TOKEN, fetch: page.fetch });
    expect(await execute(preset.modules[shape].AppGpuNamesDocument as never)).toEqual(data);
    expect(page.bodies[0]).toEqual({ documentId: id });
  });

  it('a document that is its id alone is refused, naming why, where only text can go (persistedDocuments: never)', async () => {
    const rp = createRunpodClient({ graphqlUrl: rig.gateway.graphqlUrl, gatewayToken: READ_TOKEN, persistedDocuments: 'never', fetch: () => Promise.reject(new Error('nothing may be sent')) });
    const err = await captureError<ValidationError>(rp.graphql.request(preset.modules.idOnly.AppGpuNamesDocument as string));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toContain('replaceDocumentWithHash');
  });

  it("the preset's mutation is read as a mutation from its text (no operation type in __meta__): never resent after a 503", async () => {
    let calls = 0;
    const rp = createRunpodClient({
      graphqlUrl: 'https://gateway.example.test/graphql',
      gatewayToken: READ_TOKEN,
      maxRetries: 3,
      fetch: async () => (calls++, new Response(JSON.stringify({ errors: [{ message: 'busy' }] }), { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '0' } })),
    });
    await captureError(rp.graphql.request(preset.modules.readme.AppStopPodDocument as string, { input: { podId: 'p1' } }));
    expect(calls).toBe(1);
    await captureError(rp.graphql.request(preset.modules.readme.AppGpuNamesDocument as string, undefined, { maxRetries: 1 }));
    expect(calls).toBe(3);
  });
});

// Persisted documents end to end: the package's own persisted-documents.json runs on a `--persisted`
// gateway, asked for by id by the package's own client; a persisted document the schema refuses
// stops the gateway from starting, naming it.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/index.js';
import { createRunpodClient, PodDocument, ValidationError } from '../../src/index.js';
import { bearer, READ_TOKEN, startRig, WRITE_TOKEN, type GatewayRig } from './harness.js';

const packaged = JSON.parse(readFileSync(new URL('../../persisted-documents.json', import.meta.url), 'utf8')) as Record<string, string>;

describe('persisted documents', () => {
  let rig: GatewayRig;
  beforeAll(async () => {
    rig = await startRig({ persisted: packaged });
  });
  afterAll(() => rig.close());

  it("the package's client asks a --persisted gateway for its own operations by id, and only the id travels", async () => {
    const sent: string[] = [];
    const rp = createRunpodClient({
      graphqlUrl: rig.gateway.graphqlUrl,
      gatewayToken: WRITE_TOKEN,
      persistedDocuments: 'always',
      fetch: (input, init) => {
        sent.push(String(init?.body));
        return fetch(input, init);
      },
    });
    const pod = await rp.graphql.request(PodDocument, { input: { podId: 'no-such-pod' } });
    expect(pod).toEqual({ pod: null });
    const body = JSON.parse(sent[0]!) as Record<string, unknown>;
    expect(body).not.toHaveProperty('query');
    expect(packaged[body.documentId as string]).toBeDefined();
    // Any other text is refused by this gateway.
    const text = await rig.post({ query: '{ myself { pods { id } } }' }, bearer(READ_TOKEN));
    expect(((await text.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('PERSISTED_QUERY_ONLY');
  });

  it('a persisted document the schema refuses stops the gateway from starting, naming it', () => {
    const start = () =>
      createGateway({ tokens: `read:${READ_TOKEN}`, client: { apiKey: 'rpa_persisted_check_0123456789' }, persisted: { ...packaged, broken: '{ myself { noSuchField } }' } });
    expect(start).toThrow(ValidationError);
    expect(start).toThrow(/persisted\.broken.*noSuchField/);
  });
});

// Issue 43, cause 6: an ambiguous create of a resource that cannot carry a marker (a network
// volume, registry credentials) answers no empty `createMarker`; it says what to look for instead.
import { describe, expect, it } from 'vitest';
import { PossiblyCreatedError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/index.js';
import { createRunpodClient } from '../../src/index.js';

const TOKEN = 'gw-marker-write-token-0123456789ab';
const fetch = async (): Promise<Response> => new Response('bad gateway', { status: 502 });

describe('creates without a marker', () => {
  it.each([
    ['createNetworkVolume', 'mutation { createNetworkVolume(input: { name: "vol-7", size: 10, dataCenterId: "EU-RO-1" }) { id } }', 'one named "vol-7" in GET /network-volumes'],
    ['saveRegistryAuth', 'mutation { saveRegistryAuth(input: { name: "ghcr-7", username: "u", password: "registry-password-0123" }) { id } }', 'one named "ghcr-7" in GET /registries'],
  ])('%s: no createMarker, and what to look for', async (_name, query, lookFor) => {
    const gateway = createGateway({ tokens: `write:${TOKEN}`, client: { apiKey: 'rpa_marker_upstream_KEY_0123456789', restUrl: 'http://127.0.0.1:9/v2', maxRetries: 0, rateLimits: false, fetch } });
    const answer = await gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ query }) }));
    const body = (await answer.json()) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> };
    const error = body.errors[0]!;
    expect(error.extensions.code).toBe('POSSIBLY_CREATED');
    expect(error.extensions).not.toHaveProperty('createMarker');
    expect(error.extensions.lookFor).toBe(lookFor);
    expect(error.message).toContain(`Look for ${lookFor}`);
  });

  it('the library error says it too', async () => {
    const rp = createRunpodClient({ apiKey: 'rpa_marker_library_KEY_0123456789', maxRetries: 0, fetch });
    const err = await rp.rest.networkVolumes.create({ name: "vol-8", size: 10, dataCenter: "EU-RO-1" } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect((err as PossiblyCreatedError).createMarker).toBe('');
    expect((err as PossiblyCreatedError).lookFor).toBe('one named "vol-8" in GET /network-volumes');
  });
});

// Field-level scopes from the field map: a `catalog` token reads the GPU catalog and nothing of the
// account; a `read` token (the one a page holds) never reads a field that can hold a secret's value
// (`Pod.env`); a token that asks beyond its scope gets 403 naming every such field, and nothing is
// sent upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayTokens } from '../../src/gateway/index.js';
import { bearer, READ_TOKEN, startRig, WRITE_TOKEN, type GatewayRig } from './harness.js';

const CATALOG_TOKEN = 'gw-catalog-token-0123456789abcdef';

describe('field scopes at the gateway', () => {
  let rig: GatewayRig;
  beforeAll(async () => {
    rig = await startRig({ tokens: `catalog:${CATALOG_TOKEN},read:${READ_TOKEN},write:${WRITE_TOKEN}` });
    // A pod whose env holds a secret, made with the write token.
    const made = await rig.post(
      { query: 'mutation($input: PodFindAndDeployOnDemandInput) { podFindAndDeployOnDemand(input: $input) { id } }', variables: { input: { gpuTypeId: 'NVIDIA RTX A4000', imageName: 'ubuntu:24.04', gpuCount: 1, env: [{ key: 'HF_TOKEN', value: 'hf_scope_secret_value_0123456789' }] } } },
      bearer(WRITE_TOKEN),
    );
    expect(made.status).toBe(200);
  });
  afterAll(() => rig.close());

  it('a catalog token reads the GPU catalog, and is refused any account field, by name', async () => {
    const prices = await rig.post({ query: '{ gpuTypes { id displayName lowestPrice(input: { gpuCount: 1 }) { uninterruptablePrice stockStatus } } }' }, bearer(CATALOG_TOKEN));
    expect(prices.status).toBe(200);
    expect(((await prices.json()) as { data: { gpuTypes: unknown[] } }).data.gpuTypes.length).toBeGreaterThan(0);
    const sent = rig.upstreamCalls.length;
    const account = await rig.post({ query: '{ gpuTypes { id } myself { pods { id name } } }' }, bearer(CATALOG_TOKEN));
    expect(account.status).toBe(403);
    const body = (await account.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors[0]!.extensions.code).toBe('FORBIDDEN');
    expect(body.errors[0]!.message).toContain('Query.myself');
    expect(body.errors[0]!.message).toContain('User.pods');
    expect(rig.upstreamCalls.length).toBe(sent);
  });

  it("a read token reads pods but not their env, which a write token reads; the secret never reaches the read token's answer", async () => {
    const refused = await rig.post({ query: '{ myself { pods { id env } } }' }, bearer(READ_TOKEN));
    expect(refused.status).toBe(403);
    const text = await refused.text();
    expect(text).toContain('Pod.env');
    expect(text).not.toContain('hf_scope_secret_value');
    // Through a fragment too.
    const viaFragment = await rig.post({ query: '{ myself { pods { ...P } } } fragment P on Pod { id env }' }, bearer(READ_TOKEN));
    expect(viaFragment.status).toBe(403);
    const names = await rig.post({ query: '{ myself { pods { id name } } }' }, bearer(READ_TOKEN));
    expect(names.status).toBe(200);
    const full = await rig.post({ query: '{ myself { pods { id env } } }' }, bearer(WRITE_TOKEN));
    expect(full.status).toBe(200);
    expect(JSON.stringify(await full.json())).toContain('HF_TOKEN');
  });

  it('tokens take the catalog scope', () => {
    expect(parseGatewayTokens(`catalog:${CATALOG_TOKEN}`)).toEqual([{ scope: 'catalog', token: CATALOG_TOKEN }]);
    expect(() => parseGatewayTokens(`admin:${CATALOG_TOKEN}`)).toThrow(/catalog:TOKEN, read:TOKEN or write:TOKEN/);
  });
});

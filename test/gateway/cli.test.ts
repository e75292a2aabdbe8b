import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { bearer, READ_TOKEN, UPSTREAM_KEY, WRITE_TOKEN } from './harness.js';
import { refusedGateway, startGatewayProcess } from './process.js';

describe('runpod-gql gateway (the built binary)', () => {
  let emulator: ListeningEmulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    emulator = await listen(createEmulator({ apiKeys: [UPSTREAM_KEY] }), { host: '127.0.0.1' });
    const o = emulator.clientOptions(UPSTREAM_KEY);
    env = { RUNPOD_API_KEY: UPSTREAM_KEY, RUNPOD_GRAPHQL_URL: o.graphqlUrl!, RUNPOD_REST_URL: o.restUrl!, RUNPOD_GATEWAY_TOKENS: `read:${READ_TOKEN},write:${WRITE_TOKEN}` };
  });
  afterAll(() => emulator?.close());

  it('with --port 0 prints exactly one line once ready, on 127.0.0.1, and serves /graphql and /readyz', async () => {
    const gw = await startGatewayProcess(['--port', '0'], env);
    try {
      expect(gw.line).toMatch(/^runpod-gql gateway: listening on http:\/\/127\.0\.0\.1:\d+\/graphql$/);
      const r = await fetch(gw.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(READ_TOKEN) }, body: JSON.stringify({ query: '{ gpuTypes { id } }' }) });
      expect(r.status).toBe(200);
      expect(await r.text()).not.toContain(UPSTREAM_KEY);
      expect((await fetch(gw.graphqlUrl.replace('/graphql', '/readyz'))).status).toBe(200);
    } finally {
      expect(await gw.stop()).toBe(0);
    }
  });

  it('refuses to start with no token (exit 2, the reason on stderr, nothing on stdout), and starts anonymous on loopback', async () => {
    const { RUNPOD_GATEWAY_TOKENS: _t, ...noTokens } = env;
    const refused = await refusedGateway(['--port', '0'], noTokens);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/RUNPOD_GATEWAY_TOKENS/);
    const wide = await refusedGateway(['--port', '0', '--allow-anonymous', '--host', '0.0.0.0'], noTokens);
    expect(wide.code).toBe(2);
    expect(wide.stderr).toMatch(/loopback/);
    const anonymous = await startGatewayProcess(['--port', '0', '--allow-anonymous'], noTokens);
    try {
      const r = await fetch(anonymous.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ myself { id } }' }) });
      expect(r.status).toBe(200);
    } finally {
      await anonymous.stop();
    }
  });

  it('a wrong flag is a usage error naming it', async () => {
    const bad = await refusedGateway(['--upstream', 'soap'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--upstream/);
  });
});

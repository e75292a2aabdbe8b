// What a gateway's operator is told: flags and variables, never the library's options, and what to
// do next (the origin to allow, the package to install, the upstream to pick).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { ValidationError } from '../../src/errors.js';
import { createGateway } from '../../src/gateway/index.js';
import { GATEWAY_USAGE, parseGatewayArgs } from '../../src/gateway/node.js';
import { buildExecutableSchema } from '../../src/graphql/executable-schema.js';
import { READ_TOKEN, UPSTREAM_KEY, WRITE_TOKEN } from './harness.js';
import { BIN, refusedGateway, startGatewayProcess } from './process.js';

/** The library's option names: none may reach an operator. */
const LIBRARY_OPTIONS = /\b(corsOrigins|corsHeaders|onTransportChange|passThroughKeys|allowAnonymous|graphqlTransport|podsTransport|tokens:|apiKey|maxBodyBytes|maxDepth|maxAliases)\b/;

const refusal = (argv: string[]): ValidationError => {
  try {
    parseGatewayArgs(argv);
  } catch (err) {
    return err as ValidationError;
  }
  throw new Error('accepted');
};

describe('--cors-origin and --cors-header', () => {
  it('drops the trailing slash an address bar gives, and keeps the origin', () => {
    expect(parseGatewayArgs(['--cors-origin', 'http://localhost:5173/', '--cors-origin', 'https://app.example.com']).corsOrigins).toEqual(['http://localhost:5173', 'https://app.example.com']);
  });

  it('refuses * saying it is on purpose and why, a path saying what to write, each naming the flag', () => {
    const star = refusal(['--cors-origin', '*']);
    expect(star).toBeInstanceOf(ValidationError);
    expect(star.field).toBe('--cors-origin');
    expect(star.message).toMatch(/on purpose/);
    expect(star.message).toMatch(/every page on the web/);
    const path = refusal(['--cors-origin', 'http://localhost:5173/app']);
    expect(path.message).toContain('http://localhost:5173');
    expect(path.field).toBe('--cors-origin');
    for (const err of [star, path, refusal(['--cors-header', 'bad header'])]) expect(err.message).not.toMatch(LIBRARY_OPTIONS);
  });

  it('the library names its own option for the same mistakes', () => {
    expect(() => createGateway({ tokens: `read:${READ_TOKEN}`, client: { apiKey: UPSTREAM_KEY }, corsOrigins: ['*'] })).toThrow(/^corsOrigins: \* is refused on purpose/);
    expect(() => createGateway({ tokens: `read:${READ_TOKEN}`, client: { apiKey: UPSTREAM_KEY }, corsHeaders: ['a b'] })).toThrow(/^corsHeaders:/);
  });

  it('the preflight allows the headers the client sends, and the ones --cors-header adds', async () => {
    const gateway = createGateway({ tokens: `read:${READ_TOKEN}`, client: { apiKey: UPSTREAM_KEY }, corsOrigins: ['http://page.test'], corsHeaders: ['X-App-Version'] });
    const pre = await gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'OPTIONS', headers: { origin: 'http://page.test', 'access-control-request-method': 'POST' } }));
    const allowed = (pre.headers.get('access-control-allow-headers') ?? '').split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'accept', 'x-request-id', 'user-agent', 'x-team-id', 'x-app-version']));
    expect(GATEWAY_USAGE).toMatch(/--cors-header/);
  });
});

it('the gateway and its executor share one built schema', () => {
  expect(buildExecutableSchema()).toBe(buildExecutableSchema());
});

describe('the built binary', () => {
  let emulator: ListeningEmulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    emulator = await listen(createEmulator({ apiKeys: [UPSTREAM_KEY], graphqlRetired: true }), { host: '127.0.0.1' });
    const o = emulator.clientOptions(UPSTREAM_KEY);
    env = { RUNPOD_API_KEY: UPSTREAM_KEY, RUNPOD_GRAPHQL_URL: o.graphqlUrl!, RUNPOD_REST_URL: o.restUrl!, RUNPOD_GATEWAY_TOKENS: `read:${READ_TOKEN},write:${WRITE_TOKEN}` };
  });
  afterAll(() => emulator?.close());

  it('refusals to start name variables and flags, never options', async () => {
    const { RUNPOD_GATEWAY_TOKENS: _t, ...noTokens } = env;
    const none = await refusedGateway(['--port', '0'], noTokens);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/invalid RUNPOD_GATEWAY_TOKENS: no gateway token/);
    const star = await refusedGateway(['--port', '0', '--cors-origin', '*'], env);
    expect(star.code).toBe(2);
    expect(star.stderr).toMatch(/--cors-origin: \* is refused on purpose/);
    const { RUNPOD_API_KEY: _k, ...noKey } = env;
    const keyless = await refusedGateway(['--port', '0'], noKey);
    expect(keyless.stderr).toMatch(/RUNPOD_API_KEY: /);
    for (const r of [none, star, keyless]) expect(r.stderr).not.toMatch(LIBRARY_OPTIONS);
  }, 60_000);

  it('--redis without ioredis installed says to install it, with no module stack', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const child = spawn(process.execPath, ['--import', './test/gateway/without-ioredis.mjs', BIN, 'gateway', '--port', '0', '--redis', 'redis://127.0.0.1:1'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--redis: needs the ioredis package/);
    expect(stderr).toContain('npm i ioredis');
    expect(stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|\n\s+at /);
  }, 30_000);

  it('with --upstream auto, the switch off a retired GraphQL is told in flags, not as "pass onTransportChange"', async () => {
    const gw = await startGatewayProcess(['--port', '0', '--upstream', 'auto'], env);
    try {
      const r = await fetch(gw.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${READ_TOKEN}` }, body: JSON.stringify({ query: '{ myself { pods { id } } }' }) });
      expect(r.status).toBe(200);
      await fetch(gw.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${READ_TOKEN}` }, body: JSON.stringify({ query: '{ gpuTypes { id } }' }) });
    } finally {
      await gw.stop();
    }
    expect(gw.stderr()).toMatch(/--upstream rest/);
    expect(gw.stderr().match(/410 Gone/g)).toHaveLength(1);
    expect(gw.stderr()).not.toMatch(LIBRARY_OPTIONS);
  }, 60_000);
});

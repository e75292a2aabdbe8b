import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { createRunpodClient, DEFAULT_GRAPHQL_URL, DEFAULT_REST_URL, ValidationError } from '../../src/index.js';
import { createRunpodRestClient } from '../../src/rest/index.js';
import { createRunpodServerlessClient } from '../../src/serverless/index.js';
import { checkApiKey, readApiKey, URL_ENV_VARIABLES } from '../../src/transport/options.js';
import { podFixture } from '../fixtures.js';
import { assertNoSecret, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

afterEach(() => vi.unstubAllEnvs());

/** The ValidationError `make` throws, checked for the key (never echoed, whatever the field). */
function refusal(make: () => unknown): ValidationError {
  try {
    make();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    assertNoSecret(err);
    return err as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

const graphqlAnswer = () => json({ data: { pod: podFixture() } });

describe('URLs from the environment', () => {
  it('each URL option falls back to its variable; an explicit option wins', async () => {
    vi.stubEnv('RUNPOD_GRAPHQL_URL', 'http://127.0.0.1:1/graphql');
    vi.stubEnv('RUNPOD_REST_URL', ' http://127.0.0.1:1/v2/ \n');
    vi.stubEnv('RUNPOD_SERVERLESS_URL', 'http://127.0.0.1:1/queue/v2');
    vi.stubEnv('RUNPOD_LOAD_BALANCED_URL', 'http://127.0.0.1:1/lb/{endpointId}');
    const { fetch, calls } = recordingFetch((c) => (c.url.pathname.endsWith('/graphql') ? graphqlAnswer() : json({ id: 'pod-1', status: 'COMPLETED' })));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, rateLimits: false });
    await rp.pods.get('pod-1');
    await rp.rest.pods.get('pod-1').catch(() => undefined);
    await rp.endpoint('ep1').job('j1').status();
    await rp.loadBalanced('ep1').fetch('/ping').catch(() => undefined);
    expect(calls.map((c) => `${c.url.origin}${c.url.pathname}`)).toEqual([
      'http://127.0.0.1:1/graphql',
      'http://127.0.0.1:1/v2/pods/pod-1',
      'http://127.0.0.1:1/queue/v2/ep1/status/j1',
      'http://127.0.0.1:1/lb/ep1/ping',
    ]);

    calls.length = 0;
    const explicit = createRunpodClient({ apiKey: TEST_API_KEY, fetch, graphqlUrl: 'http://127.0.0.1:2/graphql', restUrl: 'http://127.0.0.1:2/v2' });
    await explicit.pods.get('pod-1');
    await explicit.rest.pods.get('pod-1').catch(() => undefined);
    expect(calls.map((c) => c.url.origin)).toEqual(['http://127.0.0.1:2', 'http://127.0.0.1:2']);
  });

  it('the REST and serverless clients read them too', async () => {
    vi.stubEnv('RUNPOD_REST_URL', 'http://127.0.0.1:3/v2');
    vi.stubEnv('RUNPOD_SERVERLESS_URL', 'http://127.0.0.1:3/queue/v2');
    const { fetch, calls } = recordingFetch(() => json({ id: 'x', status: 'COMPLETED' }));
    await createRunpodRestClient({ apiKey: TEST_API_KEY, fetch }).pods.get('x').catch(() => undefined);
    await createRunpodServerlessClient({ apiKey: TEST_API_KEY, fetch }).endpoint('ep1').job('j1').status();
    expect(calls.map((c) => c.url.pathname)).toEqual(['/v2/pods/x', '/queue/v2/ep1/status/j1']);
  });

  it.each(Object.entries(URL_ENV_VARIABLES))('a malformed %s is a ValidationError naming %s, the value not echoed', (option, variable) => {
    vi.stubEnv(variable, `localhost:8787/${TEST_API_KEY}`);
    const err = refusal(() => createRunpodClient({ apiKey: TEST_API_KEY }));
    expect(err.field).toBe(variable);
    expect(err.message).not.toContain('localhost');
    // The explicit option wins, so the variable is not even read.
    expect(() => createRunpodClient({ apiKey: TEST_API_KEY, [option]: option === 'loadBalancedUrl' ? 'https://{endpointId}.x.test' : 'https://x.test/v2' })).not.toThrow();
  });

  it('a load-balanced template without {endpointId} is refused by its variable', () => {
    vi.stubEnv('RUNPOD_LOAD_BALANCED_URL', 'https://lb.test');
    expect(refusal(() => createRunpodClient({ apiKey: TEST_API_KEY })).field).toBe('RUNPOD_LOAD_BALANCED_URL');
  });

  it('without `process` (a browser, a worker) the defaults apply and nothing is read', async () => {
    vi.stubEnv('RUNPOD_GRAPHQL_URL', 'http://127.0.0.1:1/graphql');
    vi.stubEnv('RUNPOD_API_KEY', 'rpa_from_env');
    const { fetch, calls } = recordingFetch(() => graphqlAnswer());
    const saved = globalThis.process;
    let rp;
    try {
      (globalThis as { process?: unknown }).process = undefined;
      rp = createRunpodClient({ fetch, apiKey: TEST_API_KEY });
      const keyless = createRunpodClient({ fetch });
      (globalThis as { process?: unknown }).process = saved;
      await expect(keyless.pods.get('pod-1')).rejects.toMatchObject({ name: 'ValidationError', field: 'apiKey' });
    } finally {
      (globalThis as { process?: unknown }).process = saved;
    }
    await rp.pods.get('pod-1');
    expect(`${calls[0]!.url.origin}${calls[0]!.url.pathname}`).toBe(DEFAULT_GRAPHQL_URL);
    expect(DEFAULT_REST_URL).toMatch(/^https:\/\/api\.runpod\.io/);
  });
});

describe('RUNPOD_API_KEY', () => {
  it.each([
    ['a trailing LF', `${TEST_API_KEY}\n`],
    ['CRLF', `${TEST_API_KEY}\r\n`],
    ['surrounding spaces and tabs', ` \t${TEST_API_KEY}  `],
  ])('%s is trimmed', async (_name, value) => {
    vi.stubEnv('RUNPOD_API_KEY', value);
    const { fetch, calls } = recordingFetch(() => json({ id: 'pod-1', desiredStatus: 'RUNNING', imageName: 'i', name: 'n' }));
    await createRunpodRestClient({ fetch }).pods.get('pod-1');
    expect(calls[0]!.headers.get('authorization')).toBe(`Bearer ${TEST_API_KEY}`);
  });

  it('any other bad key names its source: RUNPOD_API_KEY or apiKey', () => {
    vi.stubEnv('RUNPOD_API_KEY', `rpa_bad\u0001${TEST_API_KEY}`);
    expect(refusal(() => createRunpodClient()).field).toBe('RUNPOD_API_KEY');
    vi.stubEnv('RUNPOD_API_KEY', 'x'.repeat(600));
    expect(refusal(() => createRunpodClient()).field).toBe('RUNPOD_API_KEY');
    // A key given in code is used as given: a stray space there is shown, not hidden.
    expect(refusal(() => createRunpodClient({ apiKey: ` ${TEST_API_KEY}` })).field).toBe('apiKey');
    // The option wins over the variable, even a broken one.
    expect(() => createRunpodClient({ apiKey: TEST_API_KEY })).not.toThrow();
  });

  it('white space only counts as no key', async () => {
    vi.stubEnv('RUNPOD_API_KEY', ' \r\n');
    const rp = createRunpodClient({ fetch: recordingFetch(() => graphqlAnswer()).fetch });
    await expect(rp.pods.get('pod-1')).rejects.toMatchObject({ name: 'ValidationError', field: 'apiKey' });
  });

  it('readApiKey and checkApiKey name the source a caller gives (the CLI: --api-key, a profile)', () => {
    expect(readApiKey(` ${TEST_API_KEY}\r\n`, '--api-key')).toBe(TEST_API_KEY);
    expect(readApiKey('\n', '--api-key')).toBeUndefined();
    expect(refusal(() => readApiKey(`a\u0000${TEST_API_KEY}`, '--api-key')).field).toBe('--api-key');
    expect(refusal(() => checkApiKey(`${TEST_API_KEY}\n`, 'profile default')).field).toBe('profile default');
  });
});

describe('the lines `runpod-gql emulator` prints, exported, reach the emulator on loopback', () => {
  const KEY = 'rpa_env_e2e_key';
  let server: ListeningEmulator;
  beforeAll(async () => {
    server = await listen(createEmulator({ apiKeys: [KEY] }), { port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('createRunpodClient() with no options talks to the emulator over GraphQL, REST v2 and serverless', async () => {
    vi.stubEnv('RUNPOD_API_KEY', `${KEY}\n`);
    vi.stubEnv('RUNPOD_GRAPHQL_URL', server.graphqlUrl);
    vi.stubEnv('RUNPOD_REST_URL', server.restV2Url);
    vi.stubEnv('RUNPOD_SERVERLESS_URL', server.serverlessUrl);
    const rp = createRunpodClient();
    expect(Array.isArray(await rp.pods.list())).toBe(true);
    expect(Array.isArray(await rp.rest.pods.list())).toBe(true);
    const done = await rp.endpoint('echo').runSync({ hello: 'env' });
    expect(done).toMatchObject({ status: 'COMPLETED', output: { hello: 'env' } });
  });
});

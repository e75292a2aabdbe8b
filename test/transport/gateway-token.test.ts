// A gatewayToken goes nowhere but its gateway: a client holding one refuses, before sending, any
// call to another origin (RunPod's REST v2 and serverless hosts among them). `apiKey: null` makes a
// keyless client. (In a page: test/gateway/client-side.test.ts.)
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunpodClient, ValidationError } from '../../src/index.js';
import { captureError, json, recordingFetch } from '../helpers.js';

const TOKEN = 'gw-read-token-0123456789abcdef';
const GATEWAY = 'https://gateway.example.test/graphql';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('a client holding only a gatewayToken', () => {
  const setup = () => {
    const recorded = recordingFetch((call) => (call.url.pathname === '/graphql' ? json({ data: { myself: { id: 'u1' } } }) : json({ pods: [], pagination: { nextCursor: null, hasNextPage: false } })));
    return { ...recorded, rp: createRunpodClient({ gatewayToken: TOKEN, graphqlUrl: GATEWAY, fetch: recorded.fetch, maxRetries: 0 }) };
  };

  it.each<[string, (rp: ReturnType<typeof setup>['rp']) => Promise<unknown>, string]>([
    ['rp.rest (api.runpod.io/v2)', (rp) => rp.rest.pods.list(), 'https://api.runpod.io'],
    ['rp.endpoint (api.runpod.ai)', (rp) => rp.endpoint('ep1').run({ input: { prompt: 'x' } }), 'https://api.runpod.ai'],
    ['a job status (api.runpod.ai)', (rp) => rp.endpoint('ep1').job('j1').status(), 'https://api.runpod.ai'],
    ['a load-balanced endpoint', (rp) => rp.loadBalanced('ep1').get('/ping'), 'https://ep1.api.runpod.ai'],
  ])('refuses %s before sending, saying why', async (_name, call, host) => {
    const { rp, calls } = setup();
    const err = await captureError<ValidationError>(() => call(rp));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe('gatewayToken');
    expect(err.message).toContain('https://gateway.example.test');
    expect(err.message).toContain(host);
    expect(err.message).toMatch(/apiKey/);
    expect(err.message).not.toContain(TOKEN);
    expect(calls).toEqual([]);
  });

  it('still calls its gateway with the token, as a Bearer header', async () => {
    const { rp, calls } = setup();
    await rp.graphql.request('query Me { myself { id } }');
    expect(calls.map((c) => [c.url.href, c.headers.get('authorization')])).toEqual([[GATEWAY, `Bearer ${TOKEN}`]]);
  });
});

describe('apiKey: null, a keyless client', () => {
  it('sends its calls without any credential, and never reads RUNPOD_API_KEY', async () => {
    vi.stubEnv('RUNPOD_API_KEY', 'rpa_from_env_must_not_be_sent_0123');
    const { fetch, calls } = recordingFetch(() => json({ data: { myself: { id: 'anon' } } }));
    const rp = createRunpodClient({ apiKey: null, graphqlUrl: GATEWAY, fetch });
    expect(await rp.graphql.request('query Me { myself { id } }')).toEqual({ myself: { id: 'anon' } });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.get('authorization')).toBeNull();
    expect(calls[0]!.url.search).toBe('');
    expect(JSON.stringify(calls)).not.toContain('rpa_from_env');
  });
});

describe('no credential at all', () => {
  it('on a server, it names RUNPOD_API_KEY, and gatewayToken too', async () => {
    vi.stubEnv('RUNPOD_API_KEY', '');
    const { fetch, calls } = recordingFetch(() => json({ data: {} }));
    const err = await captureError<ValidationError>(createRunpodClient({ fetch }).rest.pods.list());
    expect(err.message).toContain('RUNPOD_API_KEY');
    expect(err.message).toContain('gatewayToken');
    expect(calls).toEqual([]);
  });
});

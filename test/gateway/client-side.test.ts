import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunpodClient, ValidationError } from '../../src/index.js';
import { captureError, json, recordingFetch } from '../helpers.js';

const g = globalThis as Record<string, unknown>;
/** Makes this process look like a browser page at `href` for one test. */
function asBrowserPage(href: string): void {
  g.window = {};
  g.document = {};
  Object.defineProperty(globalThis, 'location', { value: new URL(href), configurable: true });
}
afterEach(() => {
  delete g.window;
  delete g.document;
  delete g.location;
});

describe('the client in a browser page', () => {
  it('refuses to hold a RunPod key unless dangerouslyAllowBrowser, and the message points at the gateway', () => {
    asBrowserPage('https://app.example.test/board');
    let thrown: unknown;
    try {
      createRunpodClient({ apiKey: 'rpa_secret_in_page_0123' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as Error).message).toMatch(/runpod-gql gateway/);
    expect((thrown as Error).message).toMatch(/gatewayToken/);
    expect((thrown as Error).message).toMatch(/dangerouslyAllowBrowser/);
    expect((thrown as Error).message).not.toContain('rpa_secret_in_page_0123');
    expect(() => createRunpodClient({ apiKey: 'rpa_secret_in_page_0123', dangerouslyAllowBrowser: true })).not.toThrow();
    expect(() => createRunpodClient({ apiKey: 'rpa_x', dangerouslyAllowBrowser: 'yes' as unknown as boolean })).toThrow(/dangerouslyAllowBrowser/);
  });

  it('takes a relative graphqlUrl and a gateway token, sent as a Bearer header to the page\'s own origin', async () => {
    asBrowserPage('https://app.example.test/board/index.html');
    const sent: Array<{ url: string; auth: string | null }> = [];
    const rp = createRunpodClient({
      graphqlUrl: '/graphql',
      gatewayToken: 'gw-read-token-0123456789abcdef',
      fetch: async (input, init) => {
        sent.push({ url: String(input), auth: new Headers(init?.headers).get('authorization') });
        return Response.json({ data: { gpuTypes: [] } });
      },
    });
    await rp.graphql.request('{ gpuTypes { id } }');
    expect(sent).toEqual([{ url: 'https://app.example.test/graphql', auth: 'Bearer gw-read-token-0123456789abcdef' }]);
  });

  it('refuses both a gateway token and an API key', () => {
    expect(() => createRunpodClient({ apiKey: 'rpa_x', gatewayToken: 'gw-read-token-0123456789abcdef' })).toThrow(/gatewayToken/);
  });
});

describe('outside a browser', () => {
  it('a RunPod key needs no flag, and a relative graphqlUrl is refused (there is no page to resolve it against)', () => {
    expect(() => createRunpodClient({ apiKey: 'rpa_x' })).not.toThrow();
    expect(() => createRunpodClient({ apiKey: 'rpa_x', graphqlUrl: '/graphql' })).toThrow(/graphqlUrl: must be an absolute URL/);
  });
});

describe('a keyless client, and no credential, in a page', () => {
  it('in a page, calls the app\'s own backend path with a relative graphqlUrl', async () => {
    asBrowserPage('https://app.example.test/board');
    const { fetch, calls } = recordingFetch(() => json({ data: { gpuTypes: [] } }));
    const rp = createRunpodClient({ apiKey: null, graphqlUrl: '/api/runpod', fetch });
    await rp.graphql.request('{ gpuTypes { id } }');
    expect(calls.map((c) => [c.url.href, c.headers.get('authorization')])).toEqual([['https://app.example.test/api/runpod', null]]);
  });

  it('in a page, the error names gatewayToken (and apiKey: null), not an environment variable', async () => {
    asBrowserPage('https://app.example.test/board');
    vi.stubEnv('RUNPOD_API_KEY', '');
    const { fetch, calls } = recordingFetch(() => json({ data: {} }));
    // RunPod's own GraphQL needs a key: in a page the error says to use a gateway token.
    const err = await captureError<ValidationError>(createRunpodClient({ fetch }).graphql.request('{ gpuTypes { id } }'));
    expect(err.field).toBe('apiKey');
    expect(err.message).toContain('gatewayToken');
    expect(err.message).toContain('apiKey: null');
    expect(err.message).not.toContain('RUNPOD_API_KEY');
    expect(calls).toEqual([]);
    // A gateway (any graphqlUrl that is not RunPod's) is sent to with no credential: an anonymous
    // gateway needs no `apiKey: null` (issue 44, friction 18).
    await createRunpodClient({ graphqlUrl: '/graphql', fetch }).graphql.request('{ gpuTypes { id } }');
    vi.unstubAllEnvs();
    expect(calls).toHaveLength(1);
    expect(JSON.stringify(calls[0])).not.toMatch(/authorization|api_key/i);
  });
});

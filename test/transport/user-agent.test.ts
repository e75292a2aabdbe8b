import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRunpodClient, ValidationError, VERSION, type AppInfo } from '../../src/index.js';
import { createRunpodRestClient } from '../../src/rest/index.js';
import { userAgent } from '../../src/transport/user-agent.js';
import { json, recordingFetch, TEST_API_KEY } from '../helpers.js';

const restPod = { id: 'pod-1', name: 'p', desiredStatus: 'RUNNING', imageName: 'img' };

describe('User-Agent', () => {
  it('VERSION is package.json version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });

  it('every surface sends runpod-gql/<version> (<runtime> <version>; <platform>), with the app appended', async () => {
    const { fetch, calls } = recordingFetch((c) => (c.url.pathname.endsWith('/graphql') ? json({ data: { myself: { id: 'u' } } }) : json({ ...restPod, status: 'COMPLETED' })));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, appInfo: { name: 'my-app', version: '1.2.0' } });
    await rp.graphql.request('query Me { myself { id } }');
    await rp.rest.pods.get('pod-1');
    await rp.endpoint('ep1').job('j1').status();
    const expected = `runpod-gql/${VERSION} (node ${process.versions.node}; ${process.platform}) my-app/1.2.0`;
    expect(calls.map((c) => c.headers.get('user-agent'))).toEqual([expected, expected, expected]);
  });

  it('without appInfo, the library alone; an app without a version, its name alone', async () => {
    const { fetch, calls } = recordingFetch(() => json(restPod));
    await createRunpodRestClient({ apiKey: TEST_API_KEY, fetch }).pods.get('pod-1');
    await createRunpodRestClient({ apiKey: TEST_API_KEY, fetch, appInfo: { name: 'bot' } }).pods.get('pod-1');
    expect(calls[0]!.headers.get('user-agent')).toMatch(new RegExp(`^runpod-gql/${VERSION.replaceAll('.', '\\.')} \\(node \\S+; \\w+\\)$`));
    expect(calls[1]!.headers.get('user-agent')).toMatch(/\) bot$/);
  });

  it('a user-agent header of the caller, client-wide or per call, in any case, replaces it', async () => {
    const { fetch, calls } = recordingFetch(() => json(restPod));
    await createRunpodRestClient({ apiKey: TEST_API_KEY, fetch, headers: { 'User-Agent': 'mine/1' } }).pods.get('pod-1');
    await createRunpodRestClient({ apiKey: TEST_API_KEY, fetch }).pods.get('pod-1', { headers: { 'user-agent': 'call/2' } });
    expect(calls.map((c) => c.headers.get('user-agent'))).toEqual(['mine/1', 'call/2']);
  });

  it('per runtime, read from globals only; none in a browser or a browser worker', () => {
    expect(userAgent(undefined, { Deno: { version: { deno: '2.1.0' }, build: { os: 'darwin' } } })).toBe(`runpod-gql/${VERSION} (deno 2.1.0; darwin)`);
    expect(userAgent(undefined, { Bun: { version: '1.1.30' }, process: { versions: { node: '22.6.0' }, platform: 'linux' } })).toBe(`runpod-gql/${VERSION} (bun 1.1.30; linux)`);
    expect(userAgent(undefined, { navigator: { userAgent: 'Cloudflare-Workers' } })).toBe(`runpod-gql/${VERSION} (workerd; unknown)`);
    expect(userAgent(undefined, { window: {}, navigator: { userAgent: 'Mozilla/5.0' } })).toBeUndefined();
    expect(userAgent(undefined, { WorkerGlobalScope: function WorkerGlobalScope() {} })).toBeUndefined();
  });

  it('in a browser no User-Agent is set', async () => {
    const { fetch, calls } = recordingFetch(() => json(restPod));
    const saved = globalThis.process;
    const g = globalThis as { process?: unknown; window?: unknown };
    let rest;
    try {
      g.process = undefined;
      g.window = {};
      rest = createRunpodRestClient({ apiKey: TEST_API_KEY, fetch });
    } finally {
      g.process = saved;
      delete g.window;
    }
    await rest.pods.get('pod-1');
    expect(calls[0]!.headers.has('user-agent')).toBe(false);
  });

  it.each([
    [{ name: 'my app' }, 'appInfo.name'],
    [{ name: '' }, 'appInfo.name'],
    [{ name: 'a/b' }, 'appInfo.name'],
    [{ name: 'ok', version: '1.0 (beta)' }, 'appInfo.version'],
    ['my-app', 'appInfo.name'],
    [{ name: 'x\r\nx-evil: 1' }, 'appInfo.name'],
  ])('appInfo %j is a ValidationError naming %s', (appInfo, field) => {
    expect(() => createRunpodClient({ apiKey: TEST_API_KEY, appInfo: appInfo as AppInfo })).toThrow(expect.objectContaining({ field }));
    expect(() => createRunpodClient({ apiKey: TEST_API_KEY, appInfo: appInfo as AppInfo })).toThrow(ValidationError);
  });
});

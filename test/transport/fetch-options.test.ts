import { ProxyAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { createRunpodClient, ValidationError, type FetchOptions } from '../../src/index.js';
import { createRunpodRestClient } from '../../src/rest/index.js';
import { captureError, json, TEST_API_KEY } from '../helpers.js';
import { emulatorBehindProxy } from '../logging-proxy.js';

const restPod = { id: 'pod-1', name: 'p', desiredStatus: 'RUNNING', imageName: 'img' };

/** A fetch double that keeps each init it is given. */
function initRecorder() {
  const inits: RequestInit[] = [];
  const fetch = async (_input: string | URL | Request, init: RequestInit = {}) => {
    inits.push(init);
    return json(restPod);
  };
  return { fetch, inits };
}

describe('fetchOptions at the fetch seam', () => {
  it("the client's are passed with every request; a call's go over them; the client's own fields always win", async () => {
    const { fetch, inits } = initRecorder();
    const dispatcher = { name: 'client dispatcher' };
    const rest = createRunpodRestClient({ apiKey: TEST_API_KEY, fetch, fetchOptions: { dispatcher, keepalive: true } });
    await rest.pods.get('pod-1');
    expect(inits[0]).toMatchObject({ dispatcher, keepalive: true, method: 'GET', redirect: 'manual' });

    const callDispatcher = { name: 'call dispatcher' };
    await rest.pods.get('pod-1', { fetchOptions: { dispatcher: callDispatcher } });
    expect(inits[1]).toMatchObject({ dispatcher: callDispatcher, keepalive: true });

    // Whatever a caller slips in, method, headers, body, signal and redirect stay the client's.
    const sneaky = { method: 'DELETE', redirect: 'follow', headers: { authorization: 'Bearer other' }, signal: null } as unknown as FetchOptions;
    await rest.pods.get('pod-1', { fetchOptions: sneaky });
    expect(inits[2]).toMatchObject({ method: 'GET', redirect: 'manual' });
    expect(new Headers(inits[2]!.headers).get('authorization')).toBe(`Bearer ${TEST_API_KEY}`);
    expect(inits[2]!.signal).toBeInstanceOf(AbortSignal);
  });

  it('GraphQL and serverless calls take them too', async () => {
    const inits: RequestInit[] = [];
    const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
      inits.push(init);
      return String(input).includes('/graphql') ? json({ data: { myself: { id: 'u' } } }) : json({ id: 'j1', status: 'COMPLETED' });
    };
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const dispatcher = { name: 'd' };
    await rp.graphql.request('query Me { myself { id } }', undefined, { fetchOptions: { dispatcher } });
    await rp.endpoint('ep1').job('j1').status({ fetchOptions: { dispatcher } });
    await rp.endpoint('ep1').runSync({}, { fetchOptions: { dispatcher } });
    expect(inits.map((i) => (i as { dispatcher?: unknown }).dispatcher)).toEqual([dispatcher, dispatcher, dispatcher]);
  });

  it('fetchOptions that are not an object are a ValidationError naming them, with nothing sent', async () => {
    const { fetch, inits } = initRecorder();
    expect(() => createRunpodClient({ apiKey: TEST_API_KEY, fetch, fetchOptions: 'proxy' as unknown as FetchOptions })).toThrow(ValidationError);
    const err = await captureError(createRunpodRestClient({ apiKey: TEST_API_KEY, fetch }).pods.get('pod-1', { fetchOptions: [] as unknown as FetchOptions }));
    expect(err).toMatchObject({ name: 'ValidationError', field: 'fetchOptions' });
    expect(inits).toHaveLength(0);
  });
});

describe('through a logging proxy on 127.0.0.1 (undici ProxyAgent), to the emulator on 127.0.0.1', () => {
  const KEY = 'rpa_proxy_test_key';
  const rig = emulatorBehindProxy(KEY);

  it("the README's example: every surface goes through the proxy with fetchOptions: { dispatcher }", async () => {
    const dispatcher = new ProxyAgent(rig.proxy.url);
    try {
      rig.proxy.seen.length = 0;
      const rp = createRunpodClient({ ...rig.server.clientOptions(KEY), fetch: undefined, fetchOptions: { dispatcher } });
      expect(Array.isArray(await rp.pods.list())).toBe(true);
      expect(Array.isArray(await rp.rest.pods.list())).toBe(true);
      expect(await rp.endpoint('echo').runSync({ via: 'proxy' })).toMatchObject({ status: 'COMPLETED', output: { via: 'proxy' } });
      const emulatorHost = new URL(rig.server.url).host;
      expect(rig.proxy.seen.length).toBeGreaterThanOrEqual(1);
      expect(new Set(rig.proxy.seen)).toEqual(new Set([`CONNECT ${emulatorHost}`]));
    } finally {
      await dispatcher.close();
    }
  });

  it('per call: only the call that names the dispatcher goes through the proxy', async () => {
    const dispatcher = new ProxyAgent(rig.proxy.url);
    try {
      rig.proxy.seen.length = 0;
      const rest = createRunpodRestClient({ apiKey: KEY, restUrl: rig.server.restV2Url });
      await rest.pods.list();
      expect(rig.proxy.seen).toEqual([]);
      await rest.pods.list(undefined, { fetchOptions: { dispatcher } });
      expect(rig.proxy.seen).toEqual([`CONNECT ${new URL(rig.server.url).host}`]);
    } finally {
      await dispatcher.close();
    }
  });
});

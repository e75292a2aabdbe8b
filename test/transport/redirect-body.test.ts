// A request with a body never follows a redirect to another origin: a create redirected there is
// refused with a typed error, and nothing (no body, no key) reaches the other origin.
import { describe, expect, it } from 'vitest';
import { ApiError, CREATE_MARKER_ENV, createRunpodClient, PossiblyCreatedError } from '../../src/index.js';
import { captureError, json, recordingFetchWithCatalog, TEST_API_KEY } from '../helpers.js';

const ENV_SECRET = 'hf_pod_env_secret_value_0123456789abcdef';
const input = { name: 'p', image: 'i', gpu: { id: 'NVIDIA L4' }, env: { HF_TOKEN: ENV_SECRET } };

describe('a create redirected to another origin', () => {
  it.each([307, 308])('HTTP %i: refused, sent once, nothing reaches the other origin; the server did not act, so no lookup', async (status) => {
    const { fetch, calls } = recordingFetchWithCatalog((call) =>
      call.url.origin === 'https://api.runpod.io' && call.method === 'POST' ? new Response(null, { status, headers: { location: 'https://collector.example.test/pods' } }) : json({ id: 'never' }),
    );
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 0 });
    const err = await captureError<ApiError>(rp.rest.pods.create(input));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(status);
    expect(err.message).toContain('https://collector.example.test');
    expect(calls.filter((c) => c.url.origin !== 'https://api.runpod.io')).toEqual([]);
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
    // No marker lookup: a 307 or 308 asks for the request elsewhere, so nothing was created here.
    expect(calls.filter((c) => c.method === 'GET' && c.url.pathname === '/v2/pods')).toEqual([]);
    expect(JSON.stringify(err)).not.toContain(ENV_SECRET);
  });

  it('HTTP 303: refused too; the server may have acted, so the create looks its marker up on its own origin', async () => {
    let marker = '';
    const { fetch, calls } = recordingFetchWithCatalog((call) => {
      if (call.method === 'POST') {
        marker = (JSON.parse(call.body!) as { env: Record<string, string> }).env[CREATE_MARKER_ENV]!;
        return new Response(null, { status: 303, headers: { location: 'https://collector.example.test/result' } });
      }
      return json({ pods: [{ id: 'made', name: 'p', env: { [CREATE_MARKER_ENV]: marker } }], pagination: { nextCursor: null, hasNextPage: false } });
    });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 0 });
    const outcome = await rp.rest.pods.create(input).then((pod) => pod.id, (err: unknown) => err);
    // Found by its marker: the pod the server made is the answer, as after any ambiguous failure.
    expect(outcome instanceof PossiblyCreatedError ? 'possibly created' : outcome).toBe('made');
    expect(calls.filter((c) => c.url.origin !== 'https://api.runpod.io')).toEqual([]);
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });

  it('a same-origin 307 of a create is still followed, with its body and key', async () => {
    const { fetch, calls } = recordingFetchWithCatalog((call) =>
      call.url.pathname === '/v2/pods' && call.method === 'POST' ? new Response(null, { status: 307, headers: { location: '/v2/pods-here' } }) : json({ id: 'p1', name: 'p' }),
    );
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 0 });
    expect((await rp.rest.pods.create(input)).id).toBe('p1');
    const hop = calls.find((c) => c.url.pathname === '/v2/pods-here')!;
    expect(hop.method).toBe('POST');
    expect(hop.body).toContain(ENV_SECRET);
    expect(hop.headers.get('authorization')).toBe(`Bearer ${TEST_API_KEY}`);
  });
});

import { describe, expect, it } from 'vitest';
import { BadRequestError, CREATE_MARKER_ENV, createRunpodClient, PossiblyCreatedError, ServerError, TimeoutError } from '../../src/index.js';
import { captureError, json, recordingFetchWithCatalog, TEST_API_KEY, type RecordedCall } from '../helpers.js';

const input = { name: 'trainer', image: 'img', gpu: { id: 'NVIDIA L4' }, env: { A: '1' } };
const problem = (status: number) => json({ title: 't', status, detail: 'upstream failed' }, { status });
const markerOf = (call: RecordedCall) => (JSON.parse(call.body!) as { env: Record<string, string> }).env[CREATE_MARKER_ENV]!;
const lookup = { attempts: 3, intervalMs: 0 };

describe('REST v2 pods.create leaves no orphan (create marker)', () => {
  it('after a 5xx, lists the pods and returns the one carrying its marker; the create is not resent', async () => {
    const { fetch, calls } = recordingFetchWithCatalog((call) => {
      if (call.method === 'POST') return problem(502);
      const marker = markerOf(calls[0]!);
      return json({ pods: [{ id: 'other', env: { [CREATE_MARKER_ENV]: 'someone-else' } }, { id: 'mine', env: { A: '1', [CREATE_MARKER_ENV]: marker } }] });
    });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 0 });
    const pod = await rp.rest.pods.create(input, { markerLookup: lookup });
    expect(pod.id).toBe('mine');
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['POST /v2/pods', 'GET /v2/pods']);
    expect(JSON.parse(calls[0]!.body!).env).toEqual({ A: '1', [CREATE_MARKER_ENV]: expect.stringMatching(/^[0-9a-f]{32}$/) });
  });

  it('after a time-out, keeps looking (bounded) and then throws PossiblyCreatedError with the marker', async () => {
    const recorded = recordingFetchWithCatalog(() => json({ pods: [] }));
    const calls = recorded.calls;
    // The create's answer never comes: only the attempt's time limit ends it.
    const fetch = (input: string | URL | Request, init: RequestInit = {}) =>
      init.method === 'POST'
        ? recorded.fetch(input, init).then(() => new Promise<Response>((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason))))
        : recorded.fetch(input, init);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 0, timeoutMs: 20 });
    const err = await captureError<PossiblyCreatedError>(rp.rest.pods.create(input, { markerLookup: lookup }));
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect(err.possiblyCreated).toBe(true);
    expect(err.createMarker).toBe(markerOf(calls[0]!));
    expect(err.message).toContain(err.createMarker);
    expect(err.cause).toBeInstanceOf(TimeoutError);
    expect(calls.filter((c) => c.method === 'GET')).toHaveLength(3);
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });

  it('when the lookup itself fails, throws PossiblyCreatedError (cause: the create\'s failure)', async () => {
    const { fetch } = recordingFetchWithCatalog(() => problem(500));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 0 });
    const err = await captureError<PossiblyCreatedError>(rp.rest.pods.create(input, { markerLookup: { attempts: 2, intervalMs: 0 } }));
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect(err.cause).toBeInstanceOf(ServerError);
    expect(err.message).toContain('looking it up failed');
  });

  it('a clear refusal (4xx) is not ambiguous: no lookup', async () => {
    const { fetch, calls } = recordingFetchWithCatalog(() => problem(400));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    expect(await captureError(rp.rest.pods.create(input))).toBeInstanceOf(BadRequestError);
    expect(calls).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { ConnectionError, PossiblyCreatedError, ServerError, ValidationError, createRunpodClient } from '../../src/index.js';
import { captureError, json, recordingFetch, recordingFetchWithCatalog, TEST_API_KEY } from '../helpers.js';
import { contractProblems } from './v2-contract.js';

const secret = { id: 's1', name: 'HF_TOKEN', createdAt: '2026-11-27T00:00:00Z', description: null, valueLastUpdatedAt: null };

describe('rp.rest.secrets', () => {
  it('refuses before sending what the contract refuses: a bad name, a name over 191 characters, an empty value, a RUNPOD prefix, an empty update', async () => {
    const { fetch, calls } = recordingFetch(() => json(secret, { status: 201 }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    for (const body of [{ name: '1abc', value: 'v' }, { name: 'N'.repeat(192), value: 'v' }, { name: 'OK', value: '' }, { name: 'runpod_x', value: 'v' }, { name: 'OK', value: 'v', extra: 1 }]) {
      await expect(rp.rest.secrets.create(body as never)).rejects.toBeInstanceOf(ValidationError);
    }
    await expect(rp.rest.secrets.update('s1', {} as never)).rejects.toThrow(/at least one field/);
    expect(calls).toHaveLength(0);
  });

  it('a create is sent once: an ambiguous failure is a PossiblyCreatedError, never a resend', async () => {
    const { fetch, calls } = recordingFetch(() => new Response('boom', { status: 502 }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 3 });
    const err = await captureError(rp.rest.secrets.create({ name: 'HF_TOKEN', value: 'hf_secret_value_123' }));
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect(calls).toHaveLength(1);
    expect(contractProblems(calls[0]!.method, calls[0]!.url, calls[0]!.headers, calls[0]!.body)).toEqual([]);
  });

  it('the value never appears in an error, even when the server echoes it in every spelling', async () => {
    const value = 'my-Secret/Value+with spaces&ünicode';
    const { fetch } = recordingFetch(() =>
      json({ title: 'Unprocessable', status: 422, detail: `bad value ${value}`, errors: [`$.value: ${encodeURIComponent(value)}`, btoa(unescape(encodeURIComponent(value))), JSON.stringify(value)] }, { status: 422, headers: { 'content-type': 'application/problem+json' } }),
    );
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError(rp.rest.secrets.update('s1', { value }));
    const views = [err.message, String(err.stack), JSON.stringify(err), JSON.stringify((err as { body?: unknown }).body), (await import('node:util')).inspect(err, { depth: 10 })].join('\n');
    for (const spelling of [value, encodeURIComponent(value), btoa(unescape(encodeURIComponent(value))), JSON.stringify(value).slice(1, -1)]) expect(views).not.toContain(spelling);
    expect(views).toContain('[REDACTED]');
  });

  it('a value longer than a key is scrubbed whole, piece by piece', async () => {
    const value = Array.from({ length: 1300 }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join('');
    const { fetch } = recordingFetch(() => json({ title: 'x', status: 400, detail: `echo ${value} end` }, { status: 400, headers: { 'content-type': 'application/problem+json' } }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError(rp.rest.secrets.create({ name: 'LONG', value }));
    const text = `${err.message}\n${JSON.stringify(err)}`;
    // No 16-character run of the value survives.
    for (let at = 0; at + 16 <= value.length; at += 16) expect(text).not.toContain(value.slice(at, at + 16));
  });
});

describe('rp.rest.pods.exec', () => {
  it('is never resent once it may have run, and a wrong answer is a typed error', async () => {
    const lost = recordingFetch(() => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
    });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: lost.fetch, maxRetries: 3 });
    await expect(rp.rest.pods.exec('p1', { command: ['rm', '-rf', '/tmp/x'] })).rejects.toBeInstanceOf(ConnectionError);
    expect(lost.calls).toHaveLength(1);

    const failing = recordingFetch(() => new Response('bad gateway', { status: 502 }));
    await expect(createRunpodClient({ apiKey: TEST_API_KEY, fetch: failing.fetch, maxRetries: 3 }).rest.pods.exec('p1', { command: ['true'] })).rejects.toBeInstanceOf(ServerError);
    expect(failing.calls).toHaveLength(1);

    for (const answer of [{ exitCode: '0', stdout: '', stderr: '' }, { exitCode: 0, stdout: null, stderr: '' }, { exitCode: 1.5, stdout: '', stderr: '' }, [1]]) {
      const wrong = recordingFetch(() => json(answer));
      const err = await captureError(createRunpodClient({ apiKey: TEST_API_KEY, fetch: wrong.fetch }).rest.pods.exec('p1', { command: ['true'] }));
      expect(err).toBeInstanceOf(ServerError);
      expect(err.message).toMatch(/exitCode|JSON object/);
    }
  });

  it('refuses a command outside the documented bounds before sending', async () => {
    const { fetch, calls } = recordingFetch(() => json({ exitCode: 0, stdout: '', stderr: '' }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    for (const input of [{ command: [] }, { command: Array(257).fill('x') }, { command: ['ls'], timeoutSeconds: 26 }, { command: ['ls'], timeoutSeconds: 0 }, { command: 'ls -la' }, { command: ['ls'], cwd: '' }]) {
      await expect(rp.rest.pods.exec('p1', input as never)).rejects.toBeInstanceOf(ValidationError);
    }
    expect(calls).toHaveLength(0);
  });
});

describe('teamId', () => {
  it('sends X-Team-Id on REST v2 only: never to GraphQL, never to the serverless routes', async () => {
    const { fetch, calls } = recordingFetch((call) => (call.url.pathname.endsWith('/graphql') ? json({ data: { myself: { id: 'u', pods: [] } } }) : call.url.hostname === 'api.runpod.ai' ? json({ id: 'j', status: 'IN_QUEUE' }) : json({ pods: [] })));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, teamId: 'team_123', podsTransport: 'graphql' });
    await rp.rest.pods.list();
    await rp.pods.list();
    await rp.endpoint('ep1').run({ x: 1 });
    const byHost = calls.map((c) => [`${c.url.hostname}${c.url.pathname}`, c.headers.get('x-team-id')]);
    expect(byHost).toEqual([
      ['api.runpod.io/v2/pods', 'team_123'],
      ['api.runpod.io/graphql', null],
      ['api.runpod.ai/v2/ep1/run', null],
    ]);
  });

  it('a call\'s own headers keep X-Team-Id; no teamId sends none; a bad one is refused at creation', async () => {
    const { fetch, calls } = recordingFetch(() => json({ pods: [] }));
    await createRunpodClient({ apiKey: TEST_API_KEY, fetch, teamId: 't1' }).rest.pods.list({}, { headers: { 'x-trace': '1' } });
    await createRunpodClient({ apiKey: TEST_API_KEY, fetch }).rest.pods.list();
    expect(calls.map((c) => [c.headers.get('x-team-id'), c.headers.get('x-trace')])).toEqual([['t1', '1'], [null, null]]);
    for (const teamId of ['', ' t', 't\n', 5, 'ü€']) expect(() => createRunpodClient({ apiKey: TEST_API_KEY, fetch, teamId: teamId as never })).toThrow(ValidationError);
  });
});

describe('pod create rules', () => {
  it('a body over 102,400 bytes is refused before sending, with its size', async () => {
    const { fetch, calls } = recordingFetchWithCatalog(() => json({ id: 'p1' }, { status: 201 }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError<ValidationError>(rp.rest.pods.create({ name: 'big', image: 'i', gpu: { id: 'NVIDIA L4' }, env: { BLOB: 'x'.repeat(102_400) } }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/is 1025\d\d bytes as sent .*over 102400 bytes \(413\)/);
    expect(calls).toHaveLength(0);
    // Just under the limit goes.
    await rp.rest.pods.create({ name: 'ok', image: 'i', gpu: { id: 'NVIDIA L4' }, env: { BLOB: 'x'.repeat(100_000) } });
    expect(calls).toHaveLength(1);
    expect(new TextEncoder().encode(calls[0]!.body!).byteLength).toBeLessThanOrEqual(102_400);
  });

  it('gpu.count is always sent (the contract default, 1, when the caller leaves it out)', async () => {
    const { fetch, calls } = recordingFetchWithCatalog(() => json({ id: 'p1' }, { status: 201 }));
    await createRunpodClient({ apiKey: TEST_API_KEY, fetch }).rest.pods.create({ name: 'p', image: 'i', gpu: { id: 'NVIDIA L4', minRamPerGpu: 32, minVcpuCountPerGpu: 4 } });
    expect(JSON.parse(calls[0]!.body!).gpu).toEqual({ id: 'NVIDIA L4', count: 1, minRamPerGpu: 32, minVcpuCountPerGpu: 4 });
  });
});

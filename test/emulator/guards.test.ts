import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createClock } from '../../src/emulator/clock.js';
import { createEmulator, EMULATOR_API_KEY, IN_PROCESS_BASE } from '../../src/emulator/create-emulator.js';

const auth = (key = EMULATOR_API_KEY) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

function streamOf(bytes: number, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      const n = Math.min(chunk, bytes - sent);
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
}

describe('emulator body limit', () => {
  it('counts the bytes that arrive, whatever Content-Length claims or when there is none', async () => {
    const emulator = createEmulator({ maxBodyBytes: 100_000 });
    const chunked = await emulator.fetch(
      new Request(`${IN_PROCESS_BASE}/v1/pods`, { method: 'POST', headers: auth(), body: streamOf(300_000), duplex: 'half' } as RequestInit),
    );
    expect(chunked.status).toBe(413);
    const lying = await emulator.fetch(
      new Request(`${IN_PROCESS_BASE}/v1/pods`, { method: 'POST', headers: { ...auth(), 'content-length': '10' }, body: 'x'.repeat(200_000) }),
    );
    expect(lying.status).toBe(413);
    const small = await emulator.fetch(
      new Request(`${IN_PROCESS_BASE}/queue/v2/echo/runsync`, { method: 'POST', headers: auth(), body: streamOf(0), duplex: 'half' } as RequestInit),
    );
    expect(small.status).not.toBe(413);
  });

  it('hands a body within the limit on intact', async () => {
    const emulator = createEmulator({ maxBodyBytes: 100_000 });
    const res = await emulator.fetch(
      new Request(`${IN_PROCESS_BASE}/queue/v2/echo/runsync`, { method: 'POST', headers: auth(), body: JSON.stringify({ input: { word: 'é'.repeat(1000) } }) }),
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { output: { word: string } }).output.word).toBe('é'.repeat(1000));
  });
});

describe('emulator CORS', () => {
  const preflight = (emulator: ReturnType<typeof createEmulator>, origin: string) =>
    emulator.fetch(new Request(`${IN_PROCESS_BASE}/v1/pods`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } }));

  it('answers loopback pages only, by default', async () => {
    const emulator = createEmulator();
    for (const origin of ['http://127.0.0.1:5173', 'http://localhost:3000', 'http://[::1]:8080']) {
      expect((await preflight(emulator, origin)).headers.get('access-control-allow-origin')).toBe(origin);
    }
    for (const origin of ['https://evil.example', 'http://127.0.0.1.evil.example', 'null']) {
      expect((await preflight(emulator, origin)).headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('follows corsOrigins when configured', async () => {
    const listed = createEmulator({ corsOrigins: ['https://app.example'] });
    expect((await preflight(listed, 'https://app.example')).headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect((await preflight(listed, 'http://localhost:3000')).headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight(createEmulator({ corsOrigins: '*' }), 'https://any.example')).headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('emulator clock', () => {
  it.each(['real', 'manual'] as const)('%s: sleep leaves no abort listener behind', async (mode) => {
    const clock = createClock(mode, undefined, mode === 'real' ? 1000 : 1);
    const signal = new AbortController().signal;
    for (let i = 0; i < 20; i++) {
      const slept = clock.sleep(5, signal);
      if (mode === 'manual') await clock.advance(5);
      await slept;
    }
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

describe('emulator registry auth', () => {
  it('refuses another account\'s container registry auth id on POST /v1/pods', async () => {
    const emulator = createEmulator({ apiKeys: ['key-a', 'key-b'], legacyRestV1: true });
    const created = await emulator.fetch(
      new Request(`${IN_PROCESS_BASE}/v1/containerregistryauth`, { method: 'POST', headers: auth('key-a'), body: JSON.stringify({ name: 'r', username: 'u', password: 'p' }) }),
    );
    const { id } = (await created.json()) as { id: string };
    const pod = (key: string) =>
      emulator.fetch(
        new Request(`${IN_PROCESS_BASE}/v1/pods`, { method: 'POST', headers: auth(key), body: JSON.stringify({ imageName: 'img', gpuTypeIds: ['NVIDIA GeForce RTX 4090'], containerRegistryAuthId: id }) }),
      );
    const other = await pod('key-b');
    expect(other.status).toBe(400);
    expect(await other.text()).toContain('containerRegistryAuthId');
    expect(emulator.inspect.podCount('key-b')).toBe(0);
    expect((await pod('key-a')).status).toBe(201);
  });
});

describe('the emulator\'s legacy REST v1 (legacyRestV1)', () => {
  it('answers 400 {error, status} to bodies the v1 contract rejects', async () => {
    const emulator = createEmulator({ legacyRestV1: true });
    const post = (path: string, body: unknown) => emulator.fetch(new Request(`${IN_PROCESS_BASE}/v1${path}`, { method: 'POST', headers: auth(), body: JSON.stringify(body) }));
    const volume = await post('/networkvolumes', { name: 'v', size: '10' });
    expect(volume.status).toBe(400);
    expect(await volume.json()).toMatchObject({ status: 400, error: expect.stringContaining('size') });
    const template = await post('/templates', { name: 'no image' });
    expect(template.status).toBe(400);
    expect(await template.json()).toMatchObject({ error: expect.stringContaining('imageName') });
  });
});

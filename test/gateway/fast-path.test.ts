// The gateway's per-request work, at the fetch seam: a declared-length body is read whole
// (`arrayBuffer()`, the Node adapter's fast path), a chunked one through the counting reader; the
// RateLimit headers of an upstream answer are parsed only when something reads them.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { createGateway } from '../../src/gateway/index.js';
import { createRunpodClient } from '../../src/index.js';
import * as rateLimitHeaders from '../../src/transport/rate-limit-headers.js';

vi.mock('../../src/transport/rate-limit-headers.js', async (original) => {
  const actual = await original<typeof import('../../src/transport/rate-limit-headers.js')>();
  return { ...actual, parseRateLimitHeaders: vi.fn(actual.parseRateLimitHeaders) };
});

const TOKEN = 'fast-path-read-token-0123456789';
const POD = { id: 'p1', name: 'n', status: 'RUNNING', image: 'img' };

const emulator = createEmulator();
afterAll(() => emulator.dispose());

function gateway(maxBodyBytes = 1_000) {
  return createGateway({ tokens: `read:${TOKEN}`, limits: { rate: false, maxBodyBytes }, client: { ...emulator.clientOptions(), rateLimits: false } });
}

const QUERY = JSON.stringify({ query: '{ myself { pods { id } } }' });
const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers }, body, duplex: 'half' } as RequestInit);

afterEach(() => vi.mocked(rateLimitHeaders.parseRateLimitHeaders).mockClear());

describe('reading the body', () => {
  it('with a declared length: arrayBuffer(), no stream reader', async () => {
    const request = post(QUERY, { 'content-length': String(QUERY.length) });
    const whole = vi.spyOn(request, 'arrayBuffer');
    const response = await gateway().fetch(request);
    expect(response.status).toBe(200);
    expect(whole).toHaveBeenCalledTimes(1);
  });

  it('without a length (chunked): the counting reader, which stops at the limit', async () => {
    const stream = (text: string) => new ReadableStream<Uint8Array>({ start(c) { c.enqueue(new TextEncoder().encode(text)); c.close(); } });
    const request = post(stream(QUERY));
    const whole = vi.spyOn(request, 'arrayBuffer');
    expect((await gateway().fetch(request)).status).toBe(200);
    expect(whole).not.toHaveBeenCalled();
    expect((await gateway(20).fetch(post(stream(QUERY)))).status).toBe(413);
  });

  it('a declared length over the limit is 413 unread; a length that understates the body is still held to the limit', async () => {
    const over = post(QUERY, { 'content-length': '5000' });
    const whole = vi.spyOn(over, 'arrayBuffer');
    expect((await gateway().fetch(over)).status).toBe(413);
    expect(whole).not.toHaveBeenCalled();
    expect((await gateway(20).fetch(post(QUERY, { 'content-length': '10' }))).status).toBe(413);
  });
});

describe('RateLimit headers', () => {
  const answer = (rateLimit: string) => async () => Response.json(POD, { headers: { ratelimit: rateLimit, 'ratelimit-policy': '"minute";q=200;w=60' } });

  it('are not parsed when nothing reads them (no onRateLimit, a window with requests left)', async () => {
    const rp = createRunpodClient({ apiKey: 'rpa_fast_path_key_0123456789', restUrl: 'http://127.0.0.1:9/v2', fetch: answer('"minute";r=176;t=30') });
    await rp.rest.pods.get('p1');
    await rp.rest.pods.get('p1');
    expect(rateLimitHeaders.parseRateLimitHeaders).not.toHaveBeenCalled();
  });

  it('are parsed for the pacer once a window is spent, and for onRateLimit always', async () => {
    const paced = createRunpodClient({ apiKey: 'rpa_fast_path_key_0123456789', restUrl: 'http://127.0.0.1:9/v2', fetch: answer('"minute";r=0;t=1') });
    await paced.rest.pods.get('p1');
    expect(rateLimitHeaders.parseRateLimitHeaders).toHaveBeenCalledTimes(1);
    const seen: number[] = [];
    const hooked = createRunpodClient({ apiKey: 'rpa_fast_path_key_0123456789', restUrl: 'http://127.0.0.1:9/v2', fetch: answer('"minute";r=176;t=30'), onRateLimit: (info) => seen.push(info.windows[0]!.remaining!) });
    await hooked.rest.pods.get('p1');
    expect(seen).toEqual([176]);
  });
});

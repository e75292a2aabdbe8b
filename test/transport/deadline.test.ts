import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortError, createRunpodClient, PossiblyCreatedError, RateLimitError, ServerError, TimeoutError, ValidationError, type RunpodClientOptions } from '../../src/index.js';
import { captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

/** How a loopback server treats a request it does not answer. */
type Stall = 'silent' | 'processing';

interface Loopback {
  readonly url: string;
  /** Request lines seen, e.g. `POST /v2/pods`. */
  readonly seen: string[];
  close(): Promise<void>;
}

const CATALOG = JSON.stringify({ gpus: [{ id: 'NVIDIA L4', name: 'L4' }] });

/**
 * A raw HTTP server on 127.0.0.1 (port 0) that never sends a final answer: it stays silent, or it
 * writes `HTTP/1.1 102 Processing` every 50 ms for ever. With `catalog`, `GET /v2/catalog/gpus` is
 * answered, so a create gets past its GPU check and is sent.
 */
async function loopback(stall: Stall, catalog = false): Promise<Loopback> {
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setInterval>>();
  const seen: string[] = [];
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      let end: number;
      while ((end = buffered.indexOf('\r\n\r\n')) >= 0) {
        const head = buffered.slice(0, end);
        buffered = buffered.slice(end + 4);
        const [method, target] = head.split(' ');
        seen.push(`${method} ${target!.split('?')[0]}`);
        if (catalog && method === 'GET' && target!.startsWith('/v2/catalog/gpus')) {
          socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${CATALOG.length}\r\n\r\n${CATALOG}`);
          continue;
        }
        if (stall === 'processing') {
          const timer = setInterval(() => socket.write('HTTP/1.1 102 Processing\r\n\r\n'), 50);
          timers.add(timer);
          socket.on('close', () => clearInterval(timer));
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const open: Loopback[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function client(stall: Stall, options: RunpodClientOptions = {}, catalog = false) {
  const server = await loopback(stall, catalog);
  open.push(server);
  const rp = createRunpodClient({ apiKey: TEST_API_KEY, restUrl: `${server.url}/v2`, graphqlUrl: `${server.url}/graphql`, rateLimits: false, ...options });
  return { rp, server };
}

const podBody = { name: 'held', image: 'img:1', gpu: { id: 'NVIDIA L4' } };
const STALLS: Stall[] = ['silent', 'processing'];

describe('whole-call deadlines (deadlineMs) against a server that never answers', () => {
  it.each(STALLS)('a safe call ends in TimeoutError at its deadline, retries included (%s)', async (stall) => {
    // Each attempt's own limit is long, and there are many retries: only the deadline can end it soon.
    const { rp } = await client(stall, { timeoutMs: 60_000, maxRetries: 50 });
    const err = await captureError<TimeoutError>(rp.rest.pods.list(undefined, { deadlineMs: 300 }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.timeoutMs).toBe(300);
    expect(err.message).toContain('deadline');
  });

  it.each(STALLS)('with short attempts and many retries, the deadline still ends the call (%s)', async (stall) => {
    const { rp, server } = await client(stall, { timeoutMs: 60, maxRetries: 1_000 });
    expect(await captureError(rp.rest.templates.list({ deadlineMs: 300 }))).toBeInstanceOf(TimeoutError);
    // Backoff past the deadline is not slept: a handful of attempts, not a thousand.
    expect(server.seen.length).toBeLessThan(10);
  });

  it.each(STALLS)("the client's default deadline applies to every call (%s)", async (stall) => {
    const { rp } = await client(stall, { deadlineMs: 300 });
    expect(await captureError(rp.rest.networkVolumes.list())).toBeInstanceOf(TimeoutError);
    expect(await captureError(rp.pods.get('p-1'))).toBeInstanceOf(TimeoutError);
  });

  it.each(STALLS)('a create that was sent ends in PossiblyCreatedError carrying its marker, the lookup bounded too (%s)', async (stall) => {
    const { rp, server } = await client(stall, {}, true);
    const err = await captureError<PossiblyCreatedError>(rp.rest.pods.create(podBody, { deadlineMs: 300 }));
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect(err.createMarker).toMatch(/^[0-9a-f]{32}$/);
    expect(err.message).toContain(err.createMarker);
    expect(err.cause).toBeInstanceOf(TimeoutError);
    expect(server.seen.filter((line) => line === 'POST /v2/pods')).toHaveLength(1);
  });

  it.each(STALLS)('a create whose catalog read never came back was not sent: TimeoutError (%s)', async (stall) => {
    const { rp, server } = await client(stall);
    const err = await captureError(rp.rest.pods.create(podBody, { deadlineMs: 300 }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).not.toBeInstanceOf(PossiblyCreatedError);
    expect(server.seen).not.toContain('POST /v2/pods');
  });

  it.each(STALLS)("rp.pods.deploy over GraphQL: the catalog read and the create share the caller's deadline (%s)", async (stall) => {
    const { rp } = await client(stall);
    const err = await captureError(rp.pods.deploy({ imageName: 'img:1', gpuTypeId: 'NVIDIA L4', gpuCount: 1 }, { deadlineMs: 300 }));
    expect(err).toBeInstanceOf(TimeoutError);
  });

  it.each(STALLS)("rp.pods.deployCpu over REST v2 under the client's default deadline: its catalog read is bounded, nothing is sent (%s)", async (stall) => {
    const { rp, server } = await client(stall, { podsTransport: 'rest', deadlineMs: 300, maxRetries: 50 });
    const err = await captureError(rp.pods.deployCpu({ instanceId: 'cpu3c-2-4', imageName: 'img:1' }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(server.seen).not.toContain('POST /v2/pods');
  });

  it.each(STALLS)("the caller's signal after the create left: PossiblyCreatedError with the marker, not looked up (%s)", async (stall) => {
    const { rp, server } = await client(stall, {}, true);
    const controller = new AbortController();
    const pending = rp.rest.pods.create(podBody, { signal: controller.signal });
    while (!server.seen.includes('POST /v2/pods')) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const err = await captureError<PossiblyCreatedError>(pending);
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect(err.cause).toBeInstanceOf(AbortError);
    expect(err.createMarker).toMatch(/^[0-9a-f]{32}$/);
    expect(server.seen.filter((line) => line === 'GET /v2/pods')).toHaveLength(0);
  });

  it("the caller's signal before the create left: AbortError, nothing sent", async () => {
    const { rp, server } = await client('silent');
    const controller = new AbortController();
    const pending = rp.rest.pods.create(podBody, { signal: controller.signal });
    while (!server.seen.includes('GET /v2/catalog/gpus')) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect(await captureError(pending)).toBeInstanceOf(AbortError);
    expect(server.seen).not.toContain('POST /v2/pods');
  });

  it('a pacing wait counts: a call queued behind a closed window ends at its deadline', async () => {
    const { fetch } = recordingFetch(() => json({ templates: [] }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, rateLimits: { rest: { requests: 1, intervalMs: 3_600_000 } } });
    await rp.rest.templates.list();
    expect(await captureError(rp.rest.templates.list({ deadlineMs: 300 }))).toBeInstanceOf(TimeoutError);
  });

  it('a backoff that would end past the deadline is not slept: the last failure ends the call', async () => {
    const { fetch, calls } = recordingFetch(() => json({ error: 'down' }, { status: 503 }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 10 });
    // The first backoff is at least 375 ms.
    expect(await captureError(rp.rest.pods.list(undefined, { deadlineMs: 300 }))).toBeInstanceOf(ServerError);
    expect(calls).toHaveLength(1);
  });

  it.each([0, -1, Number.NaN, Infinity, '300'])('deadlineMs %s is a ValidationError, and nothing is sent', async (deadlineMs) => {
    const { fetch, calls } = recordingFetch(() => json({ pods: [] }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    expect(await captureError(rp.rest.pods.list(undefined, { deadlineMs: deadlineMs as number }))).toBeInstanceOf(ValidationError);
    expect(() => createRunpodClient({ apiKey: TEST_API_KEY, fetch, deadlineMs: deadlineMs as number })).toThrow(ValidationError);
    expect(calls).toHaveLength(0);
  });
});

describe('a huge Retry-After is a RateLimitError at once', () => {
  it.each([
    ['retry-after', '99999999999', 99_999_999_999_000],
    ['retry-after', '9'.repeat(40), Number.MAX_SAFE_INTEGER],
    ['retry-after-ms', '123456789012345', 123_456_789_012_345],
  ])('%s: %s', async (header, value, expected) => {
    const retries: unknown[] = [];
    const { fetch, calls } = recordingFetch(() => json({ error: 'slow down' }, { status: 429, headers: { [header]: value } }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 5, onRetry: (e) => retries.push(e) });
    const err = await captureError<RateLimitError>(rp.rest.pods.list());
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(expected);
    expect(calls).toHaveLength(1);
    expect(retries).toEqual([]);
    expect(JSON.parse(JSON.stringify(err)).retryAfterMs).toBe(expected);
  });

  it('a Retry-After within the cap but past the call deadline ends the call at once', async () => {
    const { fetch, calls } = recordingFetch(() => json({ error: 'slow down' }, { status: 429, headers: { 'retry-after': '30' } }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 5 });
    const err = await captureError<RateLimitError>(rp.rest.pods.list(undefined, { deadlineMs: 5_000 }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(30_000);
    expect(calls).toHaveLength(1);
  });
});

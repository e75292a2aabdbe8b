import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AbortError, ConnectionError, createRunpodClient, StreamError, TimeoutError, ValidationError, type LogLine } from '../../src/index.js';
import { lastEventIdHeader } from '../../src/rest/log-stream.js';
import { captureError, recordingFetch, TEST_API_KEY } from '../helpers.js';

const encoder = new TextEncoder();
const event = (id: string, line: string) => `id: ${id}\ndata: ${JSON.stringify({ ts: '2026-11-21T00:00:00Z', source: 'container', line })}\n\n`;

/** A body made by `next` one read at a time (undefined ends it); `reads` counts the bytes handed out. */
function pulledBody(next: (index: number) => Uint8Array | undefined | 'stall', contentType = 'text/event-stream') {
  const stats = { bytes: 0, cancelled: false };
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = next(index++);
      if (part === 'stall') return new Promise<void>(() => undefined);
      if (part === undefined) controller.close();
      else {
        stats.bytes += part.length;
        controller.enqueue(part);
      }
      return undefined;
    },
    cancel() {
      stats.cancelled = true;
    },
  });
  return { response: new Response(body, { headers: { 'content-type': contentType } }), stats };
}

const textBody = (parts: string[], contentType?: string) => pulledBody((i) => (i < parts.length ? encoder.encode(parts[i]) : undefined), contentType).response;

async function collect(lines: AsyncIterable<LogLine>): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of lines) out.push(entry.line);
  return out;
}

/** A fetch that answers through `respond`, and whose pending answer ends when its signal fires. */
function signalledFetch(respond: (index: number) => Response | 'hold') {
  let calls = 0;
  const fetch = (_input: string | URL | Request, init: RequestInit = {}) =>
    new Promise<Response>((resolve, reject) => {
      const answer = respond(calls++);
      if (init.signal?.aborted) return reject(init.signal.reason);
      init.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true });
      if (answer !== 'hold') resolve(answer);
    });
  return { fetch, calls: () => calls };
}

describe('log streams are bounded', () => {
  it('100 MB without a newline is a StreamError naming the limit, read no further than the limit', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x78); // 'x'
    const { response, stats } = pulledBody((i) => (i === 0 ? encoder.encode('data: ') : i * chunk.length < 100 * 1024 * 1024 ? chunk : undefined));
    const { fetch, calls } = recordingFetch(() => response);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError<StreamError>(collect(rp.rest.pods.logs('p1', { maxEventSize: 256 * 1024 })));
    expect(err).toBeInstanceOf(StreamError);
    expect(err.reason).toBe('event-too-large');
    expect(err.limit).toBe(256 * 1024);
    expect(err.message).toMatch(/longer than maxEventSize \(262144 characters\)/);
    expect(stats.bytes).toBeLessThanOrEqual(256 * 1024 + 2 * chunk.length);
    expect(stats.cancelled).toBe(true);
    expect(calls).toHaveLength(1); // not resumed: the same event would come again
  });

  it('one huge read is fed in slices: the parser stops at the limit (default 1 MiB)', async () => {
    const huge = new Uint8Array(20 * 1024 * 1024).fill(0x78);
    huge.set(encoder.encode('data: '));
    const { fetch } = recordingFetch(() => pulledBody((i) => (i === 0 ? huge : undefined)).response);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError<StreamError>(collect(rp.rest.pods.logs('p1')));
    expect(err).toBeInstanceOf(StreamError);
    expect(err.limit).toBe(1024 * 1024);
  });

  it('many short data lines of one event count towards the limit; keep-alive comments and finished events do not', async () => {
    const lines = pulledBody((i) => (i < 5_000 ? encoder.encode('data: 0123456789abcdef\n'.repeat(20)) : undefined)).response;
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: recordingFetch(() => lines).fetch });
    expect(await captureError(collect(rp.rest.pods.logs('p1', { maxEventSize: 64 * 1024 })))).toBeInstanceOf(StreamError);

    // 4 MB of keep-alives and small events through a 64 KB limit.
    const keepAlive = encoder.encode(': ping\n\n'.repeat(4096));
    const normal = pulledBody((i) => (i < 128 ? keepAlive : i === 128 ? encoder.encode(event('1', 'still here')) : undefined)).response;
    const rp2 = createRunpodClient({ apiKey: TEST_API_KEY, fetch: recordingFetch(() => normal).fetch });
    expect(await collect(rp2.rest.pods.logs('p1', { maxEventSize: 64 * 1024 }))).toEqual(['still here']);
  });

  it('an answer that is not text/event-stream (a 200 HTML page) is a StreamError, not a silent end, and is not resumed', async () => {
    const { fetch, calls } = recordingFetch(() => textBody(['<html><body>Sign in to continue</body></html>'], 'text/html; charset=utf-8'));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError<StreamError>(collect(rp.rest.pods.logs('p1')));
    expect(err).toBeInstanceOf(StreamError);
    expect(err.reason).toBe('not-event-stream');
    expect(err.limit).toBeUndefined();
    expect(err.message).toMatch(/expected text\/event-stream, got text\/html; charset=utf-8$/);
    expect(calls).toHaveLength(1);

    const none = recordingFetch(() => new Response('data: {}\n\n'));
    const rp2 = createRunpodClient({ apiKey: TEST_API_KEY, fetch: none.fetch });
    expect(((await captureError(collect(rp2.rest.pods.logs('p1')))) as StreamError).reason).toBe('not-event-stream');
    // Parameters and case are fine.
    const upper = recordingFetch(() => textBody([event('1', 'ok')], 'Text/Event-Stream; charset=utf-8'));
    expect(await collect(createRunpodClient({ apiKey: TEST_API_KEY, fetch: upper.fetch }).rest.pods.logs('p1'))).toEqual(['ok']);
  });

  it('resumes after any event id: the header carries its UTF-8 bytes, as EventSource sends them', async () => {
    for (const id of ['ид/42', '😀-7', 'ascii/1', '\u0100\u00ff']) {
      // The first body ends with a cut connection.
      const cut = recordingFetch((_call, i) => {
        if (i > 0) return textBody([event('next', 'two')]);
        let n = 0;
        return new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              if (n++ === 0) controller.enqueue(encoder.encode(event(id, 'one')));
              else controller.error(new TypeError('terminated'));
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        );
      });
      const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: cut.fetch });
      expect(await collect(rp.rest.pods.logs('p1'))).toEqual(['one', 'two']);
      expect(cut.calls).toHaveLength(2);
      const sent = cut.calls[1]!.headers.get('last-event-id')!;
      expect(new TextDecoder().decode(Uint8Array.from(sent, (c) => c.charCodeAt(0)))).toBe(id);
    }
    expect(lastEventIdHeader('')).toBeUndefined();
    expect(lastEventIdHeader(' \t ')).toBeUndefined();
    // No header can carry a control character: the resume asks from the id before it.
    expect(lastEventIdHeader('a\u0004b')).toBeNull();
    expect(lastEventIdHeader('2026-11-21T00:00:00.000Z/000000000001')).toBe('2026-11-21T00:00:00.000Z/000000000001');
  });

  it('an empty id: resets the resume point, so no Last-Event-ID is sent', async () => {
    const cut = recordingFetch((_call, i) => {
      if (i > 0) return textBody([event('x', 'two')]);
      let n = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (n++ === 0) controller.enqueue(encoder.encode(event('5', 'a') + 'id:\ndata: {"ts":"t","source":"system","line":"b"}\n\n'));
            else controller.error(new TypeError('terminated'));
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: cut.fetch });
    expect(await collect(rp.rest.pods.logs('p1'))).toEqual(['a', 'b', 'two']);
    expect(cut.calls[1]!.headers.get('last-event-id')).toBeNull();
  });

  it('refuses bad reconnect and size options before sending', () => {
    const { fetch, calls } = recordingFetch(() => textBody([]));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    for (const maxReconnects of [NaN, -1, 1.5, Infinity, 1001, '3' as never]) {
      expect(() => rp.rest.pods.logs('p1', { maxReconnects })).toThrow(ValidationError);
      expect(() => rp.rest.endpoints.workerLogs('e1', 'w1', { maxReconnects })).toThrow(/^maxReconnects: must be an integer between 0 and 1000/);
    }
    for (const maxEventSize of [0, 100, 1.5, NaN, 2 ** 40]) expect(() => rp.rest.pods.logs('p1', { maxEventSize })).toThrow(/^maxEventSize: /);
    for (const followMs of [0, -1, NaN]) expect(() => rp.rest.pods.logs('p1', { followMs })).toThrow(/^followMs: /);
    expect(() => rp.rest.pods.logs('p1', { timeoutMs: NaN })).toThrow(/^timeoutMs: /);
    expect(() => rp.rest.pods.logs('p1', { since: new Date(NaN) })).toThrow(ValidationError);
    expect(calls).toHaveLength(0);
  });

  it('counts drops in a row: a connection that delivered lines starts the count again', async () => {
    let i = 0;
    const flaky = recordingFetch(() => {
      const n = i++;
      if (n >= 6) return textBody([]);
      let reads = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (reads++ === 0) controller.enqueue(encoder.encode(event(String(n), `line ${n}`)));
            else controller.error(new TypeError('terminated'));
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: flaky.fetch });
    expect(await collect(rp.rest.pods.logs('p1', { maxReconnects: 1 }))).toHaveLength(6);

    const dead = recordingFetch(() => new Response(new ReadableStream({ pull: (c) => c.error(new TypeError('terminated')) }), { headers: { 'content-type': 'text/event-stream' } }));
    const err = await captureError(collect(createRunpodClient({ apiKey: TEST_API_KEY, fetch: dead.fetch }).rest.pods.logs('p1', { maxReconnects: 0 })));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(dead.calls).toHaveLength(1);
  });
});

describe('log stream deadlines', () => {
  it('timeoutMs ends a stalled stream (headers, then nothing) with TimeoutError', async () => {
    const { fetch } = signalledFetch(() => pulledBody((i) => (i === 0 ? encoder.encode(event('1', 'one')) : 'stall')).response);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const seen: string[] = [];
    const started = performance.now();
    const err = await captureError<TimeoutError>(async () => {
      for await (const entry of rp.rest.pods.logs('p1', { timeoutMs: 150 })) seen.push(entry.line);
    });
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.timeoutMs).toBe(150);
    expect(err.message).toMatch(/GET \/pods\/\{id\}\/logs: the log stream ran past its 150 ms deadline/);
    expect(seen).toEqual(['one']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('timeoutMs also ends a request whose headers are held, and the back-off between reconnections', async () => {
    const held = signalledFetch(() => 'hold');
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: held.fetch, timeoutMs: 60_000 });
    expect(await captureError(collect(rp.rest.pods.logs('p1', { timeoutMs: 100 })))).toBeInstanceOf(TimeoutError);

    const dropping = signalledFetch(() => new Response(new ReadableStream({ pull: (c) => c.error(new TypeError('terminated')) }), { headers: { 'content-type': 'text/event-stream' } }));
    const rp2 = createRunpodClient({ apiKey: TEST_API_KEY, fetch: dropping.fetch });
    expect(await captureError(collect(rp2.rest.pods.logs('p1', { timeoutMs: 300, maxReconnects: 1000 })))).toBeInstanceOf(TimeoutError);
  });

  it('followMs ends the loop normally, with the lines seen', async () => {
    const { fetch } = signalledFetch(() => pulledBody((i) => (i === 0 ? encoder.encode(event('1', 'one') + event('2', 'two')) : 'stall')).response);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    expect(await collect(rp.rest.pods.logs('p1', { followMs: 100 }))).toEqual(['one', 'two']);
    // The earlier of the two wins.
    expect(await captureError(collect(rp.rest.pods.logs('p1', { followMs: 5_000, timeoutMs: 50 })))).toBeInstanceOf(TimeoutError);
    expect(await collect(rp.rest.pods.logs('p1', { followMs: 50, timeoutMs: 5_000 }))).toEqual(['one', 'two']);
  });

  it('the caller\'s signal ends a stalled stream with AbortError, and no listener is left on it', async () => {
    const { fetch } = signalledFetch(() => pulledBody(() => 'stall').response);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await captureError(collect(rp.rest.pods.logs('p1', { signal: controller.signal, timeoutMs: 10_000 })))).toBeInstanceOf(AbortError);

    const kept = new AbortController();
    for (let i = 0; i < 5; i++) await collect(createRunpodClient({ apiKey: TEST_API_KEY, fetch: recordingFetch(() => textBody([event('1', 'x')])).fetch }).rest.pods.logs('p1', { signal: kept.signal, timeoutMs: 10_000 }));
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0);
  });
});

describe('job.stream listeners', () => {
  it('a stream that is never iterated leaves no abort listener on the caller\'s signal', async () => {
    const { fetch, calls } = recordingFetch(() => new Response('{"status":"IN_PROGRESS","stream":[]}', { headers: { 'content-type': 'application/json' } }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const controller = new AbortController();
    for (let i = 0; i < 1_000; i++) rp.endpoint('ep').job(`j${i}`).stream({ signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    // One that is iterated follows the signal while it runs, and lets go when it ends.
    const stream = rp.endpoint('ep').job('j').stream({ signal: controller.signal, pollIntervalMs: 1 });
    const done = collect(stream as AsyncIterable<never>).catch((err: unknown) => err);
    // The queue's calls load with this first stream (real I/O): wait for it to start, not a fixed time.
    for (let i = 0; i < 200 && getEventListeners(controller.signal, 'abort').length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(getEventListeners(controller.signal, 'abort').length).toBeGreaterThan(0);
    controller.abort();
    expect(await done).toBeInstanceOf(AbortError);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(calls.length).toBeGreaterThan(0);
  });
});

describe('log stream bounds longer than setTimeout allows', () => {
  it('a timeoutMs past 24.8 days is kept whole: not cut to 24.8 days, not fired at once', async () => {
    await import('../../src/rest/log-stream.js'); // loaded for real before the timers are faked
    const { vi } = await import('vitest');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const MAX_TIMER_MS = 2_147_483_647;
      const { fetch, calls } = signalledFetch(() => pulledBody(() => 'stall').response);
      const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
      let outcome: unknown = 'pending';
      void collect(rp.rest.pods.logs('p1', { timeoutMs: MAX_TIMER_MS + 60_000 })).then(
        () => (outcome = 'ended'),
        (err: unknown) => (outcome = err),
      );
      for (let i = 0; i < 100 && calls() === 0; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(calls()).toBe(1);
      await vi.advanceTimersByTimeAsync(MAX_TIMER_MS + 1_000);
      expect(outcome).toBe('pending');
      await vi.advanceTimersByTimeAsync(60_000);
      for (let i = 0; i < 20 && outcome === 'pending'; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(outcome).toBeInstanceOf(TimeoutError);
    } finally {
      vi.useRealTimers();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { AbortError, ConnectionError, createRunpodClient, ServerError, type LogLine } from '../../src/index.js';
import { captureError, recordingFetch, TEST_API_KEY } from '../helpers.js';

const event = (id: number, line: string) => `id: 2026-11-21T00:00:0${id}Z\ndata: ${JSON.stringify({ ts: `2026-11-21T00:00:0${id}Z`, source: 'container', line })}\n\n`;

/** A body that hands out `parts` one per read: text, or an Error that cuts the connection. */
function sseBody(parts: Array<string | Error>, onCancel: () => void = () => undefined, endless = false): Response {
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[next++];
      if (part === undefined) {
        if (!endless) controller.close();
        return endless ? new Promise<void>(() => undefined) : undefined;
      }
      if (part instanceof Error) controller.error(part);
      else controller.enqueue(encoder.encode(part));
      return undefined;
    },
    cancel: onCancel,
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

async function collect(lines: AsyncIterable<LogLine>): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of lines) out.push(entry.line);
  return out;
}

describe('REST v2 log streams (SSE)', () => {
  it('parses events split across reads, and asks for an event stream', async () => {
    const whole = event(1, 'first') + event(2, 'second') + 'data: {"ts":"t","source":"system","line":"multi\\nline"}\n\n';
    const { fetch, calls } = recordingFetch(() => sseBody([whole.slice(0, 17), whole.slice(17, 90), whole.slice(90)]));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const lines: LogLine[] = [];
    for await (const entry of rp.rest.pods.logs('p1', { source: 'container', tail: 10 })) lines.push(entry);
    expect(lines).toEqual([
      { ts: '2026-11-21T00:00:01Z', source: 'container', line: 'first' },
      { ts: '2026-11-21T00:00:02Z', source: 'container', line: 'second' },
      { ts: 't', source: 'system', line: 'multi\nline' },
    ]);
    expect(calls[0]!.headers.get('accept')).toBe('text/event-stream');
    expect(calls[0]!.headers.get('last-event-id')).toBeNull();
    expect(calls[0]!.url.search).toBe('?source=container&tail=10');
  });

  it('after a dropped connection, resumes with Last-Event-ID and loses nothing', async () => {
    const { fetch, calls } = recordingFetch((_call, i) =>
      i === 0 ? sseBody([event(1, 'one'), event(2, 'two'), new TypeError('terminated')]) : sseBody([event(3, 'three')]),
    );
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    expect(await collect(rp.rest.endpoints.workerLogs('e1', 'w1'))).toEqual(['one', 'two', 'three']);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.headers.get('last-event-id')).toBe('2026-11-21T00:00:02Z');
    expect(calls[1]!.url.pathname).toBe('/v2/serverless/e1/workers/w1/logs');
  });

  it('leaving the loop ends the request', async () => {
    let cancelled = false;
    const { fetch } = recordingFetch(() => sseBody([event(1, 'one'), event(2, 'two')], () => (cancelled = true), true));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    for await (const entry of rp.rest.pods.logs('p1')) {
      expect(entry.line).toBe('one');
      break;
    }
    expect(cancelled).toBe(true);
  });

  it('the caller\'s signal ends a stream that is waiting for lines, with AbortError', async () => {
    let cancelled = false;
    const { fetch } = recordingFetch(() => sseBody([event(1, 'one')], () => (cancelled = true), true));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const controller = new AbortController();
    const seen: string[] = [];
    const err = await captureError(async () => {
      for await (const entry of rp.rest.pods.logs('p1', { signal: controller.signal })) {
        seen.push(entry.line);
        queueMicrotask(() => controller.abort());
      }
    });
    expect(err).toBeInstanceOf(AbortError);
    expect(seen).toEqual(['one']);
    expect(cancelled).toBe(true);
  });

  it('gives up with ConnectionError after maxReconnects drops; an event of the wrong shape is a ServerError', async () => {
    const dropping = recordingFetch(() => sseBody([new TypeError('terminated')]));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: dropping.fetch });
    expect(await captureError(collect(rp.rest.pods.logs('p1', { maxReconnects: 1 })))).toBeInstanceOf(ConnectionError);
    expect(dropping.calls).toHaveLength(2);
    const bad = recordingFetch(() => sseBody(['data: {"message":"hi"}\n\n']));
    const rp2 = createRunpodClient({ apiKey: TEST_API_KEY, fetch: bad.fetch });
    expect(await captureError(collect(rp2.rest.pods.logs('p1')))).toBeInstanceOf(ServerError);
  });
});

// Hostile log streams (SSE): huge lines, odd ids, answers that are not event streams, random
// chunking and truncation. Each case checks the outcome against a model of what was sent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/client.js';
import { ConnectionError, RunpodError, StreamError, ValidationError } from '../../src/errors.js';
import type { LogLine } from '../../src/rest/logs.js';
import { counted, FUZZ_TIMEOUT_MS, params, settleWithin, spellingsOf, viewsOf } from './harness.js';

const KEY = 'rpa_FUZZ_sse_key_0123456789';
const LIMIT = 4096;
const encoder = new TextEncoder();

/** Any text an `id:` field can carry: no CR, LF or NUL (those end the line or void the id). */
const eventId = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', 'ид/42', '😀', '\u00ff\u0100', '\t x \t', 'a\u0004b', '\u007f', '2026-11-21T00:00:00.000Z/000000000001'),
).map((s) => s.replace(/[\r\n\0]/g, ''));

const lineText = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ maxLength: 30 }));

interface SentEvent {
  id: string | undefined;
  line: string;
}

const sentEvent = fc.record({ id: fc.option(eventId, { nil: undefined }), line: lineText });

/** Junk an SSE stream may carry between events, which must not yield a line. */
const filler = fc.constantFrom('', ': keep-alive\n\n', ':\n', 'retry: 1000\n', 'retry: soon\n', 'event: log\n', 'unknown-field: 1\n', '\n');

const eventText = (e: SentEvent, lineBreak: string) =>
  `${e.id === undefined ? '' : `id: ${e.id}${lineBreak}`}data: ${JSON.stringify({ ts: '2026-11-21T00:00:00Z', source: 'container', line: e.line })}${lineBreak}${lineBreak}`;

/** Splits `bytes` at the given offsets (any byte, inside a UTF-8 sequence included). */
function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of [...points, bytes.length]) {
    if (p > at) out.push(bytes.subarray(at, p));
    at = p;
  }
  return out;
}

function body(chunks: Uint8Array[], end: 'close' | 'drop', contentType: string | undefined): Response {
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk) controller.enqueue(chunk);
      else if (end === 'close') controller.close();
      else controller.error(new TypeError('terminated'));
    },
  });
  return new Response(stream, { headers: contentType === undefined ? {} : { 'content-type': contentType } });
}

/**
 * Model of the resume header after `ids` (the ids of the events delivered, in order): the UTF-8
 * bytes of the last one a header can carry, trimmed of spaces and tabs; an id with control
 * characters is passed over, and an empty one (after trimming) means no header.
 */
function expectedHeader(ids: Array<string | undefined>): string | null {
  let header: string | null = null;
  for (const id of ids) {
    if (id === undefined) continue;
    const trimmed = String.fromCharCode(...encoder.encode(id)).replace(/^[ \t]+|[ \t]+$/g, '');
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(trimmed)) continue;
    header = trimmed === '' ? null : trimmed;
  }
  return header;
}

async function drain(lines: AsyncIterable<LogLine>, out: string[]): Promise<void> {
  for await (const entry of lines) out.push(entry.line);
}

describe('fuzz: hostile log streams', () => {
  it('random events, ids, line breaks, chunking and truncation: every whole event arrives once, in order, and the resume asks for the last id', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(sentEvent, filler), { maxLength: 12 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.nat(),
        fc.constantFrom<'close' | 'drop'>('close', 'drop'),
        counted('sse: events, ids, chunking, truncation', async (events, lineBreak, cuts, truncate, end) => {
          const parts = events.map(([e, junk]) => ({ e, text: eventText(e, lineBreak) + junk }));
          const whole = parts.map((p) => p.text).join('');
          // A cut anywhere in the last event (and what follows it).
          const lastStart = whole.length - (parts.at(-1)?.text.length ?? 0);
          const cutAt = end === 'drop' || truncate % 3 === 0 ? whole.length : lastStart + (truncate % Math.max(1, whole.length - lastStart + 1));
          const sentText = whole.slice(0, cutAt);
          // The events whose blank line arrived. A CR alone ends a line, so with CRLF line breaks the
          // CR of the final one is enough once the stream has ended.
          const delivered: SentEvent[] = [];
          let offset = 0;
          for (const p of parts) {
            const ends = offset + eventText(p.e, lineBreak).length - (lineBreak === '\r\n' && cutAt < whole.length ? 1 : 0);
            if (ends <= cutAt) delivered.push(p.e);
            offset += p.text.length;
          }
          const requests: Headers[] = [];
          const fetch = async (_input: string | URL | Request, init: RequestInit = {}) => {
            requests.push(new Headers(init.headers));
            if (requests.length === 1) return body(chunked(encoder.encode(sentText), cuts), end, 'text/event-stream; charset=utf-8');
            return body([], 'close', 'text/event-stream');
          };
          const rp = createRunpodClient({ apiKey: KEY, fetch, restUrl: 'https://api.runpod.test/v2' });
          const seen: string[] = [];
          const outcome = await settleWithin(() => drain(rp.rest.pods.logs('p1', { maxReconnects: 1, maxEventSize: LIMIT }), seen));
          expect(outcome.kind).toBe('resolved');
          expect(seen).toEqual(delivered.map((e) => e.line));
          if (end === 'drop') {
            expect(requests).toHaveLength(2);
            expect(requests[1]!.get('last-event-id')).toBe(expectedHeader(delivered.map((e) => e.id)));
          } else expect(requests).toHaveLength(1);
        }),
      ),
      params(60),
    );
  }, FUZZ_TIMEOUT_MS);

  it('a line or event past the limit, anywhere, in any chunking: the lines before it, then StreamError naming the limit, read no further than the limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(sentEvent, { maxLength: 5 }),
        fc.constantFrom('no-newline', 'many-data-lines', 'long-id', 'long-comment-line'),
        fc.integer({ min: 1, max: 64 * 1024 }),
        fc.integer({ min: LIMIT + 1, max: 4 * LIMIT }),
        counted('sse: lines past the limit', async (before, kind, chunkSize, hugeSize) => {
          const prefix = before.map((e) => eventText(e, '\n')).join('');
          const huge =
            kind === 'no-newline' ? `data: ${'x'.repeat(hugeSize)}` : kind === 'many-data-lines' ? 'data: 0123456789\n'.repeat(Math.ceil(hugeSize / 17)) : kind === 'long-id' ? `id: ${'i'.repeat(hugeSize)}` : `:${'c'.repeat(hugeSize)}`;
          // Then an endless tail: the client must stop on its own.
          const head = encoder.encode(prefix + huge);
          let pulled = 0;
          const stream = new ReadableStream<Uint8Array>({
            pull(controller) {
              const from = pulled;
              pulled += chunkSize;
              controller.enqueue(from < head.length ? head.subarray(from, from + chunkSize) : new Uint8Array(chunkSize).fill(0x79));
            },
          });
          const rp = createRunpodClient({ apiKey: KEY, fetch: async () => new Response(stream, { headers: { 'content-type': 'text/event-stream' } }), restUrl: 'https://api.runpod.test/v2' });
          const seen: string[] = [];
          const outcome = await settleWithin(() => drain(rp.rest.pods.logs('p1', { maxEventSize: LIMIT }), seen));
          expect(outcome.kind).toBe('rejected');
          const error = (outcome as { error: StreamError }).error;
          expect(error).toBeInstanceOf(StreamError);
          expect(error.reason).toBe('event-too-large');
          expect(error.limit).toBe(LIMIT);
          expect(seen).toEqual(before.map((e) => e.line));
          // What was read: the events before, the limit, and at most one read and one parser slice more.
          // (the body is read through two streams, each of which may have pulled one read ahead).
          expect(pulled).toBeLessThanOrEqual(encoder.encode(prefix).length + 4 * LIMIT + 4 * chunkSize + 64 * 1024);
        }),
      ),
      params(40),
    );
  }, FUZZ_TIMEOUT_MS);

  it('an answer that is not an event stream: StreamError at once, one request, no key in any view', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(undefined, 'text/html', 'text/html; charset=utf-8', 'application/json', 'text/plain', 'text/event-streams', 'application/octet-stream', 'text/event', ''),
        fc.oneof(fc.constant('<html><body>502 Bad Gateway</body></html>'), fc.string({ maxLength: 200 }), fc.constant(`{"error":"bad key ${KEY}"}`), fc.constant(`data: {"ts":"t","source":"system","line":"${KEY}"}\n\n`)),
        fc.integer({ min: 200, max: 299 }).filter((s) => ![204, 205].includes(s)),
        counted('sse: answers that are not event streams', async (contentType, text, status) => {
          let requests = 0;
          const fetch = async () => {
            requests++;
            return new Response(text, { status, headers: contentType === undefined ? {} : { 'content-type': contentType } });
          };
          const rp = createRunpodClient({ apiKey: KEY, fetch, restUrl: 'https://api.runpod.test/v2' });
          const outcome = await settleWithin(() => drain(rp.rest.pods.logs('p1'), []));
          expect(outcome.kind).toBe('rejected');
          const error = (outcome as { error: StreamError }).error;
          // `new Response` gives a string body a text/plain type of its own when none is set.
          expect(error).toBeInstanceOf(StreamError);
          expect(error.reason).toBe('not-event-stream');
          expect(requests).toBe(1);
          for (const view of viewsOf(error)) for (const spelling of spellingsOf(KEY)) expect(view).not.toContain(spelling);
        }),
      ),
      params(60),
    );
  }, FUZZ_TIMEOUT_MS);

  it('connections that keep dropping end in ConnectionError after maxReconnects + 1 requests, whatever the value', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 }),
        counted('sse: reconnects bounded', async (maxReconnects) => {
          let requests = 0;
          const fetch = async () => (requests++, body([], 'drop', 'text/event-stream'));
          const rp = createRunpodClient({ apiKey: KEY, fetch, restUrl: 'https://api.runpod.test/v2' });
          const outcome = await settleWithin(() => drain(rp.rest.pods.logs('p1', { maxReconnects }), []), 10_000);
          expect(outcome.kind).toBe('rejected');
          expect((outcome as { error: unknown }).error).toBeInstanceOf(ConnectionError);
          expect(requests).toBe(maxReconnects + 1);
        }),
      ),
      params(5),
    );
  }, FUZZ_TIMEOUT_MS);

  it('bad stream options are a ValidationError naming the option, and nothing is sent', () => {
    const bad = fc.oneof(
      fc.constantFrom(Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1001, 2 ** 53, '3', null, true, {}),
      fc.double({ noNaN: false }).filter((n) => !(Number.isInteger(n) && n >= 0 && n <= 1000)),
      fc.integer({ max: -1 }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('maxReconnects', 'maxEventSize', 'followMs', 'timeoutMs'),
        bad,
        counted('sse: bad stream options', (field, value) => {
          if (field === 'maxEventSize' && Number.isInteger(value) && (value as number) >= 1024 && (value as number) <= 64 * 1024 * 1024) return true;
          // null is the default, as for every option.
          if (value === null) return true;
          if ((field === 'followMs' || field === 'timeoutMs') && typeof value === 'number' && Number.isFinite(value) && value > 0) return true;
          let sent = 0;
          const rp = createRunpodClient({ apiKey: KEY, fetch: async () => (sent++, new Response('')), restUrl: 'https://api.runpod.test/v2' });
          let error: unknown;
          try {
            rp.rest.pods.logs('p1', { [field]: value });
          } catch (err) {
            error = err;
          }
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).field).toBe(field);
          expect(error).toBeInstanceOf(RunpodError);
          expect(sent).toBe(0);
          return true;
        }),
      ),
      params(200),
    );
  });
});

import type { EmulatorClock } from '../clock.js';
import type { Lifetime } from '../lifetime.js';
import type { PodLogLine } from '../platform.js';
import { iso, type V2Context } from './context.js';
import { problem } from './problem.js';

const eventId = (l: PodLogLine) => `${iso(l.ts)}/${String(l.seq).padStart(12, '0')}`;
const after = (l: PodLogLine, cursor: { ts: number; seq: number }) => l.ts > cursor.ts || (l.ts === cursor.ts && l.seq > cursor.seq);
const event = (l: PodLogLine) => `id: ${eventId(l)}\ndata: ${JSON.stringify({ ts: iso(l.ts), source: l.source, line: l.line })}\n\n`;

function parseCursor(text: string): { ts: number; seq: number } {
  const [time = '', seq = '0'] = text.split('/');
  const ts = Date.parse(time);
  if (Number.isNaN(ts) || !/^\d+$/.test(seq)) throw problem(400, 'Last-Event-ID is not a cursor this endpoint emitted.');
  return { ts, seq: Number(seq) };
}

export interface LogFeed {
  /** The lines written so far, oldest first; undefined once the source is gone. */
  lines(): readonly PodLogLine[] | undefined;
  /** Whether more lines can come (a stopped pod writes none). */
  live(): boolean;
  /** When a line already written for later becomes visible, on the emulator clock. */
  nextAt(): number | undefined;
  /** Calls back when new lines may have been written; returns the way to stop. */
  onChange(listener: () => void): () => void;
}

/**
 * Resolves at the next moment new lines can appear: a known future line's time, or a change.
 * It waits on no clock sleeper unless a line is due, so an open stream never keeps time running.
 */
function nextWake(clock: EmulatorClock, feed: LogFeed, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const local = new AbortController();
    const done = (error?: unknown) => {
      stop();
      local.abort();
      signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    };
    const onAbort = () => done(signal.reason ?? new Error('aborted'));
    const stop = feed.onChange(() => done());
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) return onAbort();
    const at = feed.nextAt();
    if (at !== undefined) clock.sleep(Math.max(0, at - clock.now()), local.signal).then(() => done(), () => undefined);
  });
}

/**
 * Answers log lines as Server-Sent Events: `id:` is the line's time and order, `data:` is
 * `{ts, source, line}`. `Last-Event-ID` wins over `since`, which wins over `tail`. After the
 * backfill the stream follows new lines, on the emulator clock, until the source stops or goes,
 * the caller hangs up (before it started, too) or the emulator is disposed.
 */
export function sseLogs(c: V2Context, clock: EmulatorClock, feed: LogFeed, lifetime: Lifetime): Response {
  const source = c.req.query('source');
  if (source !== undefined && source !== 'container' && source !== 'system') throw problem(400, 'Query parameter source must be container or system.');
  const tailText = c.req.query('tail');
  const tail = tailText === undefined ? 100 : Number(tailText);
  if (!Number.isInteger(tail) || tail < 0 || tail > 5000) throw problem(400, 'Query parameter tail must be an integer from 0 to 5000.');
  const sinceText = c.req.query('since');
  const since = sinceText === undefined ? undefined : Date.parse(sinceText);
  if (since !== undefined && Number.isNaN(since)) throw problem(400, 'Query parameter since must be an RFC 3339 date-time.');
  const lastEventId = c.req.header('last-event-id');
  const resumeFrom = lastEventId ? parseCursor(lastEventId) : undefined;

  const matching = () => feed.lines()?.filter((l) => !source || l.source === source);
  const all = matching() ?? [];
  let backfill: readonly PodLogLine[];
  if (resumeFrom) backfill = all.filter((l) => after(l, resumeFrom));
  else if (since !== undefined) backfill = all.filter((l) => l.ts >= since);
  else backfill = tail === 0 ? [] : all.slice(-tail);
  const last = all[all.length - 1];
  let cursor = last ? { ts: last.ts, seq: last.seq } : { ts: -Infinity, seq: 0 };

  const hangUp = lifetime.hold(c.req.raw.signal);
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      if (backfill.length > 0) controller.enqueue(encoder.encode(backfill.map(event).join('')));
      try {
        while (feed.live() && !hangUp.signal.aborted) {
          await nextWake(clock, feed, hangUp.signal);
          const lines = matching();
          if (!lines) break;
          const fresh = lines.filter((l) => after(l, cursor));
          const newest = fresh[fresh.length - 1];
          if (newest) {
            cursor = { ts: newest.ts, seq: newest.seq };
            controller.enqueue(encoder.encode(fresh.map(event).join('')));
          }
        }
      } catch {
        // The caller hung up, or the emulator was disposed: the stream ends here.
      } finally {
        hangUp.release();
        try {
          controller.close();
        } catch {
          /* already closed by the reader's cancel */
        }
      }
    },
    cancel() {
      hangUp.end();
    },
  });
  return c.body(stream, 200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
}

import type { PodLogLine } from '../platform.js';
import { iso, type V2Context } from './context.js';
import { problem } from './problem.js';

const eventId = (l: PodLogLine) => `${iso(l.ts)}/${String(l.seq).padStart(12, '0')}`;

function parseCursor(text: string): { ts: number; seq: number } {
  const [time = '', seq = '0'] = text.split('/');
  const ts = Date.parse(time);
  if (Number.isNaN(ts) || !/^\d+$/.test(seq)) throw problem(400, 'Last-Event-ID is not a cursor this endpoint emitted.');
  return { ts, seq: Number(seq) };
}

/**
 * Answers log lines as Server-Sent Events: `id:` is the line's time and order, `data:` is
 * `{ts, source, line}`. `Last-Event-ID` wins over `since`, which wins over `tail`. The emulator
 * sends what has been written so far and ends the stream.
 */
export function sseLogs(c: V2Context, all: readonly PodLogLine[]): Response {
  const source = c.req.query('source');
  if (source !== undefined && source !== 'container' && source !== 'system') throw problem(400, 'Query parameter source must be container or system.');
  const tailText = c.req.query('tail');
  const tail = tailText === undefined ? 100 : Number(tailText);
  if (!Number.isInteger(tail) || tail < 0 || tail > 5000) throw problem(400, 'Query parameter tail must be an integer from 0 to 5000.');
  const sinceText = c.req.query('since');
  const since = sinceText === undefined ? undefined : Date.parse(sinceText);
  if (since !== undefined && Number.isNaN(since)) throw problem(400, 'Query parameter since must be an RFC 3339 date-time.');
  const lastEventId = c.req.header('last-event-id');

  let lines = all.filter((l) => !source || l.source === source);
  if (lastEventId) {
    const cursor = parseCursor(lastEventId);
    lines = lines.filter((l) => l.ts > cursor.ts || (l.ts === cursor.ts && l.seq > cursor.seq));
  } else if (since !== undefined) lines = lines.filter((l) => l.ts >= since);
  else lines = tail === 0 ? [] : lines.slice(-tail);

  const body = lines.map((l) => `id: ${eventId(l)}\ndata: ${JSON.stringify({ ts: iso(l.ts), source: l.source, line: l.line })}\n\n`).join('');
  return c.body(body, 200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
}

import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { CallOptions } from '../transport/options.js';
import type { HttpRequest } from '../transport/http-core.js';
import type { LazyKit } from './lazy-kit.js';
import type { LogLine } from './logs.js';
import type { RestCall, RestRequester } from './rest-request.js';
import type { LogSource } from './types.js';

/** Bytes decoded and fed to the parser at a time, so one huge read cannot grow it past its limit. */
const FEED_BYTES = 64 * 1024;
/** Event ids remembered to tell new events from repeated ones. */
const MAX_SEEN_IDS = 4096;

export interface LogStreamBounds {
  readonly maxReconnects: number;
  readonly maxEventSize: number;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number | undefined;
  readonly followMs: number | undefined;
  readonly callOptions: CallOptions;
  /** What it uses of the start-up modules (see lazy-kit.ts). */
  readonly kit: LazyKit;
}

/**
 * The value of a `Last-Event-ID` header for `id`: its UTF-8 bytes, one per character, which is
 * what an `EventSource` sends, so any id (non-Latin-1 included) reaches the server intact; without
 * the spaces and tabs around it, which HTTP drops anyway. Undefined when nothing is left (the
 * empty id asks for no resume); null when no header can carry it (control characters): the resume
 * then asks from the id before it, so a few lines may come twice, and none is lost.
 */
export function lastEventIdHeader(id: string): string | undefined | null {
  let value = id;
  // Plain ASCII, by far the common case, is its own encoding.
  if (!/^[\x00-\x7f]*$/.test(id)) {
    value = '';
    for (const byte of new TextEncoder().encode(id)) value += String.fromCharCode(byte);
  }
  value = value.replace(/^[ \t]+|[ \t]+$/g, '');
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return null;
  return value === '' ? undefined : value;
}

/** The stream behind `logStream`, loaded with its first read (options already checked there). */
export async function* streamLogs(rest: RestRequester, fullCall: RestCall, { maxReconnects, maxEventSize, signal, timeoutMs, followMs, callOptions, kit }: LogStreamBounds): AsyncGenerator<LogLine, void, undefined> {
  const { ConnectionError, RunpodError, StreamError, TimeoutError, sleep, startTimer, backoffMs, isRecord, isString, redactUrl } = kit;
  const summary = (req: { method: string; url: string; operation: string }) => ({ method: req.method, url: redactUrl(req.url), operation: req.operation });
  // One signal for the caller's signal, the deadline and the follow time; `ended` says which fired.
  const bounds = new AbortController();
  let ended: 'caller' | 'deadline' | 'follow' | undefined;
  const end = (why: 'caller' | 'deadline' | 'follow') => {
    ended ??= why;
    bounds.abort(signal?.reason);
  };
  const onAbort = () => end('caller');
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  // The core's timers: bounds past setTimeout's 24.8 days are kept whole, not cut or fired at once.
  const cancelTimers = [timeoutMs ? startTimer(() => end('deadline'), timeoutMs) : undefined, followMs ? startTimer(() => end('follow'), followMs) : undefined];
  /** The Last-Event-ID to resume with: that of the last event whose id a header can carry. */
  let resumeFrom: string | undefined;
  /**
   * Reconnections since the stream last made progress: an event whose id it had not seen. Lines
   * alone are not progress: a server that drops after every event and starts its ids again would
   * otherwise be reconnected to at once, for ever (365 connections in 8 s).
   */
  let drops = 0;
  let progressed = false;
  /** Ids seen, to tell a new event from one sent again; forgotten in bulk past a bound. */
  const seen = new Set<string>();
  let req!: HttpRequest;
  /** Once a bound fired: TimeoutError, AbortError, or (after `followMs`) the end of the loop. */
  const finish = () => {
    if (ended === 'deadline') throw new TimeoutError(`${req.operation}: the log stream ran past its ${timeoutMs} ms deadline`, { timeoutMs: timeoutMs!, request: summary(req) });
    if (ended === 'caller') throw rest.core.abortedByCaller(req);
  };
  try {
    for (;;) {
      const headers: Record<string, string> = { ...callOptions.headers, accept: 'text/event-stream' };
      if (resumeFrom !== undefined) headers['last-event-id'] = resumeFrom;
      req = rest.http(fullCall, { ...callOptions, signal: bounds.signal, headers });
      let res: Response;
      try {
        res = await rest.core.requestRaw(req);
      } catch (err) {
        if (!ended) throw err;
        finish();
        return;
      }
      const contentType = res.headers.get('content-type');
      if (!contentType || !/^\s*text\/event-stream\s*(;|$)/i.test(contentType)) {
        void res.body?.cancel().catch(() => undefined);
        throw new StreamError(`${req.operation}: expected text/event-stream, got ${contentType ?? 'no content-type'}`, { reason: 'not-event-stream', status: res.status, request: summary(req) });
      }
      if (!res.body) return;
      const reader = res.body.getReader();
      const cancel = () => void reader.cancel().catch(() => undefined);
      bounds.signal.addEventListener('abort', cancel, { once: true });
      const lines: LogLine[] = [];
      let bad: unknown;
      let tooLarge = false;
      const parser = createParser({
        maxBufferSize: maxEventSize,
        onEvent(event: EventSourceMessage) {
          // Past a bad event nothing more is handed out, or resumed from.
          if (bad !== undefined) return;
          if (event.id !== undefined) {
            const header = lastEventIdHeader(event.id);
            if (header !== null) resumeFrom = header;
            if (!seen.has(event.id)) {
              if (seen.size >= MAX_SEEN_IDS) seen.clear();
              seen.add(event.id);
              progressed = true;
            }
          }
          let data: unknown;
          try {
            data = JSON.parse(event.data);
          } catch {
            data = event.data;
          }
          if (isRecord(data) && isString(data.ts) && isString(data.line) && isString(data.source)) {
            lines.push({ ts: data.ts, source: data.source as LogSource, line: data.line });
          } else bad ??= data;
        },
        onError(error) {
          if (error.type === 'max-buffer-size-exceeded') tooLarge = true;
        },
      });
      const decoder = new TextDecoder();
      let dropped: unknown;
      let endsInCR = false;
      let cut = false;
      const feed = (text: string) => {
        if (text === '' || tooLarge) return;
        parser.feed(text);
        endsInCR = text.endsWith('\r');
      };
      try {
        for (;;) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (err) {
            cut = true;
            dropped = err;
          }
          if (ended) break;
          if (cut || chunk!.done) {
            // The parser holds a final CR back, waiting to see whether LF follows: at the end it
            // ends its line (and perhaps an event that is whole), as a CR alone does.
            feed(decoder.decode());
            if (endsInCR) feed('\n');
          } else {
            // Fed in slices: a single huge read never reaches the parser whole.
            const bytes = chunk!.value;
            for (let at = 0; at < bytes.length && !tooLarge; at += FEED_BYTES) feed(decoder.decode(bytes.subarray(at, at + FEED_BYTES), { stream: true }));
          }
          // The lines that came before a bad event are handed out first: nothing read is lost.
          if (progressed) drops = 0;
          progressed = false;
          while (lines.length) yield lines.shift()!;
          if (tooLarge) {
            throw new StreamError(`${req.operation}: an event is longer than maxEventSize (${maxEventSize} characters)`, { reason: 'event-too-large', limit: maxEventSize, status: res.status, request: summary(req) });
          }
          if (bad !== undefined) throw rest.core.wrongShape(req, 'log events {ts, source, line}', bad);
          if (cut) break;
          if (chunk!.done) return;
        }
      } finally {
        bounds.signal.removeEventListener('abort', cancel);
        cancel();
      }
      if (ended) {
        finish();
        return;
      }
      if (++drops > maxReconnects) {
        throw new ConnectionError(`${req.operation}: the log stream dropped ${drops} times in a row without a new event`, {
          notSent: false,
          request: summary(req),
          cause: dropped instanceof RunpodError ? dropped : new Error(rest.core.scrub(String((dropped as Error)?.message ?? dropped))),
        });
      }
      // Resume (from the last id) at once the first time; back off while the stream keeps dropping without progress.
      if (drops > 1) {
        try {
          await sleep(backoffMs(drops - 2), bounds.signal);
        } catch {
          finish();
          return;
        }
      }
    }
  } finally {
    for (const cancel of cancelTimers) cancel?.();
    signal?.removeEventListener('abort', onAbort);
  }
}


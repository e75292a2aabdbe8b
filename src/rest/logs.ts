// Server-Sent Event log streams (pods and serverless workers), resumed with Last-Event-ID after a drop.
import type { EventSourceMessage } from 'eventsource-parser';
import { ConnectionError, RunpodError, StreamError, TimeoutError, ValidationError } from '../errors.js';
import { sleep } from '../transport/abort.js';
import { checkDuration, validateCallOptions, type CallOptions } from '../transport/options.js';
import { redactUrl } from '../transport/redact.js';
import { backoffMs } from '../transport/retry.js';
import { isRecord, isString } from '../transport/shape.js';
import type { HttpRequest } from '../transport/http-core.js';
import type { RestCall, RestRequester } from './rest-request.js';
import type { LogSource } from './types.js';
import { checkInteger, shown } from '../validation.js';

/** One log line. */
export interface LogLine {
  /** When the line was written (ISO 8601). */
  readonly ts: string;
  readonly source: LogSource;
  readonly line: string;
}

export interface LogOptions extends CallOptions {
  /** `container` or `system`; the server's default when left out. */
  source?: LogSource | undefined;
  /** Lines from before now to start with, 0–5000. */
  tail?: number | undefined;
  /** Start with the lines written since then. */
  since?: string | Date | undefined;
  /**
   * Deadline for the whole stream, reconnections and waits for new lines included: when it passes
   * the loop throws `TimeoutError`. Without it a stream follows until the source stops, the loop
   * is left or `signal` fires; the client's `timeoutMs` then bounds only each wait for headers.
   */
  timeoutMs?: number | undefined;
  /** Follow new lines for this long, then end the loop normally (no error). */
  followMs?: number | undefined;
  /** Reconnections in a row (without a new line in between) after dropped connections before giving up, 0–1000. @default 5 */
  maxReconnects?: number | undefined;
  /** Longest event (or line of one) accepted, in characters; a longer one is a `StreamError`. @default 1048576 (1 MiB) */
  maxEventSize?: number | undefined;
}

const DEFAULT_MAX_RECONNECTS = 5;
const MAX_RECONNECTS = 1000;
const MAX_TAIL = 5000;
export const DEFAULT_MAX_EVENT_SIZE = 1024 * 1024;
const MAX_EVENT_SIZE = 64 * 1024 * 1024;
/** Bytes decoded and fed to the parser at a time, so one huge read cannot grow it past its limit. */
const FEED_BYTES = 64 * 1024;
/** setTimeout's largest delay. */
const MAX_TIMER_MS = 2_147_483_647;

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

function checkLogOptions(options: LogOptions): void {
  checkInteger('tail', options.tail, 0, MAX_TAIL);
  checkInteger('maxReconnects', options.maxReconnects, 0, MAX_RECONNECTS);
  checkInteger('maxEventSize', options.maxEventSize, 1024, MAX_EVENT_SIZE);
  checkDuration('followMs', options.followMs);
  const { source, since } = options;
  if (source !== undefined && source !== 'container' && source !== 'system') throw new ValidationError('source', `must be "container" or "system"; got ${shown(source)}`);
  if (since instanceof Date && Number.isNaN(since.getTime())) throw new ValidationError('since', 'must be a valid Date; got Invalid Date');
}

/**
 * The lines of a log stream. Breaking out of the loop (or the caller's `signal`) ends the request;
 * a dropped connection is resumed from the last event seen.
 */
export function logStream(rest: RestRequester, call: Omit<RestCall, 'query' | 'idempotent'>, options: LogOptions = {}): AsyncIterable<LogLine> {
  // Checked as a whole here: the headers below are rebuilt, so the core would see only the copy.
  validateCallOptions(options);
  checkLogOptions(options);
  const {
    source,
    tail,
    since,
    maxReconnects = DEFAULT_MAX_RECONNECTS,
    maxEventSize = DEFAULT_MAX_EVENT_SIZE,
    signal,
    timeoutMs,
    followMs,
    ...callOptions
  } = options;
  const fullCall: RestCall = {
    ...call,
    query: { source, tail, since: since instanceof Date ? since.toISOString() : since },
    idempotent: true,
  };
  return {
    async *[Symbol.asyncIterator]() {
      // Loaded with the first stream read, not with the package: most programs never read a log.
      const { createParser } = await import('eventsource-parser');
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
      // Bounds past setTimeout's 24.8 days are held to it.
      const timers = [timeoutMs && setTimeout(end, Math.min(timeoutMs, MAX_TIMER_MS), 'deadline'), followMs && setTimeout(end, Math.min(followMs, MAX_TIMER_MS), 'follow')];
      /** The Last-Event-ID to resume with: that of the last event whose id a header can carry. */
      let resumeFrom: string | undefined;
      let drops = 0;
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
              if (lines.length) drops = 0;
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
            throw new ConnectionError(`${req.operation}: the log stream dropped ${drops} times in a row`, {
              notSent: false,
              request: summary(req),
              cause: dropped instanceof RunpodError ? dropped : new Error(rest.core.scrub(String((dropped as Error)?.message ?? dropped))),
            });
          }
          // Resume at once the first time; back off when the stream keeps dropping.
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
        for (const timer of timers) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}

function summary(req: { method: string; url: string; operation: string }) {
  return { method: req.method, url: redactUrl(req.url), operation: req.operation };
}

// Server-Sent Event log streams (pods and serverless workers), resumed with Last-Event-ID after a drop.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { AbortError, ConnectionError, RunpodError, StreamError, TimeoutError, ValidationError } from '../errors.js';
import { sleep } from '../transport/abort.js';
import { checkDuration, validateCallOptions, type CallOptions } from '../transport/options.js';
import { redactUrl } from '../transport/redact.js';
import { backoffMs } from '../transport/retry.js';
import { isRecord, isString } from '../transport/shape.js';
import type { RestCall, RestRequester } from './rest-request.js';
import type { LogSource } from './types.js';
import { shown } from '../validation.js';

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
/** How long the start of an answer that is not an event stream is waited for, for its error. */
const HEAD_WAIT_MS = 1_000;
/** setTimeout's largest delay; longer timers are chained. */
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

/** A timer on the monotonic clock that may run longer than setTimeout's 24.8-day limit. */
function longTimer(ms: number, fire: () => void): () => void {
  const at = performance.now() + ms;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    const left = at - performance.now();
    if (left <= 0) fire();
    else timer = setTimeout(arm, Math.min(Math.ceil(left), MAX_TIMER_MS));
  };
  timer = setTimeout(arm, Math.min(Math.ceil(ms), MAX_TIMER_MS));
  return () => clearTimeout(timer);
}

/** The bounds of one stream: the caller's signal, the deadline and the follow time, as one signal. */
function streamBounds(signal: AbortSignal | undefined, timeoutMs: number | undefined, followMs: number | undefined) {
  const controller = new AbortController();
  let ended: 'caller' | 'deadline' | 'follow' | undefined;
  const end = (why: 'caller' | 'deadline' | 'follow') => {
    if (ended) return;
    ended = why;
    controller.abort(why === 'caller' ? signal?.reason : new Error(why));
  };
  const onAbort = () => end('caller');
  if (signal?.aborted) end('caller');
  else signal?.addEventListener('abort', onAbort, { once: true });
  const timers = [timeoutMs === undefined ? undefined : longTimer(timeoutMs, () => end('deadline')), followMs === undefined ? undefined : longTimer(followMs, () => end('follow'))];
  return {
    signal: controller.signal,
    ended: () => ended,
    dispose() {
      for (const clear of timers) clear?.();
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

function checkLogOptions(options: LogOptions): void {
  const { tail, source, maxReconnects, maxEventSize } = options;
  if (tail !== undefined && !(Number.isInteger(tail) && tail >= 0 && tail <= MAX_TAIL)) throw new ValidationError('tail', `must be an integer from 0 to ${MAX_TAIL}; got ${shown(tail)}`);
  if (source !== undefined && source !== 'container' && source !== 'system') throw new ValidationError('source', `must be "container" or "system"; got ${shown(source)}`);
  if (maxReconnects !== undefined && !(Number.isInteger(maxReconnects) && maxReconnects >= 0 && maxReconnects <= MAX_RECONNECTS)) {
    throw new ValidationError('maxReconnects', `must be an integer from 0 to ${MAX_RECONNECTS}; got ${shown(maxReconnects)}`);
  }
  if (maxEventSize !== undefined && !(Number.isInteger(maxEventSize) && maxEventSize >= 1024 && maxEventSize <= MAX_EVENT_SIZE)) {
    throw new ValidationError('maxEventSize', `must be an integer from 1024 to ${MAX_EVENT_SIZE} (characters); got ${shown(maxEventSize)}`);
  }
  checkDuration('followMs', options.followMs);
  if (options.since instanceof Date && Number.isNaN(options.since.getTime())) throw new ValidationError('since', 'must be a valid Date or an ISO 8601 string; got Invalid Date');
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
      const bounds = streamBounds(signal, timeoutMs, followMs);
      /** The Last-Event-ID to resume with: that of the last event whose id a header can carry. */
      let resumeFrom: string | undefined;
      let drops = 0;
      let req = rest.http(fullCall, { ...callOptions, signal: bounds.signal });
      /** What ends the stream once its bounds fired: normally, TimeoutError or AbortError. */
      const boundsError = (): RunpodError | undefined => {
        const why = bounds.ended();
        if (why === 'deadline') return new TimeoutError(`${req.operation}: the log stream ran past its ${timeoutMs} ms deadline`, { timeoutMs: timeoutMs!, request: summary(req) });
        if (why === 'caller') return new AbortError(`${req.operation} aborted by the caller`, { request: summary(req), cause: signal?.reason });
        return undefined;
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
            if (bounds.ended()) {
              const error = boundsError();
              if (error) throw error;
              return;
            }
            throw err;
          }
          const contentType = res.headers.get('content-type');
          if (!contentType || !/^\s*text\/event-stream\s*(;|$)/i.test(contentType)) {
            const head = await readHead(res);
            throw new StreamError(`${req.operation}: expected an event stream (text/event-stream), got ${contentType ?? 'no content-type'}: ${rest.core.scrub(head).slice(0, 120)}`, {
              reason: 'not-event-stream',
              status: res.status,
              body: rest.core.scrub(head).slice(0, 300),
              request: summary(req),
            });
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
              if (bounds.ended()) break;
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
                throw new StreamError(`${req.operation}: an event of the log stream is longer than ${maxEventSize} characters (maxEventSize); the stream was closed`, {
                  reason: 'event-too-large',
                  limit: maxEventSize,
                  status: res.status,
                  request: summary(req),
                });
              }
              if (bad !== undefined) throw rest.core.wrongShape(req, 'log events {ts, source, line}', bad);
              if (cut) break;
              if (chunk!.done) return;
            }
          } finally {
            bounds.signal.removeEventListener('abort', cancel);
            cancel();
          }
          if (bounds.ended()) {
            const error = boundsError();
            if (error) throw error;
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
              const error = boundsError();
              if (error) throw error;
              return;
            }
          }
        }
      } finally {
        bounds.dispose();
      }
    },
  };
}

/** The start of an answer that is not an event stream, for its error: one read, for at most a second. */
async function readHead(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const first = await Promise.race([reader.read(), new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), HEAD_WAIT_MS)))]);
    return first?.value ? new TextDecoder().decode(first.value.subarray(0, 4096)) : '';
  } catch {
    return '';
  } finally {
    clearTimeout(timer);
    void reader.cancel().catch(() => undefined);
  }
}

function summary(req: { method: string; url: string; operation: string }) {
  return { method: req.method, url: redactUrl(req.url), operation: req.operation };
}

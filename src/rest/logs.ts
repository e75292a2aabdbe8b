// Server-Sent Event log streams (pods and serverless workers), resumed with Last-Event-ID after a drop.
import type { EventSourceMessage } from 'eventsource-parser';
import { AbortError, ConnectionError, RunpodError, ValidationError } from '../errors.js';
import { sleep } from '../transport/abort.js';
import { validateCallOptions, type CallOptions } from '../transport/options.js';
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
  /** Reconnections after a dropped connection before giving up. @default 5 */
  maxReconnects?: number | undefined;
}

const DEFAULT_MAX_RECONNECTS = 5;
const MAX_TAIL = 5000;

/**
 * The lines of a log stream. Breaking out of the loop (or the caller's `signal`) ends the request;
 * a dropped connection is resumed from the last event seen.
 */
export function logStream(rest: RestRequester, call: Omit<RestCall, 'query' | 'idempotent'>, options: LogOptions = {}): AsyncIterable<LogLine> {
  // Checked as a whole here: the headers below are rebuilt, so the core would see only the copy.
  validateCallOptions(options);
  const { source, tail, since, maxReconnects = DEFAULT_MAX_RECONNECTS, signal, ...callOptions } = options;
  if (tail !== undefined && !(Number.isInteger(tail) && tail >= 0 && tail <= MAX_TAIL)) throw new ValidationError('tail', `must be an integer from 0 to ${MAX_TAIL}; got ${tail}`);
  if (source !== undefined && source !== 'container' && source !== 'system') throw new ValidationError('source', `must be "container" or "system"; got ${shown(source)}`);
  const fullCall: RestCall = {
    ...call,
    query: { source, tail, since: since instanceof Date ? since.toISOString() : since },
    idempotent: true,
  };
  return {
    async *[Symbol.asyncIterator]() {
      // Loaded with the first stream read, not with the package: most programs never read a log.
      const { createParser } = await import('eventsource-parser');
      let lastEventId: string | undefined;
      let drops = 0;
      for (;;) {
        const headers: Record<string, string> = { ...callOptions.headers, accept: 'text/event-stream' };
        if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
        const req = rest.http(fullCall, { ...callOptions, signal, headers });
        const res = await rest.core.requestRaw(req);
        if (!res.body) return;
        const reader = res.body.getReader();
        const cancel = () => void reader.cancel().catch(() => undefined);
        signal?.addEventListener('abort', cancel, { once: true });
        const lines: LogLine[] = [];
        let bad: unknown;
        const parser = createParser({
          onEvent(event: EventSourceMessage) {
            if (event.id !== undefined) lastEventId = event.id;
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
        });
        const decoder = new TextDecoder();
        let dropped: unknown;
        try {
          for (;;) {
            let chunk: ReadableStreamReadResult<Uint8Array>;
            try {
              chunk = await reader.read();
            } catch (err) {
              dropped = err;
              break;
            }
            if (signal?.aborted) throw new AbortError(`${req.operation} aborted by the caller`, { request: summary(req), cause: signal.reason });
            if (chunk.done) return;
            parser.feed(decoder.decode(chunk.value, { stream: true }));
            if (bad !== undefined) throw rest.core.wrongShape(req, 'log events {ts, source, line}', bad);
            while (lines.length) yield lines.shift()!;
          }
        } finally {
          signal?.removeEventListener('abort', cancel);
          cancel();
        }
        if (signal?.aborted) throw new AbortError(`${req.operation} aborted by the caller`, { request: summary(req), cause: signal.reason });
        if (++drops > maxReconnects) {
          throw new ConnectionError(`${req.operation}: the log stream dropped ${drops} times`, {
            notSent: false,
            request: summary(req),
            cause: dropped instanceof RunpodError ? dropped : new Error(rest.core.scrub(String((dropped as Error)?.message ?? dropped))),
          });
        }
        // Resume at once the first time; back off when the stream keeps dropping.
        if (drops > 1) await sleep(backoffMs(drops - 2), signal);
      }
    },
  };
}

function summary(req: { method: string; url: string; operation: string }) {
  return { method: req.method, url: redactUrl(req.url), operation: req.operation };
}

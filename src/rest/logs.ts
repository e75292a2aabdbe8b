// Server-Sent Event log streams (pods and serverless workers), resumed with Last-Event-ID after a drop.
import { ValidationError } from '../errors.js';
import { checkDuration, validateCallOptions, type CallOptions } from '../transport/options.js';
import { kit } from './lazy-kit.js';
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
  /**
   * Reconnections in a row after dropped connections before giving up with `ConnectionError`,
   * 0–1000. Each resumes from the last event id; the count starts again only when a connection
   * delivered an event with an id not seen before (a server that starts its ids again each time
   * makes no progress). After the first, each waits with backoff (0.5 s doubling, up to 8 s).
   * @default 5
   */
  maxReconnects?: number | undefined;
  /** Longest event (or line of one) accepted, in characters; a longer one is a `StreamError`. @default 1048576 (1 MiB) */
  maxEventSize?: number | undefined;
}

const DEFAULT_MAX_RECONNECTS = 5;
const MAX_RECONNECTS = 1000;
const MAX_TAIL = 5000;
export const DEFAULT_MAX_EVENT_SIZE = 1024 * 1024;
const MAX_EVENT_SIZE = 64 * 1024 * 1024;

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
      const { streamLogs } = await import('./log-stream.js');
      yield* streamLogs(rest, fullCall, { maxReconnects, maxEventSize, signal, timeoutMs, followMs, callOptions, kit });
    },
  };
}

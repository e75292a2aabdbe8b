/** How much the client logs: each level includes the ones before it. */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

/** The levels, quietest first. */
export const LOG_LEVELS: readonly LogLevel[] = ['off', 'error', 'warn', 'info', 'debug'];

/** @default 'warn' */
export const DEFAULT_LOG_LEVEL: LogLevel = 'warn';

/** What one log line is about, for loggers that keep structured fields (pino, winston). Never holds a secret. */
export interface LogFields {
  /** GraphQL operation name, REST route or serverless action. */
  readonly operation?: string | undefined;
  readonly method?: string | undefined;
  /** The URL, with the key and every credential-like parameter redacted. */
  readonly url?: string | undefined;
  readonly status?: number | undefined;
  /** Time the attempt (or the wait) took. */
  readonly durationMs?: number | undefined;
  /** 1 for the first attempt. */
  readonly attempt?: number | undefined;
  /** Why a retry happens: an HTTP status, `timeout` or `connection`. */
  readonly reason?: number | string | undefined;
  readonly delayMs?: number | undefined;
  readonly [field: string]: string | number | boolean | undefined;
}

/**
 * Where log lines go: any object with these four methods, so `console`, pino, winston and consola
 * fit as they are. Each line is a complete message (`runpod-gql: GET … → HTTP 200 in 41 ms`),
 * followed by its fields as one object (the default console gets the message alone).
 */
export interface RunpodLogger {
  error(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  debug(message: string, ...rest: unknown[]): void;
}

/** The client's own view of its logger: level checks first, so a line that is not wanted costs nothing. */
export interface Log {
  readonly level: LogLevel;
  /** True when lines of `level` are written: build costly lines only then. */
  enabled(level: Exclude<LogLevel, 'off'>): boolean;
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
}

/** True for one of {@link LOG_LEVELS}. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** True for an object with error, warn, info and debug methods. */
export function isLogger(value: unknown): value is RunpodLogger {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  const v = value as Record<string, unknown>;
  return ['error', 'warn', 'info', 'debug'].every((m) => typeof v[m] === 'function');
}

const consoleLogger = (): RunpodLogger | undefined => (globalThis as { console?: RunpodLogger }).console;

/**
 * A log that writes lines of `level` and quieter to `logger` (console by default). Every message
 * and every text field passes through `scrub` on its way out, so a key echoed into an error text
 * cannot reach a log either. What the logger throws is dropped: logging never changes a call.
 */
export function createLog(level: LogLevel, logger: RunpodLogger | undefined, scrub: (text: string) => string): Log {
  const rank = LOG_LEVELS.indexOf(level);
  const write = (at: Exclude<LogLevel, 'off'>, message: string, fields?: LogFields): void => {
    if (LOG_LEVELS.indexOf(at) > rank) return;
    const target = logger ?? consoleLogger();
    if (!target) return;
    try {
      const line = scrub(`runpod-gql: ${message}`);
      // The console gets the line alone (the message is complete); a logger of the caller's, the fields too.
      if (!fields || !logger) {
        target[at](line);
        return;
      }
      const clean: Record<string, string | number | boolean> = {};
      for (const [name, value] of Object.entries(fields)) {
        if (value !== undefined) clean[name] = typeof value === 'string' ? scrub(value) : value;
      }
      target[at](line, clean);
    } catch {
      // A logger that throws is the caller's bug; it must not change what the call does.
    }
  };
  return {
    level,
    enabled: (at) => LOG_LEVELS.indexOf(at) <= rank,
    error: (m, f) => write('error', m, f),
    warn: (m, f) => write('warn', m, f),
    info: (m, f) => write('info', m, f),
    debug: (m, f) => write('debug', m, f),
  };
}

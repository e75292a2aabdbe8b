import { ValidationError } from './errors.js';

/** A value as an error message shows it; never throws (BigInt, cycles). */
export function shown(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * An id that stays one path segment once URL-encoded: not blank, not `.` or `..` (which a URL
 * parser collapses into another route), no control characters. Returned as given.
 */
export function requireId(field: string, value: unknown): string {
  if (requireString(field, value) === '.' || value === '..' || /[\u0000-\u001f\u007f-\u009f]/.test(value as string)) {
    throw new ValidationError(field, `must be one path segment, got ${shown(value)}`);
  }
  return value as string;
}

/** A non-blank string (free text such as a name; not used in a path). */
export function requireString(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ValidationError(field, 'must be a non-empty string');
  return value;
}

/**
 * `value` as JSON text; a value JSON cannot carry (a cycle, a BigInt) is a ValidationError naming
 * `field`, before anything is sent, instead of a TypeError.
 */
export function toJsonBody(field: string, value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    throw new ValidationError(field, `cannot be sent as JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Refuses a request body over `limit` bytes (UTF-8, as sent) before sending, with its size: the
 * platform's limits are in bytes of the whole body. Text whose UTF-16 length is under a third of the
 * limit cannot be over it, so the common case encodes nothing.
 */
export function checkBodySize(field: string, body: string, limit: number, route: string): void {
  if (body.length * 3 <= limit) return;
  const bytes = new TextEncoder().encode(body).length;
  if (bytes > limit) throw new ValidationError(field, `the request body is ${bytes} bytes; ${route} accepts at most ${limit}`);
}

/** An integer within [min, max]; `undefined` passes when the field is optional. */
export function checkInteger(field: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER, optional = true): void {
  if (value === undefined || value === null) {
    if (optional) return;
    throw new ValidationError(field, 'is required');
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `between ${min} and ${max}`;
    throw new ValidationError(field, `must be an integer ${range}, got ${shown(value)}`);
  }
}

export function checkNumber(field: string, value: unknown, min: number, max: number): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new ValidationError(field, `must be a number between ${min} and ${max}, got ${shown(value)}`);
  }
}

const PORT_ENTRY = /^(\d{1,5})\/(http|tcp)$/;

function checkPortEntry(field: string, entry: string): void {
  const match = PORT_ENTRY.exec(entry.trim());
  const port = match ? Number(match[1]) : NaN;
  if (!match || port < 1 || port > 65535) {
    throw new ValidationError(field, `"${entry}" is not <port>/<http|tcp> with a port from 1 to 65535 (e.g. "8888/http")`);
  }
}

/** The GraphQL form: one string, `8888/http,22/tcp`. */
export function checkPortsString(field: string, ports: unknown): void {
  if (ports === undefined || ports === null || ports === '') return;
  if (typeof ports !== 'string') throw new ValidationError(field, 'must be a string like "8888/http,22/tcp"');
  for (const entry of ports.split(',')) checkPortEntry(field, entry);
}

/** The REST form: an array, `["8888/http", "22/tcp"]`. */
export function checkPortsArray(field: string, ports: unknown): void {
  if (ports === undefined || ports === null) return;
  if (!Array.isArray(ports)) throw new ValidationError(field, 'must be an array like ["8888/http", "22/tcp"]');
  ports.forEach((entry, i) => {
    if (typeof entry !== 'string') throw new ValidationError(`${field}[${i}]`, 'must be a string like "8888/http"');
    checkPortEntry(`${field}[${i}]`, entry);
  });
}

/**
 * The one rule for pod environment variable names, on every path (GraphQL's `[{key, value}]`,
 * REST v2's `{ KEY: value }`, REST v1): `__proto__` is refused. REST v2 carries env as a JSON
 * object, where many parsers read that key as the object's prototype and drop the variable; the
 * same input must not be kept on one API and lost or refused on the other.
 */
export function checkEnvName(field: string, key: string): void {
  if (key === '__proto__') throw new ValidationError(`${field}.${key}`, 'is not allowed as a variable name (a JSON object cannot carry it safely)');
}

/** REST bodies take `env` as `{ KEY: 'value' }`; the GraphQL `[{key, value}]` form is a common slip. */
export function checkEnvMap(field: string, env: unknown): void {
  if (env === undefined) return;
  if (env === null || typeof env !== 'object' || Array.isArray(env)) {
    throw new ValidationError(field, 'must be an object map like { "KEY": "value" } (REST does not take [{key, value}])');
  }
  for (const [key, value] of Object.entries(env)) {
    checkEnvName(field, key);
    if (typeof value !== 'string') throw new ValidationError(`${field}.${key}`, 'must be a string');
  }
}

/** A plain object body; anything else is a caller error. */
export function requireObject(field: string, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ValidationError(field, 'must be an object');
  return value as Record<string, unknown>;
}

export function checkOneOf(field: string, value: unknown, allowed: readonly string[], hint = ''): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new ValidationError(field, `must be one of ${allowed.join(', ')}${hint}, got ${shown(value)}`);
  }
}

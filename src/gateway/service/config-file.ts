// `runpod-gql gateway --config gateway.toml`: the gateway's settings in a TOML file. Its keys are
// the flags' names without `--` (`max-in-flight = 8`), so one table in the README gives both forms;
// a flag on the command line overrides the file's key. `[[token]]` tables hold per-token settings.
// Node only (it reads a file).
import { readFile } from 'node:fs/promises';
import { parse, TomlError } from 'smol-toml';
import { ValidationError } from '../../errors.js';
import type { GatewayToken } from '../tokens.js';

/** A flag's value as `parseArgs` gives it: a string, a list of strings, or a boolean. */
export type FlagValue = string | string[] | boolean;

/** The keys of a `[[token]]` table, and what each becomes. */
const TOKEN_KEYS = new Set(['scope', 'token', 'token-env', 'name', 'max-in-flight', 'queue-wait-ms', 'rate-per-minute']);

/** What a config file holds: flag values by flag name, and its tokens (undefined: it lists none). */
export interface GatewayConfigFile {
  readonly path: string;
  readonly values: Readonly<Record<string, FlagValue>>;
  readonly tokens: readonly GatewayToken[] | undefined;
}

/**
 * Reads and checks `path`. `kinds` is each flag's kind (`string`, `boolean`, and `multiple`), from
 * the flags' one definition; a key that is no flag is refused, naming it. `env` resolves `token-env`.
 */
export async function readGatewayConfigFile(
  path: string,
  kinds: Readonly<Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>>,
  env: Record<string, string | undefined>,
): Promise<GatewayConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ValidationError('--config', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let table: Record<string, unknown>;
  try {
    table = parse(text) as Record<string, unknown>;
  } catch (err) {
    const where = err instanceof TomlError ? ` at line ${err.line}, column ${err.column}` : '';
    throw new ValidationError('--config', `${path} is not TOML${where}`);
  }
  const values: Record<string, FlagValue> = {};
  let tokens: GatewayToken[] | undefined;
  for (const [key, value] of Object.entries(table)) {
    if (key === 'token') {
      tokens = tokenTables(path, value, env);
      continue;
    }
    const kind = kinds[key];
    if (!kind || key === 'config' || key === 'help') throw new ValidationError(`${path}: ${key}`, `is not a setting of the gateway: the keys are the flags' names without --, and [[token]] tables (see runpod-gql gateway --help)`);
    values[key] = flagValue(`${path}: ${key}`, value, kind);
  }
  return { path, values, tokens };
}

function flagValue(field: string, value: unknown, kind: { type: 'string' | 'boolean'; multiple?: boolean }): FlagValue {
  if (kind.type === 'boolean') {
    if (typeof value !== 'boolean') throw new ValidationError(field, 'must be true or false');
    return value;
  }
  const scalar = (v: unknown): string => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'bigint') return String(v);
    throw new ValidationError(field, kind.multiple ? 'must be a list of strings' : 'must be a string or a number');
  };
  if (kind.multiple) return Array.isArray(value) ? value.map(scalar) : [scalar(value)];
  return scalar(value);
}

const integerOf = (field: string, value: unknown, min: number): number | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) throw new ValidationError(field, `must be an integer ≥ ${min}`);
  return value;
};

function tokenTables(path: string, value: unknown, env: Record<string, string | undefined>): GatewayToken[] {
  if (!Array.isArray(value)) throw new ValidationError(`${path}: token`, 'must be [[token]] tables, each with scope and token (or token-env)');
  return value.map((entry: unknown, index) => {
    const field = `${path}: [[token]] ${index + 1}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new ValidationError(field, 'must be a table with scope and token (or token-env)');
    const t = entry as Record<string, unknown>;
    for (const key of Object.keys(t)) if (!TOKEN_KEYS.has(key)) throw new ValidationError(`${field} ${key}`, `is not a token setting: ${[...TOKEN_KEYS].join(', ')}`);
    let token = t.token;
    if (t['token-env'] !== undefined) {
      if (token !== undefined) throw new ValidationError(field, 'has both token and token-env: keep one');
      const name = t['token-env'];
      if (typeof name !== 'string' || !env[name]) throw new ValidationError(`${field} token-env`, `names ${typeof name === 'string' ? name : 'a variable'}, which is not set`);
      token = env[name];
    }
    if (typeof token !== 'string') throw new ValidationError(field, 'needs token (or token-env, the variable that holds it)');
    const perMinute = integerOf(`${field} rate-per-minute`, t['rate-per-minute'], 1);
    return {
      scope: t.scope as GatewayToken['scope'],
      token,
      name: t.name as string | undefined,
      maxInFlight: integerOf(`${field} max-in-flight`, t['max-in-flight'], 1),
      queueWaitMs: integerOf(`${field} queue-wait-ms`, t['queue-wait-ms'], 0),
      rate: perMinute === undefined ? undefined : { requests: perMinute, intervalMs: 60_000 },
    };
  });
}

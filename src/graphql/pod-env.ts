import { ValidationError } from '../errors.js';
import { checkEnvName } from '../validation.js';
import type { EnvironmentVariableInput } from './__generated__/operations.js';

/**
 * Turns `Pod.env` (`["KEY=value", …]`) into `{ KEY: 'value' }`. Splits at the first `=`, so values
 * may contain `=`; entries without one map to `''`; null entries are skipped.
 */
export function parsePodEnv(env: ReadonlyArray<string | null | undefined> | null | undefined): Record<string, string> {
  // Null prototype: a `__proto__=` variable is kept as a variable, not swallowed as a prototype.
  const out: Record<string, string> = Object.create(null);
  for (const entry of Array.isArray(env) ? env : []) {
    if (typeof entry !== 'string' || !entry) continue;
    const eq = entry.indexOf('=');
    if (eq === -1) out[entry] = '';
    else out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}

/** `{ KEY: 'value' }` (or the input form already) to the GraphQL input form `[{key, value}]`. */
export function toEnvironmentInput(
  env: Readonly<Record<string, string>> | ReadonlyArray<EnvironmentVariableInput | null | undefined>,
): EnvironmentVariableInput[] {
  if (Array.isArray(env)) {
    const entries = env.filter((e): e is EnvironmentVariableInput => e != null);
    entries.forEach((e, i) => {
      if (typeof e !== 'object' || typeof e.key !== 'string' || typeof e.value !== 'string') {
        throw new ValidationError(`env[${i}]`, 'must be { key: string, value: string }');
      }
      checkEnvName('env', e.key);
    });
    return entries;
  }
  // A string would otherwise be sent character by character.
  if (env === null || typeof env !== 'object') throw new ValidationError('env', 'must be a map of strings or a list of { key, value }');
  return Object.entries(env as Record<string, unknown>).map(([key, value]) => {
    checkEnvName('env', key);
    if (typeof value !== 'string') throw new ValidationError(`env.${key}`, 'must be a string');
    return { key, value };
  });
}

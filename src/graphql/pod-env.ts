import type { EnvironmentVariableInput } from './__generated__/operations.js';

/**
 * Turns `Pod.env` (`["KEY=value", …]`) into `{ KEY: 'value' }`. Splits at the first `=`, so values
 * may contain `=`; entries without one map to `''`; null entries are skipped.
 */
export function parsePodEnv(env: ReadonlyArray<string | null | undefined> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of env ?? []) {
    if (!entry) continue;
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
  if (Array.isArray(env)) return env.filter((e): e is EnvironmentVariableInput => e != null);
  return Object.entries(env as Record<string, string>).map(([key, value]) => ({ key, value: String(value) }));
}

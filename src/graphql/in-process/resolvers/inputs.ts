// Reading a GraphQL mutation's input for REST v2: each field mapped on its own, and an input REST v2
// cannot honour refused before anything is sent, naming it and giving a fix a GraphQL caller can
// apply (change the document or its variables). Error messages name fields, never their values.
import { NotFoundError, TransportUnsupportedError, ValidationError } from '../../../errors.js';

/** A GraphQL input object as graphql-js hands it over (null prototype), or an empty one. */
export type Input = Readonly<Record<string, unknown>>;

export const inputOf = (value: unknown): Input => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Input) : {});

/**
 * Set to something REST v2 would have to honour: not absent, null, false, an empty string or an
 * empty list (what GraphQL callers send for "none", e.g. runpod-python's `readme: ""`).
 */
export function isSet(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '') return false;
  return !(Array.isArray(value) && value.length === 0);
}

/** Refuses `input.<field>` before sending: REST v2 has no equivalent. */
export function refuse(mutation: string, field: string, fix: string): never {
  throw new TransportUnsupportedError([`input.${field}`], `${mutation} over REST v2 cannot honour input.${field}, so nothing was sent. ${fix}`);
}

/** Refuses every field of `fields` that is set, with its fix. */
export function refuseSet(mutation: string, input: Input, fields: Readonly<Record<string, string>>): void {
  for (const [field, fix] of Object.entries(fields)) if (isSet(input[field])) refuse(mutation, field, fix);
}

/** A required input REST v2 needs that the GraphQL schema leaves optional. */
export function required<T>(input: Input, field: string, kind: 'string' | 'number', why: string): T {
  const value = input[field];
  if (typeof value !== kind || value === '') throw new ValidationError(`input.${field}`, `is required over REST v2: ${why}`);
  return value as T;
}

/** `"a, b,,c"` → `["a", "b", "c"]`: GraphQL's comma-separated lists as REST v2's arrays. */
export const commaList = (text: unknown): string[] =>
  typeof text === 'string'
    ? text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];

/** GraphQL's `[EnvironmentVariableInput]` as REST v2's `{ KEY: value }`; a name given twice is refused. */
export function envObject(field: string, list: unknown): Record<string, string> | undefined {
  if (!Array.isArray(list)) return undefined;
  const env: Record<string, string> = {};
  for (const entry of list) {
    if (entry === null) continue;
    const { key, value } = entry as { key: string; value: string };
    if (key === '__proto__') throw new ValidationError(`input.${field}`, 'names __proto__, which cannot be sent as an env name');
    if (Object.hasOwn(env, key)) throw new ValidationError(`input.${field}`, `names ${JSON.stringify(key)} twice; REST v2 keeps one value per name`);
    env[key] = value;
  }
  return env;
}

/** `read()`, or null when the resource does not exist (GraphQL answers null for a missing one). */
export async function orNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

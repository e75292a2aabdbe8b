import { ValidationError } from '../errors.js';

type QueryScalar = string | number | boolean | Date;
export type QueryValue = QueryScalar | readonly QueryScalar[] | null | undefined;

function scalarText(name: string, value: QueryScalar): string {
  if (!(value instanceof Date)) return String(value);
  // An Invalid Date would make toISOString throw a RangeError: a typed error names the option.
  if (Number.isNaN(value.getTime())) throw new ValidationError(name, 'must be a valid Date, got Invalid Date');
  return value.toISOString();
}

/**
 * A query string (with its `?`, or empty) in OpenAPI's form style: booleans `true`/`false`, dates
 * ISO 8601, unset values left out. Arrays repeat the name (`a=1&a=2`, exploded: REST v1 and
 * load-balanced routes) or join with commas (`a=1,2`, REST v2's `explode: false`).
 */
export function toQueryString(query: object | undefined, arrays: 'repeat' | 'comma' = 'repeat'): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query as Record<string, QueryValue>)) {
    if (value === undefined || value === null) continue;
    const items = Array.isArray(value) ? (value as QueryScalar[]).map((v) => scalarText(name, v)) : [scalarText(name, value as QueryScalar)];
    if (arrays === 'comma') params.append(name, items.join(','));
    else for (const item of items) params.append(name, item);
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

type QueryScalar = string | number | boolean | Date;
export type QueryValue = QueryScalar | readonly QueryScalar[] | null | undefined;

function scalarText(value: QueryScalar): string {
  return value instanceof Date ? value.toISOString() : String(value);
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
    const items = Array.isArray(value) ? (value as QueryScalar[]).map(scalarText) : [scalarText(value as QueryScalar)];
    if (arrays === 'comma') params.append(name, items.join(','));
    else for (const item of items) params.append(name, item);
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

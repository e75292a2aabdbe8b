/** A number the server may send as a string (`"0.74"`); anything unreadable is left as it came. */
export function toNumber(value: unknown): unknown {
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    if (Number.isFinite(n)) return n;
  }
  return value;
}

/** A copy of `record` with the named fields passed through {@link toNumber}. */
export function numericFields<T>(record: T, fields: readonly string[]): T {
  if (record === null || typeof record !== 'object') return record;
  const out: Record<string, unknown> = { ...(record as Record<string, unknown>) };
  for (const field of fields) if (field in out) out[field] = toNumber(out[field]);
  return out as T;
}

/** Whether each of `fields` is left out, null, or a number (or text {@link toNumber} reads as one). */
export function readableNumbers(record: Record<string, unknown>, fields: readonly string[]): boolean {
  return fields.every((field) => record[field] == null || typeof toNumber(record[field]) === 'number');
}

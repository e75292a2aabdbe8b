/** Prints rows as a plain table with a header line; `(none)` when there are no rows. */
export function printTable(rows: Array<Record<string, string | number>>): void {
  if (rows.length === 0) {
    console.log('(none)');
    return;
  }
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  console.log(columns.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
  for (const row of rows) console.log(columns.map((c, i) => String(row[c]).padEnd(widths[i]!)).join('  ').trimEnd());
}

/** One progress line: what is happening and how long it has taken. */
export function formatProgress(state: string, elapsedMs: number): string {
  return `${state}… ${Math.round(elapsedMs / 1000)} s`;
}

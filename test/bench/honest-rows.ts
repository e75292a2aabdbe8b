// Issue 46: no bench row reports a ratio over failed requests. Every row that sends requests keeps a
// tally of what failed (by error name and message, or by HTTP status), and a ratio row is printed
// only when the tally is empty; otherwise the row says how many requests failed, and how, in its
// place, with a NO. One rule for every section, so a refused request can never pass for a fast one.

/** What failed in a measured run: a short description of the failure → how many times. */
export type Failures = Record<string, number>;

/** Counts one failure under a short key (an error's name and the start of its message). */
export function countFailure(failures: Failures, err: unknown): void {
  const e = err as { name?: unknown; message?: unknown } | null;
  const key = e && typeof e === 'object' ? `${String(e.name ?? 'Error')}: ${String(e.message ?? '').slice(0, 80)}` : String(err).slice(0, 80);
  failures[key] = (failures[key] ?? 0) + 1;
}

/** The sum of several tallies (one per run or per process). */
export function mergeFailures(...tallies: ReadonlyArray<Failures | undefined>): Failures {
  const out: Failures = {};
  for (const tally of tallies) for (const [key, n] of Object.entries(tally ?? {})) out[key] = (out[key] ?? 0) + n;
  return out;
}

export const failureCount = (failures: Failures): number => Object.values(failures).reduce((a, b) => a + b, 0);

/** `12 failed requests: 10 × HTTP 429 | 2 × TypeError: …` (the two commonest kinds). */
export function describeFailures(failures: Failures): string {
  const kinds = Object.entries(failures).sort((a, b) => b[1] - a[1]);
  const shown = kinds.slice(0, 2).map(([k, n]) => `${n} × ${k}`).join(' | ');
  return `${failureCount(failures)} failed request${failureCount(failures) === 1 ? '' : 's'}: ${shown}${kinds.length > 2 ? ` (+${kinds.length - 2} more kinds)` : ''}`;
}

export type RowSink = (measure: string, figure: string, target: string, met: boolean | undefined) => void;

/**
 * A row whose figure is a ratio (or a time against a minimum): printed as given when nothing failed;
 * otherwise printed as the failures and no ratio, with a NO whatever its target.
 */
export function ratioRow(sink: RowSink, failures: Failures, measure: string, figure: () => string, target: string, met: () => boolean | undefined): void {
  if (failureCount(failures) > 0) sink(measure, `no ratio: ${describeFailures(failures)}`, target || 'no failed requests', false);
  else sink(measure, figure(), target, met());
}

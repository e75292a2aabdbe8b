// Small statistics for the bench: medians with their spread, never a single run's figure.
import { countFailure, type Failures } from './honest-rows.js';

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

export interface Spread {
  readonly median: number;
  /** Interquartile range: the middle half of the blocks. */
  readonly p25: number;
  readonly p75: number;
  readonly samples: number;
}

export function spread(values: readonly number[]): Spread {
  return { median: median(values), p25: quantile(values, 0.25), p75: quantile(values, 0.75), samples: values.length };
}

export const fmt = (n: number, digits = 2): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** `1.04 [1.03–1.05]`: the median and the interquartile range. */
export const fmtSpread = (s: Spread, digits = 2): string => `${fmt(s.median, digits)} [${fmt(s.p25, digits)}–${fmt(s.p75, digits)}]`;

/**
 * CPU µs per call of `a` and `b`, in `rounds` pairs of `perRound` calls each, after one warm-up
 * round of each; the order alternates, so drift on the machine falls on both. `ratio` is `a / b`
 * per pair. A call that throws is counted in `failures` (and the bench then prints no ratio).
 */
export async function pairedCpu(a: () => Promise<void>, b: () => Promise<void>, perRound: number, rounds: number): Promise<{ ratio: Spread; a: Spread; b: Spread; failures: Failures }> {
  const failures: Failures = {};
  const cpu = async (fn: () => Promise<void>) => {
    const start = process.cpuUsage();
    for (let i = 0; i < perRound; i++) await fn().catch((err: unknown) => countFailure(failures, err));
    const used = process.cpuUsage(start);
    return (used.user + used.system) / perRound;
  };
  await cpu(a);
  await cpu(b);
  const ratios: number[] = [];
  const as: number[] = [];
  const bs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const aFirst = round % 2 === 0;
    const x = await cpu(aFirst ? a : b);
    const y = await cpu(aFirst ? b : a);
    const [aUs, bUs] = aFirst ? [x, y] : [y, x];
    as.push(aUs);
    bs.push(bUs);
    ratios.push(aUs / bUs);
  }
  return { ratio: spread(ratios), a: spread(as), b: spread(bs), failures };
}

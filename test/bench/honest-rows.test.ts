// The bench's rule (issue 46): a ratio is never printed over failed requests.
import { describe, expect, it } from 'vitest';
import { countFailure, describeFailures, mergeFailures, ratioRow, type Failures } from './honest-rows.js';

type Row = [string, string, string, boolean | undefined];
const collect = () => {
  const rows: Row[] = [];
  return { rows, sink: (m: string, f: string, t: string, met: boolean | undefined) => void rows.push([m, f, t, met]) };
};

describe('honest bench rows', () => {
  it('prints the ratio and its verdict when nothing failed', () => {
    const { rows, sink } = collect();
    ratioRow(sink, {}, 'gateway / yoga', () => '0.650', '≤ 0.70', () => true);
    expect(rows).toEqual([['gateway / yoga', '0.650', '≤ 0.70', true]]);
  });

  it('prints the failures, no ratio and a NO once any request failed, without computing the figure', () => {
    const { rows, sink } = collect();
    const failures: Failures = {};
    for (let i = 0; i < 3; i++) countFailure(failures, Object.assign(new Error('gateway answered 429: TOO_MANY_IN_FLIGHT'), { name: 'HTTP 429' }));
    countFailure(failures, new TypeError('fetch failed'));
    let computed = false;
    ratioRow(sink, failures, 'gateway / yoga', () => ((computed = true), '0.650'), '≤ 0.70', () => true);
    expect(computed).toBe(false);
    expect(rows).toHaveLength(1);
    const [measure, figure, target, met] = rows[0]!;
    expect([measure, target, met]).toEqual(['gateway / yoga', '≤ 0.70', false]);
    expect(figure).toBe('no ratio: 4 failed requests: 3 × HTTP 429: gateway answered 429: TOO_MANY_IN_FLIGHT | 1 × TypeError: fetch failed');
    expect(figure).not.toMatch(/0\.650/);
  });

  it('sums tallies of several runs, and names the kinds it leaves out', () => {
    const merged = mergeFailures({ a: 1, b: 2 }, undefined, { b: 1, c: 5 });
    expect(merged).toEqual({ a: 1, b: 3, c: 5 });
    expect(describeFailures(merged)).toBe('9 failed requests: 5 × c | 3 × b (+1 more kinds)');
  });
});

import { availableParallelism, loadavg } from 'node:os';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import SlowestFilesReporter, { fileTime, formatSlowest, slowestFiles, SLOWEST_COUNT, type FileTime } from './slowest-files.js';
import config, { testWorkers } from './vitest.config.js';

const times = (entries: Array<[string, number]>): FileTime[] => entries.map(([file, ms]) => ({ file, ms, tests: 1 }));

/** What the reporter reads of a finished file, and nothing more. */
function moduleDouble(file: string, collect: number, setup: number, duration: number, tests: number): TestModule {
  return {
    relativeModuleId: file,
    diagnostic: () => ({ collectDuration: collect, setupDuration: setup, duration, prepareDuration: 0, environmentSetupDuration: 0, heap: undefined, importDurations: {} }),
    children: { allTests: () => Array.from({ length: tests }, () => ({}))[Symbol.iterator]() },
  } as unknown as TestModule;
}

describe('the slowest test files, printed when a run ends', () => {
  it('names the 15 slowest of 20 files, slowest first, ties by name', () => {
    const all = times(Array.from({ length: 20 }, (_, i) => [`test/f${String(i).padStart(2, '0')}.test.ts`, 1000 * (i % 10)]));
    const top = slowestFiles(all);
    expect(SLOWEST_COUNT).toBe(15);
    expect(top).toHaveLength(15);
    expect(top.slice(0, 3).map((t) => t.file)).toEqual(['test/f09.test.ts', 'test/f19.test.ts', 'test/f08.test.ts']);
    expect(top.map((t) => t.ms)).toEqual([...top.map((t) => t.ms)].sort((a, b) => b - a));
  });

  it('prints seconds, each file share of the whole, and its test count', () => {
    const text = formatSlowest([
      { file: 'test/a.test.ts', ms: 30_000, tests: 4 },
      { file: 'test/b.test.ts', ms: 10_000, tests: 2 },
    ]);
    expect(text.split('\n')).toEqual([
      'Slowest 2 of 2 test files (40 s of file time in all, 100 % in these; files run side by side, so the wall time is less):',
      '    30.0 s  75.0 %  test/a.test.ts  (4 tests)',
      '    10.0 s  25.0 %  test/b.test.ts  (2 tests)',
    ]);
    expect(formatSlowest([])).toBe('');
  });

  it('counts a file as its import plus its set-up plus its tests', () => {
    expect(fileTime(moduleDouble('test/x.test.ts', 1200, 300, 4500, 3))).toEqual({ file: 'test/x.test.ts', ms: 6000, tests: 3 });
  });

  it('prints the summary on stdout when the run ends', () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      new SlowestFilesReporter().onTestRunEnd([moduleDouble('test/slow.test.ts', 0, 0, 9000, 2), moduleDouble('test/fast.test.ts', 0, 0, 1000, 1)]);
      const printed = write.mock.calls.map(([chunk]) => String(chunk)).join('');
      expect(printed).toContain('Slowest 2 of 2 test files');
      expect(printed.indexOf('test/slow.test.ts')).toBeLessThan(printed.indexOf('test/fast.test.ts'));
    } finally {
      write.mockRestore();
    }
  });

  it('is wired into npm test, whose files run three at a time unless the machine is already oversubscribed', () => {
    const { reporters, maxWorkers } = config.test!;
    expect((reporters as unknown[]).some((r) => r instanceof SlowestFilesReporter)).toBe(true);
    expect(maxWorkers).toBe(testWorkers(loadavg()[0]!, availableParallelism()));
    // Vitest's own default on 2 cores is one (cores − 1).
    expect([testWorkers(0.2, 2), testWorkers(3.9, 2), testWorkers(4, 2), testWorkers(25, 2), testWorkers(6, 4)]).toEqual([3, 3, 1, 1, 3]);
  });

  it('property: any list of times gives at most the count asked for, slowest first, each one of the inputs', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ file: fc.string(), ms: fc.double({ min: 0, max: 1e7, noNaN: true }), tests: fc.nat(1000) }), { maxLength: 60 }), fc.nat(30), (all, count) => {
        const top = slowestFiles(all, count);
        expect(top.length).toBe(Math.min(count, all.length));
        for (let i = 1; i < top.length; i++) expect(top[i - 1]!.ms).toBeGreaterThanOrEqual(top[i]!.ms);
        for (const t of top) expect(all).toContain(t);
        // Nothing left out is slower than the slowest kept.
        if (top.length > 0) for (const t of all) if (!top.includes(t)) expect(t.ms).toBeLessThanOrEqual(top[top.length - 1]!.ms);
        expect(() => formatSlowest(all, count)).not.toThrow();
      }),
      { seed: 20261128, numRuns: 200 },
    );
  });
});

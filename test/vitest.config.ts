import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowestFilesReporter from './slowest-files.js';

/**
 * How many test files run side by side: three, or one on a machine whose one-minute load average
 * is already twice its cores (see `maxWorkers` below).
 */
export function testWorkers(load: number, cores: number): number {
  return load >= 2 * cores ? 1 : 3;
}

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: 'tsconfig.json' },
    pool: 'forks',
    // Most files wait on something other than this process's CPU (servers over loopback, child
    // processes, real-time timers): one file at a time kept 27 % of one core busy over a 1,004 s
    // run (issue 38). Vitest's default on a 2-core machine is one worker (cores − 1), so files run
    // three at a time: about 0.8 of a core on average, which leaves room for the CLI processes and
    // servers the files start. On a machine already running twice as much as it has cores, files
    // side by side only slowed each other (1,078 and 1,337 s against 1,004 s, and e2e deadlines
    // missed), so there they run one at a time. VITEST_MAX_WORKERS overrides either.
    maxWorkers: testWorkers(loadavg()[0]!, availableParallelism()),
    // The CLI and package tests run the built `dist/`: build it once before any test file.
    // The fuzz figures: each file's tallies, printed per class when the run ends.
    globalSetup: ['test/global-setup.ts', 'test/fuzz/figures-setup.ts'],
    // CI reads the JSON report to print its plain `N passed, N failed` line. The last reporter
    // prints the 15 slowest files when the run ends (test/slowest-files.ts).
    reporters: [
      'default',
      ...(process.env.VITEST_JSON_REPORT ? [['json', { outputFile: process.env.VITEST_JSON_REPORT }] as ['json', { outputFile: string }]] : []),
      new SlowestFilesReporter(),
    ],
    // A watchdog against hangs, not a speed check (no test asserts one): files side by side on a
    // loaded 2-core machine took CLI and e2e tests past 20 s that pass alone in 2–12 s.
    testTimeout: 60_000,
  },
});

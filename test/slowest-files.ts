// A vitest reporter that prints the slowest test files when a run ends, so every `npm test` (and
// CI, which runs it) shows where the suite's time goes. Per-file times do not depend on how many
// files run at once as much as the wall time does, so they stay comparable between runs on a busy
// machine.
import type { Reporter, TestModule } from 'vitest/node';

/** One test file's time, in milliseconds. */
export interface FileTime {
  /** The file's path from the project root. */
  readonly file: string;
  /** Importing the file (its suites collected) plus running its tests and hooks. */
  readonly ms: number;
  readonly tests: number;
}

/** How many files the summary names. */
export const SLOWEST_COUNT = 15;

/** The `count` slowest files, slowest first (ties by name, so the list is stable). */
export function slowestFiles(times: readonly FileTime[], count = SLOWEST_COUNT): FileTime[] {
  return [...times].sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file)).slice(0, Math.max(0, count));
}

/** The printed summary: a heading, then one line per file with its seconds and share of the whole. */
export function formatSlowest(times: readonly FileTime[], count = SLOWEST_COUNT): string {
  const total = times.reduce((sum, t) => sum + t.ms, 0);
  const top = slowestFiles(times, count);
  if (top.length === 0) return '';
  const width = Math.max(...top.map((t) => t.file.length));
  const lines = top.map((t) => {
    const share = total > 0 ? (100 * t.ms) / total : 0;
    return `  ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${share.toFixed(1).padStart(4)} %  ${t.file.padEnd(width)}  (${t.tests} tests)`;
  });
  const topShare = total > 0 ? (100 * top.reduce((sum, t) => sum + t.ms, 0)) / total : 0;
  return [
    `Slowest ${top.length} of ${times.length} test files (${(total / 1000).toFixed(0)} s of file time in all, ${topShare.toFixed(0)} % in these; files run side by side, so the wall time is less):`,
    ...lines,
  ].join('\n');
}

/** What one finished file took, from vitest's diagnostic of it. */
export function fileTime(module: TestModule): FileTime {
  const { collectDuration, setupDuration, duration } = module.diagnostic();
  return { file: module.relativeModuleId, ms: collectDuration + setupDuration + duration, tests: [...module.children.allTests()].length };
}

/** Prints {@link formatSlowest} of the run's files once the run ends (on stdout, after vitest's summary). */
export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: readonly TestModule[]): void {
    const text = formatSlowest(modules.map(fileTime));
    if (text) process.stdout.write(`\n${text}\n`);
  }
}

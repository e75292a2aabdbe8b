// Global set-up of the fuzz figures (see `counted` in harness.ts): a folder for this run where each
// test file leaves its tallies, read back and printed, one line per class, when the run ends.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    fuzzFiguresDir: string;
  }
}

export type Tallies = Record<string, { cases: number; failures: number }>;

/** Sums the tallies of every file, class by class, in first-seen order. */
export function mergeTallies(all: readonly Tallies[]): Tallies {
  const total: Tallies = {};
  for (const tallies of all) {
    for (const [name, { cases, failures }] of Object.entries(tallies)) {
      const into = (total[name] ??= { cases: 0, failures: 0 });
      into.cases += cases;
      into.failures += failures;
    }
  }
  return total;
}

export function figureLines(total: Tallies): string[] {
  return Object.entries(total)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, { cases, failures }]) => `fuzz ${name}: ${cases} cases, ${failures} failures`);
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'runpod-gql-fuzz-figures-'));
  project.provide('fuzzFiguresDir', dir);
  return () => {
    try {
      const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
      const lines = figureLines(mergeTallies(files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Tallies)));
      // Printed under `npm run fuzz` (FUZZ_RUNS set); `npm test` keeps its output as it was.
      if (lines.length > 0 && process.env.FUZZ_RUNS !== undefined) process.stdout.write(`\nFuzz figures (seed ${process.env.FUZZ_SEED ?? 20261121}):\n${lines.join('\n')}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

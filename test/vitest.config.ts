import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: 'tsconfig.json' },
    pool: 'forks',
    // The CLI and package tests run the built `dist/`: build it once before any test file.
    // The fuzz figures: each file's tallies, printed per class when the run ends.
    globalSetup: ['test/global-setup.ts', 'test/fuzz/figures-setup.ts'],
    // CI reads the JSON report to print its plain `N passed, N failed` line.
    reporters: process.env.VITEST_JSON_REPORT ? ['default', ['json', { outputFile: process.env.VITEST_JSON_REPORT }]] : ['default'],
    testTimeout: 20_000,
  },
});

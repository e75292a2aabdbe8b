// Issue 39: a lazily loaded module imports what it uses, like any other module. The lazily loaded
// modules are the bundler's: those esbuild puts in chunks the entry does not load at start-up.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { gzippedCodeSplit } from './bundle-sizes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A helper object handed in (`…Kit`), or an error class taken as a value rather than imported. */
const HANDED_IN = /\b[A-Z]\w*Kit\b|\btypeof\s+(?:import\([^)]*\)\.)?[A-Z]\w*Error\w*/g;

/**
 * Lazily loaded modules that still take start-up helpers handed in: the three kits kept on measure
 * (esbuild code splitting, gzip -9, 2026-11-28), each saving more than 0.5 KB of the start-up on its
 * own; the figures are what the start-up grows by with that kit replaced by plain imports, the others kept: `LazyKit` (src/rest/lazy.ts) 1,326 B, `QueueKit`
 *   (src/serverless/queue.ts) 1,056 B, `CreateOnceKit` (src/transport/create-once-kit.ts) 857 B.
 */
const STILL_HANDED_IN = [
  'src/rest/create-once.ts',
  'src/rest/log-stream.ts',
  'src/serverless/queue-calls.ts',
  'src/transport/create-once.ts',
];

describe('plain imports in lazily loaded modules', () => {
  it('no lazily loaded module takes a kit or an error class handed in, but those listed', async () => {
    const { lazyInputs } = await gzippedCodeSplit(root, 'dist/index.js');
    const lazy = [...new Set(lazyInputs.filter((p) => p.startsWith('dist/') && !p.includes('__generated__')).map((p) => p.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts')))];
    // The check can see them: what runs after an answer, the GraphQL runtime, the queue's calls.
    expect(lazy).toEqual(expect.arrayContaining(['src/transport/after-answer.ts', 'src/transport/error-mapping.ts', 'src/graphql/graphql-runtime.ts', 'src/serverless/queue-calls.ts']));
    const handedIn = lazy.filter((file) => (readFileSync(join(root, file), 'utf8').match(HANDED_IN) ?? []).length > 0);
    expect(handedIn.sort()).toEqual([...STILL_HANDED_IN].sort());
  });

  it('the pattern sees a kit and a class handed in', () => {
    expect('export function f(kit: AfterAnswerKit) {}'.match(HANDED_IN)).toEqual(['AfterAnswerKit']);
    expect("readonly ValidationError: typeof ValidationErrorClass;".match(HANDED_IN)).toEqual(['typeof ValidationErrorClass']);
    expect("readonly E: typeof import('../../errors.js').TransportUnsupportedError;".match(HANDED_IN)).toHaveLength(1);
    expect("import { ValidationError } from '../errors.js';".match(HANDED_IN)).toBeNull();
  });
});

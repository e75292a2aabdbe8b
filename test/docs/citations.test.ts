import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

// Users get the README and the package (its .d.ts files carry the TSDoc); neither may send them to
// a document only the developers have. src/codegen is build-time and not shipped.
const CITATION = /§\s*\d|\bspec(?:ification)?\s+§|platform-spec|API-FACTS|\.\.\/shared\b/;

describe('docs cite no document users do not have', () => {
  it('README.md and every shipped source file', () => {
    const shipped = files(join(root, 'src')).filter((f) => f.endsWith('.ts') && !f.includes(join('src', 'codegen')));
    expect(shipped.length).toBeGreaterThan(20);
    const offenders = [join(root, 'README.md'), join(root, 'schema.graphql'), ...shipped].filter((f) => CITATION.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => f.slice(root.length))).toEqual([]);
  });
});

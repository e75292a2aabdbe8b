import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { taggedSnippets } from './snippets.js';

// Runs every ```ts block of the README that has `<!-- run -->` on the line above it, verbatim.
// The files are written inside the package, so `import … from 'runpod-gql'` resolves to this
// package itself (built in dist/ by the global set-up), the way it does in a user's project.
// A block that imports from 'vitest' is a test file: its tests join this file's. Any other block
// is a script and must finish without throwing.

const root = new URL('../../', import.meta.url);
const dir = new URL('test/docs/.snippets/', root);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const snippets = taggedSnippets(readme);

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const files = snippets.map((snippet) => {
  const url = new URL(`readme-line-${snippet.line}.ts`, dir);
  writeFileSync(url, snippet.code);
  return { ...snippet, url, path: fileURLToPath(url), isTestFile: /from ['"]vitest['"]/.test(snippet.code) };
});

describe('README snippets', () => {
  it('every <!-- run --> marker is followed by a ts block, and the sections that promise runnable code have them', () => {
    expect(readme.split('\n').filter((line) => line.trim() === '<!-- run -->').length).toBe(snippets.length);
    expect(files.filter((f) => f.isTestFile).length).toBeGreaterThanOrEqual(1);
    expect(files.filter((f) => !f.isTestFile).length).toBeGreaterThanOrEqual(1);
  });

  it('they type-check as a user would compile them (NodeNext, strict)', () => {
    const program = ts.createProgram(
      files.map((f) => f.path),
      { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, skipLibCheck: true, types: ['node'], lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'] },
    );
    const problems = ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? `${d.file.fileName.slice(fileURLToPath(root).length)}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).toEqual([]);
  }, 60_000);

  for (const file of files) {
    if (file.isTestFile) {
      describe(`the test file at README line ${file.line}`, async () => {
        await import(file.url.href);
      });
    } else {
      it(`the script at README line ${file.line} runs`, async () => {
        await import(file.url.href);
      });
    }
  }
});

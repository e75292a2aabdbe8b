import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { DEFAULT_GRAPHQL_URL, DEFAULT_REST_URL } from '../../src/index.js';
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

// The Quick Start talks to production (`createRunpodClient()`, the default URLs). It runs here
// verbatim, with the global fetch (the client's default, looked up at call time) handing the
// production URLs to an in-process emulator: once as GraphQL is today, once with GraphQL retired.
const quickStart = (() => {
  const lines = readme.split('\n');
  const heading = lines.findIndex((l) => l.trim() === '## Quick start');
  const open = lines.findIndex((l, i) => i > heading && l.trim() === '```ts');
  const close = lines.findIndex((l, i) => i > open && l.trim() === '```');
  return heading < 0 || open < 0 || close < 0 ? undefined : `${lines.slice(open + 1, close).join('\n')}\n`;
})();
// rp.pods on REST v2 is another change of issue 20 (src/pods/): the retired run needs it.
const podsHaveRestPath = existsSync(new URL('src/pods/', root));

describe('the Quick Start, verbatim, against the emulator', () => {
  it('is found', () => {
    expect(quickStart).toMatch(/createRunpodClient\(\)/);
  });

  for (const mode of ['GraphQL as today', 'GraphQL retired'] as const) {
    const retired = mode === 'GraphQL retired';
    it.skipIf(retired && !podsHaveRestPath)(`runs unchanged with ${mode}`, async () => {
      const file = new URL(`quick-start-${retired ? 'retired' : 'graphql'}.ts`, dir);
      writeFileSync(file, quickStart!);
      const emulator = createEmulator({ apiKeys: ['rpa_readme_quick_start'], podStartupMs: 200, graphqlRetired: retired });
      const target = emulator.clientOptions('rpa_readme_quick_start');
      const sent: string[] = [];
      const realFetch = globalThis.fetch;
      const realKey = process.env.RUNPOD_API_KEY;
      const realLog = console.log;
      const realTable = console.table;
      globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
        const url = input instanceof Request ? input.url : String(input);
        const base = [DEFAULT_GRAPHQL_URL, DEFAULT_REST_URL].find((b) => url.startsWith(b));
        if (!base) throw new Error(`the Quick Start reached for ${url}`);
        sent.push(base === DEFAULT_GRAPHQL_URL ? 'graphql' : 'rest');
        return target.fetch!(`${base === DEFAULT_GRAPHQL_URL ? target.graphqlUrl : target.restUrl}${url.slice(base.length)}`, init);
      };
      process.env.RUNPOD_API_KEY = 'rpa_readme_quick_start';
      console.log = console.table = () => undefined;
      try {
        await import(file.href);
      } finally {
        globalThis.fetch = realFetch;
        console.log = realLog;
        console.table = realTable;
        if (realKey === undefined) delete process.env.RUNPOD_API_KEY;
        else process.env.RUNPOD_API_KEY = realKey;
        emulator.dispose();
      }
      // The GPU pod was terminated; the CPU pod of the last line is left.
      expect(emulator.inspect.podCount('rpa_readme_quick_start')).toBe(1);
      if (retired) {
        // One GraphQL request met the 410; everything after it went over REST v2.
        expect(sent.filter((s) => s === 'graphql')).toHaveLength(1);
        expect(sent[0]).toBe('graphql');
      } else {
        expect(sent.filter((s) => s === 'rest')).toEqual([]);
      }
    }, 60_000);
  }
});

describe('the README a newcomer reads', () => {
  it('stays within 30 KB (the rest lives in the READMEs next to the code, which the tarball ships)', () => {
    expect(Buffer.byteLength(readme, 'utf8')).toBeLessThanOrEqual(30 * 1024);
    for (const section of ['## Set-up', '## Install', '## Quick start', '### Your own operations with codegen', '## Testing your app with the emulator', '### The gateway', '## Serverless', '## Command line']) {
      expect(readme).toContain(section);
    }
  });
});

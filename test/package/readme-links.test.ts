import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README as the registry shows it: every relative link must reach a file the tarball holds (the
// registry resolves relative links against `repository`, and a reader of node_modules has only the tarball).
const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { repository?: { type?: string; url?: string }; files: string[] };

describe('the packed README', () => {
  it('package.json names its repository', () => {
    expect(manifest.repository).toEqual({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/) });
  });

  it('every relative link in README.md points at a file in the tarball', () => {
    // --ignore-scripts: the list of files, without building dist/ again.
    const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as Array<{ files: Array<{ path: string }> }>;
    const packed = new Set(pack!.files.map((f) => f.path));
    const readme = readFileSync(`${root}README.md`, 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((href) => !/^[a-z]+:/i.test(href));
    expect(links.length).toBeGreaterThan(5);
    const missing = links.filter((href) => !packed.has(href.replace(/^\.\//, '')));
    expect(missing).toEqual([]);
  }, 60_000);
});

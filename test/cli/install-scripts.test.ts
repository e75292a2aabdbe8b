import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm ci` on a fresh clone warns about any dependency whose install script package.json's
// `allowScripts` does not decide (npm 11). esbuild's postinstall only checks and speeds up its
// binary; it runs from its optional platform package without it, so it is denied.
const root = fileURLToPath(new URL('../../', import.meta.url));

describe('install scripts', () => {
  it('package.json decides every install script of the installed tree (npm install-scripts ls reports none)', async () => {
    const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { allowScripts?: Record<string, boolean> };
    expect(manifest.allowScripts).toMatchObject({ esbuild: false });
    const major = await new Promise<number>((resolve) => execFile('npm', ['--version'], (_e, out) => resolve(Number(String(out).split('.')[0]))));
    // Older npm has no allowScripts (and no warning to silence): the manifest check above is all there is.
    if (!(major >= 11)) return;
    const listed = await new Promise<string>((resolve) =>
      execFile('npm', ['install-scripts', 'ls'], { cwd: root, timeout: 60_000 }, (_err, stdout, stderr) => resolve(`${stdout}${stderr}`)),
    );
    expect(listed).not.toMatch(/not yet covered by allowScripts/);
  }, 90_000);

  it('esbuild still bundles without its postinstall (the size test relies on it)', async () => {
    const { build } = await import('esbuild');
    const out = await build({ stdin: { contents: 'export const answer = 6 * 7;' }, bundle: true, write: false, format: 'esm' });
    expect(out.outputFiles[0]!.text).toContain('6 * 7');
  });
});

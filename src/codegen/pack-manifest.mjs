// Keeps the build-on-install script out of the packed package.json. `prepare` builds dist/ after
// `npm ci` in a clone and when npm installs from a git URL; a user of the tarball already has dist/,
// and npm would warn about a `prepare` script it never runs for them. `npm pack` reads package.json
// after `prepack`, so prepack strips the script (keeping the original aside) and postpack restores it.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const manifest = 'package.json';
const original = '.package.json.unpacked';

// A pack that failed half-way left the original aside: put it back before anything else.
if (existsSync(original)) renameSync(original, manifest);

if (process.argv[2] === 'strip') {
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  if (pkg.scripts?.prepare !== undefined) {
    writeFileSync(original, text);
    delete pkg.scripts.prepare;
    writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
  }
} else if (process.argv[2] !== 'restore') {
  console.error('usage: node src/codegen/pack-manifest.mjs strip|restore');
  process.exit(2);
}

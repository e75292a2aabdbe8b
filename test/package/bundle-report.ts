// Which modules cost what in a bundle, gzipped: `npx tsx test/package/bundle-report.ts [entry] [depth]`
// (default dist/index.js after `npm run build`, folders two levels deep). Each part's cost is what
// the gzipped bundle loses without it. Measured on the bundle minified but for whitespace, where
// esbuild itself heads each module's code with its path, and scaled to the minified bundle's
// gzipped size (the size test's figure); its minified bytes are esbuild's metafile figure. Then
// the code-split start-up, chunk by chunk, with the largest modules of each. Not a test: the size
// test holds the budgets; this says where the bytes are.
import { relative } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { buildCodeSplit, gz, gzippedBundle, startUpOutputs } from './bundle-sizes.js';

const root = new URL('../../', import.meta.url).pathname;
const entry = process.argv[2] ?? 'dist/index.js';
const depth = Number(process.argv[3] ?? 2);

const group = (path: string) =>
  path.startsWith('node_modules/') ? path.split('/').slice(0, path.startsWith('node_modules/graphql/') ? 3 : 2).join('/') : path.split('/').slice(0, depth).join('/');

const options = { entryPoints: [root + entry], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent', metafile: true } satisfies BuildOptions;
const readable = await build({ ...options, minifyIdentifiers: true, minifySyntax: true });
const minified = await build({ ...options, minify: true });
const pieces = readable.outputFiles![0]!.text.split(/^(?=\/\/ (?:dist|node_modules)\/)/m).map((piece) => [group(/^\/\/ (\S+)/.exec(piece)?.[1] ?? '(entry)'), piece] as const);
const without = (g: string) => gz(Buffer.from(pieces.filter(([h]) => h !== g).map(([, p]) => p).join('')));
const whole = gz(Buffer.from(pieces.map(([, p]) => p).join('')));
const target = await gzippedBundle(root, entry);
const bytes = new Map<string, number>();
for (const [path, input] of Object.entries(Object.values(minified.metafile!.outputs)[0]!.inputs)) bytes.set(group(path), (bytes.get(group(path)) ?? 0) + input.bytesInOutput);
const rows = [...new Set(pieces.map(([g]) => g))].map((g) => [g, Math.round(((whole - without(g)) * target) / whole), bytes.get(g) ?? 0] as const).sort((a, b) => b[1] - a[1]);
console.log(`${entry}: ${target} B gz. What each part costs (B gz, about; B minified):`);
for (const [g, cost, size] of rows) if (cost >= 100) console.log(`${String(cost).padStart(7)} ${String(size).padStart(7)}  ${g}`);

const split = await buildCodeSplit(root, entry);
const byPath = new Map(split.outputFiles.map((f) => [relative(process.cwd(), f.path), f.contents]));
const startUp = startUpOutputs(split.metafile, root, entry);
let total = 0;
console.log(`\nstart-up (code-split), chunk by chunk (B gz; modules over 400 B minified):`);
for (const out of startUp) {
  const size = gz(byPath.get(out)!);
  total += size;
  const modules = Object.entries(split.metafile.outputs[out]!.inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
  console.log(`${String(size).padStart(7)}  ${out}: ${modules.filter(([, v]) => v.bytesInOutput > 400).map(([k, v]) => `${k} ${v.bytesInOutput}`).join(', ')}`);
}
console.log(`${String(total).padStart(7)}  in ${startUp.size} files`);
console.log(`${String(gz(Buffer.concat([...startUp].map((out) => byPath.get(out)!)))).padStart(7)}  the same files as one (what gzipping each on its own costs is the difference)`);

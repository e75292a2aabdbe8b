// How the size test and the bench measure a bundle: esbuild --minify for the browser, gzip -9.
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

export const gz = (bytes: Uint8Array) => gzipSync(bytes, { level: 9 }).length;

/** Gzipped size of one entry bundled whole, as an app that does not split its code ships it. */
export async function gzippedBundle(root: string, entry: string): Promise<number> {
  const result = await build({ entryPoints: [join(root, entry)], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
  return gz(result.outputFiles[0]!.contents);
}

/** `entry` split as an app that code-splits ships it: each dynamic import a chunk, and what they share with the rest in shared chunks. */
export function buildCodeSplit(root: string, entry: string, outdir = join(root, 'size-out')) {
  return build({ entryPoints: [join(root, entry)], bundle: true, minify: true, splitting: true, format: 'esm', platform: 'browser', write: false, metafile: true, outdir, logLevel: 'silent' });
}

/**
 * The start-up: the outputs loaded before the first call, that is the entry's own chunk and every
 * chunk it imports statically, transitively (the shared chunks esbuild splits out of what the
 * entry and a lazily loaded module both import). What loads only through `import()` is not in it.
 * Keys of `metafile.outputs`, relative to the working directory.
 */
export function startUpOutputs(metafile: Metafile, root: string, entry: string): Set<string> {
  const outputs = metafile.outputs;
  // Dynamic imports are entry points too: the start-up is the output of this entry, not the first file.
  const entryOut = Object.keys(outputs).find((o) => outputs[o]!.entryPoint !== undefined && resolve(outputs[o]!.entryPoint!) === join(root, entry))!;
  const seen = new Set<string>();
  const visit = (out: string) => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const imported of outputs[out]!.imports) if (imported.kind === 'import-statement' && outputs[imported.path]) visit(imported.path);
  };
  visit(entryOut);
  return seen;
}

export interface CodeSplitSizes {
  /** What an app that code-splits loads at start-up: the entry's chunk and the chunks it imports statically, shared chunks included. */
  readonly startUpBytes: number;
  /** How many files that is. */
  readonly startUpChunks: number;
  /** Everything else (dynamic imports: the GraphQL runtime, the REST paths, the queue's calls, …), gzipped one by one. */
  readonly lazyBytes: number;
  readonly lazyChunks: number;
  /** The modules in the start-up chunks. */
  readonly startUpInputs: string[];
  /** The modules in the other chunks: what loads lazily. */
  readonly lazyInputs: string[];
}

export async function gzippedCodeSplit(root: string, entry: string): Promise<CodeSplitSizes> {
  const result = await buildCodeSplit(root, entry);
  const outputs = result.metafile.outputs;
  const byPath = new Map(result.outputFiles.map((f) => [relative(process.cwd(), f.path), f.contents]));
  const seen = startUpOutputs(result.metafile, root, entry);
  const js = Object.keys(outputs).filter((o) => o.endsWith('.js'));
  const lazy = js.filter((o) => !seen.has(o));
  // Each file is compressed on its own, as a server sends it: a shared chunk costs its own gzip
  // framing and loses the dictionary of the chunk that imports it.
  const sum = (files: string[]) => files.reduce((total, out) => total + gz(byPath.get(out)!), 0);
  return {
    startUpBytes: sum([...seen]),
    startUpChunks: seen.size,
    lazyBytes: sum(lazy),
    lazyChunks: lazy.length,
    startUpInputs: [...seen].flatMap((out) => Object.keys(outputs[out]!.inputs)),
    lazyInputs: lazy.flatMap((out) => Object.keys(outputs[out]!.inputs)),
  };
}

// How the size test and the bench measure a bundle: esbuild --minify for the browser, gzip -9.
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const gz = (bytes: Uint8Array) => gzipSync(bytes, { level: 9 }).length;

/** Gzipped size of one entry bundled whole, as an app that does not split its code ships it. */
export async function gzippedBundle(root: string, entry: string): Promise<number> {
  const result = await build({ entryPoints: [join(root, entry)], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
  return gz(result.outputFiles[0]!.contents);
}

export interface CodeSplitSizes {
  /** What an app that code-splits loads at start-up: the entry's chunk and the chunks it imports statically. */
  readonly startUpBytes: number;
  /** Everything else (dynamic imports: the GraphQL runtime, the REST paths, the queue's calls, …), gzipped one by one. */
  readonly lazyBytes: number;
  readonly lazyChunks: number;
  /** The modules in the start-up chunks. */
  readonly startUpInputs: string[];
}

export async function gzippedCodeSplit(root: string, entry: string): Promise<CodeSplitSizes> {
  const result = await build({ entryPoints: [join(root, entry)], bundle: true, minify: true, splitting: true, format: 'esm', platform: 'browser', write: false, metafile: true, outdir: join(root, 'size-out'), logLevel: 'silent' });
  const outputs = result.metafile.outputs;
  const byPath = new Map(result.outputFiles.map((f) => [relative(process.cwd(), f.path), f.contents]));
  // Dynamic imports are entry points too: the start-up is the output of this entry, not the first file.
  const entryOut = Object.keys(outputs).find((o) => outputs[o]!.entryPoint !== undefined && resolve(outputs[o]!.entryPoint!) === join(root, entry))!;
  const seen = new Set<string>();
  const visit = (out: string) => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const imported of outputs[out]!.imports) if (imported.kind === 'import-statement' && outputs[imported.path]) visit(imported.path);
  };
  visit(entryOut);
  const js = Object.keys(outputs).filter((o) => o.endsWith('.js'));
  const sum = (files: string[]) => files.reduce((total, out) => total + gz(byPath.get(out)!), 0);
  return {
    startUpBytes: sum([...seen]),
    lazyBytes: sum(js.filter((o) => !seen.has(o))),
    lazyChunks: js.filter((o) => !seen.has(o)).length,
    startUpInputs: [...seen].flatMap((out) => Object.keys(outputs[out]!.inputs)),
  };
}

// `--input`: the job input inline, from a file (`@input.json`) or from stdin (`-`).
import { readFile } from 'node:fs/promises';
import { UsageError } from './errors.js';
import type { GlobalOptions, InputSource } from './options.js';

/** Reads all of stdin as text. */
export async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

function parse(text: string, from: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${from}: not JSON (${(err as Error).message})`);
  }
}

/** The job input `source` names; a file that cannot be read, or text that is not JSON, is a usage error. */
export async function readInput(source: InputSource, options: GlobalOptions): Promise<unknown> {
  if ('value' in source) return source.value;
  if ('file' in source) {
    let text: string;
    try {
      text = await readFile(source.file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(`--input @${source.file}: cannot read the file (${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)})`);
    }
    return parse(text, `--input @${source.file}`);
  }
  // One stream cannot give both: the key is its first line, and the input would be the rest.
  if (options.apiKey === '-') throw new UsageError('--input - and --api-key - both read stdin: give the key by RUNPOD_API_KEY or a profile, or the input by @FILE');
  if (process.stdin.isTTY) process.stderr.write('Job input as JSON (then Ctrl-D): ');
  return parse(await readStdin(), '--input -');
}

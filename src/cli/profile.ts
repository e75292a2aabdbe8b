// The key from a profile in ~/.runpod/config.toml, the file runpod-python 2.x and runpodctl keep:
// runpod-python writes one table per profile (`[default]` then `api_key = "…"`), runpodctl a
// top-level `apiKey = "…"`. Read only: this CLI never writes a key to disk.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { UsageError } from './errors.js';

/** How the file is named in messages. */
export const PROFILE_FILE = '~/.runpod/config.toml';

/** The largest profile file read: a real one is a few hundred bytes. */
export const MAX_PROFILE_BYTES = 64 * 1024;

/** What a file that is not a regular one is, for the message that refuses it. */
function kindOf(stat: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The file's text, or a UsageError naming it when it is anything but a regular file under
 * MAX_PROFILE_BYTES. Opened without blocking (a FIFO with no writer would hold the open, and the
 * process, for ever) and checked on the open handle (a symlink to /dev/zero is a device there);
 * read with a bound, whatever the size said.
 */
async function readProfileFile(file: string): Promise<string> {
  // O_NONBLOCK does not exist on Windows, where a FIFO cannot sit at this path anyway.
  const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new UsageError(`${PROFILE_FILE} is ${kindOf(stat)}, not a regular file: not read (${file})`);
    const tooBig = () => new UsageError(`${PROFILE_FILE} is over ${MAX_PROFILE_BYTES / 1024} KB, too large for a profile file: not read (${file})`);
    if (stat.size > MAX_PROFILE_BYTES) throw tooBig();
    const buffer = Buffer.alloc(MAX_PROFILE_BYTES + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read) {
      ({ bytesRead: read } = await handle.read(buffer, length, buffer.length - length, length));
    }
    if (length > MAX_PROFILE_BYTES) throw tooBig();
    return buffer.toString('utf8', 0, length);
  } finally {
    await handle.close();
  }
}

/** A key and where it came from, named as the user would look for it. */
export interface KeyFrom {
  readonly key: string;
  readonly source: string;
}

/** White space, CR and LF around a key are dropped (a `$(cat keyfile)`, a CRLF `.env`), wherever it comes from. */
export const trimKey = (key: string): string => key.replace(/^[\s\r\n]+|[\s\r\n]+$/g, '');

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The key of `profile` (`--profile NAME`), or without one of the `default` profile (or runpodctl's
 * top-level `apiKey`). `undefined` when there is no file or no key in it and no profile was asked for.
 */
export async function keyFromProfile(profile: string | undefined): Promise<KeyFrom | undefined> {
  // $HOME first, as shells and tests set it; the OS's idea of home otherwise.
  const file = join(process.env.HOME || homedir(), '.runpod', 'config.toml');
  let text: string;
  try {
    text = await readProfileFile(file);
  } catch (err) {
    // A file that is there but is no profile file is named, asked for or not: silence would hide it.
    if (err instanceof UsageError) throw err;
    if (profile === undefined) return undefined;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`--profile ${profile}: cannot read ${PROFILE_FILE} (${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')})`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (err) {
    // Position only: the parser's own message quotes the offending line, which may hold a key.
    const at = err instanceof TomlError ? ` at line ${err.line}, column ${err.column}` : '';
    throw new UsageError(`${PROFILE_FILE} is not valid TOML${at}`);
  }
  const name = profile ?? 'default';
  const table = doc[name];
  const fromTable = isTable(table) && typeof table.api_key === 'string' ? trimKey(table.api_key) : '';
  if (fromTable) return { key: fromTable, source: `${PROFILE_FILE} (profile ${name})` };
  if (profile !== undefined) throw new UsageError(`--profile ${profile}: ${PROFILE_FILE} has no [${profile}] profile with an api_key`);
  const runpodctl = typeof doc.apiKey === 'string' ? trimKey(doc.apiKey) : '';
  return runpodctl ? { key: runpodctl, source: `${PROFILE_FILE} (apiKey)` } : undefined;
}

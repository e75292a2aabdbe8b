// Option parsers and the options every command shares. A bad value is a usage error naming the
// option and the value as typed (commander: "option '--timeout <seconds>' argument '-1' is
// invalid. …"), before anything is sent.
import { InvalidArgumentError, Option } from 'commander';
import { UsageError } from './errors.js';
import type { PodsTransport } from '../transport/transport-choice.js';

/** The root command's options, seen by every command (`this.optsWithGlobals()`). */
export interface GlobalOptions {
  apiKey?: string;
  /** `--profile`: the profile of ~/.runpod/config.toml to take the key from. */
  profile?: string;
  emulator?: boolean;
  json?: boolean;
  /** `--verbose`: the client logs at `info` (transport switches); `--debug`: every attempt. */
  verbose?: boolean;
  debug?: boolean;
  /** `--transport` of `gpus` and `pods`: which API rp.pods and rp.gpuTypes use. */
  transport?: PodsTransport;
}

/** What an action receives: the global options and its own, by commander's camel-case names. */
export type CommandOptions = GlobalOptions & Record<string, unknown>;

const numberWhere = (ok: (n: number) => boolean, expected: string) => (value: string): number => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('Expected a number.');
  if (!ok(n)) throw new InvalidArgumentError(expected);
  return n;
};
export const gpuCount = numberWhere((n) => Number.isSafeInteger(n) && n >= 1, 'Expected a whole number of GPUs, 1 or more.');
export const seconds = numberWhere((n) => n > 0, 'Expected a number of seconds above 0.');
/** `pods exec --timeout`: whole seconds, 1 to 25 (the platform's bounds for one command). */
export const execSeconds = numberWhere((n) => Number.isSafeInteger(n) && n >= 1 && n <= 25, 'Expected a whole number of seconds from 1 to 25.');
/** `pods logs --tail`: lines from before now, 0 to 5000 (the platform's bounds). */
export const tailLines = numberWhere((n) => Number.isSafeInteger(n) && n >= 0 && n <= 5000, 'Expected a whole number of lines from 0 to 5000.');
export const price = numberWhere((n) => n > 0, 'Expected a price in USD per hour above 0.');
export const gigabytes = numberWhere((n) => n > 0, 'Expected a number of GB above 0.');
export const diskGigabytes = numberWhere((n) => Number.isSafeInteger(n) && n >= 0, 'Expected a whole number of GB, 0 or more.');
export const podName = (value: string): string => {
  if (value.trim() === '') throw new InvalidArgumentError('Expected a name that is not empty.');
  return value;
};
export const port = (value: string): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65_535) throw new InvalidArgumentError('Expected a port number from 0 to 65535.');
  return n;
};
export const json = (value: string): unknown => {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new InvalidArgumentError('Expected JSON, e.g. --input \'{"prompt":"hi"}\'.');
  }
};
/** Where `--input` takes the job input from: inline JSON, `@file` with JSON, or `-` (stdin). */
export type InputSource = { readonly value: unknown } | { readonly file: string } | { readonly stdin: true };
export const inputSource = (value: string): InputSource => {
  if (value === '-') return { stdin: true };
  if (value.startsWith('@')) {
    if (value.length === 1) throw new InvalidArgumentError('Expected a file name after @, e.g. --input @input.json.');
    return { file: value.slice(1) };
  }
  return { value: json(value) };
};

/** Seconds as typed to whole milliseconds (`--timeout 1.1` is 1100 ms, not 1100.0000000000002). */
export const toMs = (s: number): number => Math.max(1, Math.round(s * 1000));

/** `--cors-origin` (repeatable): an origin as a browser sends it (`http://localhost:5173`), or `*` for any. */
export const corsOrigin = (value: string, previous: string[] = []): string[] => {
  if (value !== '*') {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== value) throw new InvalidArgumentError('Expected an origin such as http://localhost:5173 (scheme, host and port only), or *.');
  }
  return [...previous, value];
};

export const envPair = (pair: string, previous: Record<string, string> = {}): Record<string, string> => {
  const eq = pair.indexOf('=');
  if (eq < 1) throw new InvalidArgumentError('Expected KEY=VALUE.');
  return { ...previous, [pair.slice(0, eq)]: pair.slice(eq + 1) };
};

/** `--transport`, on `gpus` and `pods`: maps to the client's `podsTransport`; RUNPOD_TRANSPORT when the flag is not given. */
export const transportOption = () =>
  new Option('--transport <mode>', 'API for pods and GPU types: auto (GraphQL, then REST v2 once it is retired), graphql, rest').choices(['auto', 'graphql', 'rest']).env('RUNPOD_TRANSPORT').default('auto');

/**
 * The transport every command's client uses: `--transport` where the command has it, else
 * RUNPOD_TRANSPORT (a script after the 410 sets `rest` once, and no command sends GraphQL first).
 */
export function transportOf(flag: string | undefined): 'auto' | 'graphql' | 'rest' | undefined {
  const value = flag ?? (process.env.RUNPOD_TRANSPORT || undefined);
  if (value === undefined || value === 'auto' || value === 'graphql' || value === 'rest') return value;
  throw new UsageError(`configuration error: RUNPOD_TRANSPORT must be auto, graphql or rest, not ${JSON.stringify(value.slice(0, 40))}`);
}

/** `--secure` / `--community`, which exclude each other. */
export const cloudOptions = () => [new Option('--secure', 'secure cloud only').conflicts('community'), new Option('--community', 'community cloud only')] as const;

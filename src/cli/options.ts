// Option parsers and the options every command shares. A bad value is a usage error naming the
// option and the value as typed (commander: "option '--timeout <seconds>' argument '-1' is
// invalid. …"), before anything is sent.
import { InvalidArgumentError, Option } from 'commander';
import type { PodsTransport } from '../transport/transport-choice.js';

/** The root command's options, seen by every command (`this.optsWithGlobals()`). */
export interface GlobalOptions {
  apiKey?: string;
  emulator?: boolean;
  json?: boolean;
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
export const envPair = (pair: string, previous: Record<string, string> = {}): Record<string, string> => {
  const eq = pair.indexOf('=');
  if (eq < 1) throw new InvalidArgumentError('Expected KEY=VALUE.');
  return { ...previous, [pair.slice(0, eq)]: pair.slice(eq + 1) };
};

/** `--transport`, on `gpus` and `pods`: maps to the client's `podsTransport`. */
export const transportOption = () =>
  new Option('--transport <mode>', 'API for pods and GPU types: auto (GraphQL, then REST v2 once it is retired), graphql, rest').choices(['auto', 'graphql', 'rest']).default('auto');

/** `--secure` / `--community`, which exclude each other. */
export const cloudOptions = () => [new Option('--secure', 'secure cloud only').conflicts('community'), new Option('--community', 'community cloud only')] as const;

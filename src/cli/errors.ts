// Exit codes and how an error reaches the user: one place maps every error to its message and code.
import { CommanderError } from 'commander';
import { CapacityUnavailableError, RunpodError, ValidationError } from '../index.js';
import { safeText } from './output.js';

/** 0 ok, 1 unexpected, 2 usage (anything refused before a request is sent), 3 API error, 4 no capacity. */
export const EXIT = { ok: 0, unexpected: 1, usage: 2, api: 3, capacity: 4 } as const;

/** A problem with what the user typed or configured, found before anything was sent. */
export class UsageError extends Error {}

/** Which command ran, for messages: set for every command before its action runs (see program.ts). */
export interface Invocation {
  /** The command and the ids the user typed (`runpod-gql jobs status echo 1234`). */
  where: string;
  /** The command whose `--help` a usage error points to. */
  helpPath: string;
  /** The arguments as typed (after `help X` is rewritten to `X --help`). */
  argv: readonly string[];
}

/** Library fields and the flags that set them, so a refused value is named as the user typed it. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  gpuCount: '--count',
  maxPricePerHour: '--max-price',
  minMemoryInGb: '--min-memory',
  ports: '--ports',
  timeoutMs: '--timeout',
  name: '--name',
  imageName: '--image',
  gpuTypeId: '--gpu',
  volumeInGb: '--volume',
  containerDiskInGb: '--disk',
  env: '--env',
  input: '--input',
  apiKey: '--api-key',
};

/** What the user typed for `flag` (`--flag value` or `--flag=value`), if anything. */
function typedValue(argv: readonly string[], flag: string): string | undefined {
  for (let i = argv.length - 1; i >= 0; i--) {
    const arg = argv[i]!;
    if (arg === flag) return argv[i + 1];
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
  }
  return undefined;
}

/** A library ValidationError in the CLI's words: the flag and the value as typed, then the library's reason. */
function usageOf(err: ValidationError, argv: readonly string[]): string {
  const field = err.field.replace(/^input\.(?=.)/, '');
  const flag = FLAG_OF_FIELD[field] ?? FLAG_OF_FIELD[field.split(/[.[]/)[0]!];
  const reason = err.message.startsWith(`${err.field}: `) ? err.message.slice(err.field.length + 2) : err.message;
  if (!flag) return `invalid ${err.field}: ${reason}`;
  // Never echo a key, not even a refused one.
  const typed = flag === '--api-key' ? undefined : typedValue(argv, flag);
  return `invalid ${flag}${typed === undefined ? '' : ` ${JSON.stringify(typed)}`}: ${field} ${reason}`;
}

/** Prints what went wrong (on stderr, server text escaped) and answers the exit code. */
export function report(err: unknown, run: Invocation): number {
  if (err instanceof CommanderError) {
    // commander has printed its own message (see `conventions` in program.ts).
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return EXIT.ok;
    return EXIT.usage;
  }
  if (err instanceof UsageError) {
    console.error(safeText(`${run.where}: ${err.message}`));
    return EXIT.usage;
  }
  if (err instanceof ValidationError && err.status === undefined) {
    console.error(safeText(`${run.where}: ${usageOf(err, run.argv)} (nothing was sent)\nRun '${run.helpPath} --help' for usage.`));
    return EXIT.usage;
  }
  if (err instanceof CapacityUnavailableError) {
    console.error(safeText(`${run.where}: no capacity: ${err.message}`));
    return EXIT.capacity;
  }
  if (err instanceof RunpodError) {
    console.error(safeText(`${run.where}: ${err.name}: ${err.message}`));
    return EXIT.api;
  }
  console.error(safeText(err instanceof Error ? (err.stack ?? String(err)) : String(err)));
  return EXIT.unexpected;
}

// Exit codes and how an error reaches the user: one place maps every error to its message and code.
import { CommanderError } from 'commander';
import { CapacityUnavailableError, RunpodError, ValidationError } from '../index.js';
import { safeJson, safeText } from './output.js';

/** 0 ok, 1 unexpected, 2 usage (anything refused before a request is sent), 3 API error, 4 no capacity. */
export const EXIT = { ok: 0, unexpected: 1, usage: 2, api: 3, capacity: 4 } as const;

/** A problem with what the user typed or configured, found before anything was sent. */
export class UsageError extends Error {}

/**
 * Ends the command with `code` and no message: what it had to say is printed already. `pods exec`
 * exits with its command's exit code this way.
 */
export class CommandExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = 'CommandExit';
  }
}

/** Which command ran, for messages: set for every command before its action runs (see program.ts). */
export interface Invocation {
  /** The command and the ids the user typed (`runpod-gql jobs status echo 1234`). */
  where: string;
  /** The command whose `--help` a usage error points to. */
  helpPath: string;
  /** The arguments as typed (after `help X` is rewritten to `X --help`). */
  argv: readonly string[];
  /** `--json`: errors too are one JSON object on stderr. */
  json: boolean;
}

/**
 * Library hints in the CLI's words: a hint that names a library call names the command that does
 * the same (`--gpu "RTX 4090"` points at `runpod-gql gpus`, not `gpuTypes.list()`).
 */
const CLI_HINTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(?:rp\.)?(?:gpuTypes\.list|rest\.catalog\.gpus)\(\)/g, '`runpod-gql gpus`'],
  [/\b(?:rp\.)?pods\.findByMarker\('([\w-]+)'\)/g, '`runpod-gql pods find --marker $1`'],
];
export const inCliWords = (message: string): string => CLI_HINTS.reduce((text, [pattern, command]) => text.replace(pattern, command), message);

/** What `--json` prints for an error: `{ "error": { name, message, status?, requestId? } }`. */
export function errorJson(name: string, message: string, err?: unknown): string {
  const status = (err as { status?: unknown } | undefined)?.status;
  // Read defensively: not every error (nor every version of the library) carries one.
  const requestId = (err as { requestId?: unknown } | undefined)?.requestId;
  return safeJson({ error: { name, message, ...(typeof status === 'number' && { status }), ...(typeof requestId === 'string' && requestId && { requestId }) } });
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

/** ` (request id …)` for an error that carries one, so a text-mode report can be quoted to support as is. */
function requestIdNote(err: unknown): string {
  const requestId = (err as { requestId?: unknown } | undefined)?.requestId;
  return typeof requestId === 'string' && requestId ? ` (request id ${requestId})` : '';
}

/** Prints what went wrong (on stderr, server text escaped; one JSON object with `--json`) and answers the exit code. */
export function report(err: unknown, run: Invocation): number {
  const say = (name: string, message: string, code: number, human = `${name}: ${message}`): number => {
    console.error(run.json ? errorJson(name, message, err) : safeText(`${run.where}: ${human}${requestIdNote(err)}`));
    return code;
  };
  if (err instanceof CommanderError) {
    // commander has printed its own message (see `conventions` in program.ts).
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return EXIT.ok;
    return EXIT.usage;
  }
  if (err instanceof CommandExit) return err.code;
  if (err instanceof UsageError) return say('UsageError', err.message, EXIT.usage, err.message);
  if (err instanceof ValidationError && err.status === undefined) {
    const message = `${inCliWords(usageOf(err, run.argv))} (nothing was sent)`;
    return say(err.name, message, EXIT.usage, `${message}\nRun '${run.helpPath} --help' for usage.`);
  }
  if (err instanceof CapacityUnavailableError) return say(err.name, inCliWords(err.message), EXIT.capacity, `no capacity: ${inCliWords(err.message)}`);
  if (err instanceof RunpodError) return say(err.name, inCliWords(err.message), EXIT.api);
  if (run.json) return say(err instanceof Error ? err.name : 'Error', err instanceof Error ? err.message : String(err), EXIT.unexpected);
  console.error(safeText(err instanceof Error ? (err.stack ?? String(err)) : String(err)));
  return EXIT.unexpected;
}

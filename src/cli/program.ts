// The root command and the conventions every command follows. Command groups live in
// commands/, one file each, and are listed once in commands/index.ts.
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { errorJson, EXIT } from './errors.js';
import { safeText } from './output.js';

/**
 * A command group: adds its commands to the program. One file per group under commands/, listed
 * once in commands/index.ts (the order there is the order in `--help`).
 */
export type CommandGroup = (program: Command) => void;

function version(): string {
  // dist/cli/program.js and src/cli/program.ts both sit two levels below package.json.
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** The full command path, e.g. `runpod-gql pods deploy`. */
export function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The command and the operands the user typed (`runpod-gql jobs status echo 1234`), for messages. */
export function whereOf(command: Command): string {
  const operands = (command.processedArgs as unknown[]).slice(0, command.registeredArguments.length).filter((a) => a !== undefined);
  // A variadic operand (`pods exec ID -- ls -la`) is shown as typed, not as `ls,-la`.
  return [pathOf(command), ...operands.map((a) => (Array.isArray(a) ? a.join(' ') : String(a)))].join(' ');
}

/**
 * A group of subcommands (`pods`, `jobs`): created by the file that owns it, or found when another
 * file adds a subcommand to it (`group(program, 'pods').command('exec')`). `pods` or `jobs` alone
 * is a short usage error, not a page of help.
 */
export function group(program: Command, name: string, description?: string): Command {
  const existing = program.commands.find((c) => c.name() === name);
  if (existing) return existing;
  const created = program.command(name);
  if (description) created.description(description);
  const help = created.help.bind(created);
  created.help = ((context?: { error?: boolean }) => {
    if (context?.error) {
      const names = created.commands.map((c) => c.name()).filter((n) => n !== 'help');
      created.error(`${pathOf(created)}: missing subcommand (${names.join(', ')})`, { exitCode: EXIT.usage, code: 'runpod-gql.missingSubcommand' });
    }
    return help(context as { error: boolean });
  }) as Command['help'];
  return created;
}

/** Usage errors are short: the problem, a suggestion when there is one, and which help to read. */
function conventions(command: Command, json: boolean): Command {
  const path = pathOf(command);
  if (json) {
    // `--json`: a usage error is one JSON object too, with no help text after it.
    command.showHelpAfterError(false);
    command.configureOutput({ outputError: (text, write) => write(`${errorJson('UsageError', text.replace(/^error: /, '').trim())}\n`) });
  } else {
    command.showHelpAfterError(`Run '${path} --help' for usage.`);
    command.configureOutput({ outputError: (text, write) => write(safeText(text.replace(/^error: /, `${path}: `))) });
  }
  // A mistyped option is named without its value: `--apikey=rpa_…` must not print the key (into
  // CI logs, say); `-kSECRET` is shown as `-k`.
  // (`unknownOption` is commander's, undeclared in its types.)
  const internal = command as unknown as { unknownOption(flag: string): void };
  const unknownOption = internal.unknownOption.bind(command);
  internal.unknownOption = (flag: string) => unknownOption(flag.startsWith('--') ? flag.split('=')[0]! : flag.slice(0, 2));
  // Every command throws instead of exiting, so main() picks the exit code.
  command.exitOverride();
  for (const sub of command.commands) conventions(sub, json);
  return command;
}

/**
 * The `runpod-gql` program with its global options and the given command groups, in order.
 * `json`: usage errors are printed as JSON (`--json` was typed).
 */
export function buildProgram(groups: readonly CommandGroup[], json = false): Command {
  const program = new Command('runpod-gql')
    .description('The RunPod GPU cloud from the command line.')
    .version(version(), '-v, --version', 'print the version')
    .option('--api-key <key>', 'API key; prefer $RUNPOD_API_KEY, or "-" to read it from stdin (a key typed here shows in the process list and shell history)')
    .addOption(new Option('--profile <name>', 'take the API key from this profile of ~/.runpod/config.toml (the file runpod-python and runpodctl keep; [default] is read when no key is given)').conflicts('apiKey'))
    .option('--emulator', 'run against an in-process emulator (no account, no network; its state lasts one command)')
    .option('--json', 'machine-readable output')
    .option('--verbose', 'log what the client does (transport switches, pacing) on stderr')
    .option('--debug', 'log every request attempt on stderr: method, URL (key redacted), status, time, retries')
    .helpOption('-h, --help', 'help for any command')
    .helpCommand('help [command]', 'help for a command')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .addHelpText(
      'after',
      `
The API key: --api-key, else --profile, else $RUNPOD_API_KEY, else the [default] profile of ~/.runpod/config.toml.
Environment: RUNPOD_API_KEY, and RUNPOD_GRAPHQL_URL / RUNPOD_REST_URL / RUNPOD_SERVERLESS_URL to point at
another server, for example a running \`runpod-gql emulator\` (it prints the values to use).

Exit codes: 0 ok, 1 unexpected error, 2 usage error (nothing was sent), 3 API error, 4 no capacity,
130 interrupted (Ctrl-C), 143 terminated (SIGTERM): what is still running or may have been created is
printed, with the command that finds or stops it.`,
    );
  for (const add of groups) add(program);
  return conventions(program, json);
}

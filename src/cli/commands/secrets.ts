// `runpod-gql secrets …`: account secrets (REST v2). A secret's value is read from a file or stdin,
// never from the command line, and is never printed: no answer carries it, and neither does any
// message of the CLI.
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { NotFoundError, type RestV2, type RunpodClient } from '../../index.js';
import { UsageError } from '../errors.js';
import { readStdin } from '../input.js';
import type { CommandOptions } from '../options.js';
import { group, type CommandGroup } from '../program.js';
import { print, printTable, say } from '../output.js';
import { withClient } from '../session.js';

const secretTable = (list: readonly RestV2.Secret[]) =>
  printTable(list.map((s) => ({ NAME: s.name, ID: s.id, CREATED: s.createdAt, DESCRIPTION: s.description ?? '' })));

/**
 * The secret a user names: by its name (unique on an account, and what `create` printed), else by
 * its id. `undefined` when neither matches, so the message can say which was looked for.
 */
async function secretOf(rp: RunpodClient, ref: string): Promise<RestV2.Secret | undefined> {
  const [named] = await rp.rest.secrets.list({ name: ref });
  if (named) return named;
  return rp.rest.secrets.get(ref).catch((err: unknown) => {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  });
}

/** The secret `ref` names, or a NotFoundError (exit 3) saying both were looked for. */
async function existingSecret(rp: RunpodClient, ref: string): Promise<RestV2.Secret> {
  const secret = await secretOf(rp, ref);
  if (!secret) throw new NotFoundError(`no secret named ${ref}, nor with that id, on this account`, { status: 404 });
  return secret;
}

/** One line ending (LF or CRLF) at the end, as `echo value > file` or typing then Enter leave it, is not part of the value. */
const withoutLineEnd = (text: string) => text.replace(/\r?\n$/, '');

/** The value from `--value-file PATH`, or else stdin; a usage error, never quoting it, when there is none. */
async function secretValue(options: CommandOptions): Promise<string> {
  const file = options.valueFile as string | undefined;
  let text: string;
  if (file !== undefined) {
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(`--value-file ${file}: cannot read the file (${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')})`);
    }
  } else {
    // One stream cannot give both: the key is its first line.
    if (options.apiKey === '-') throw new UsageError('the secret value and --api-key - both read stdin: give the value by --value-file PATH');
    if (process.stdin.isTTY) process.stderr.write('Secret value (then Enter and Ctrl-D; it is not shown back): ');
    text = await readStdin();
  }
  const value = withoutLineEnd(text);
  if (value === '') throw new UsageError(`${file === undefined ? 'stdin' : `--value-file ${file}`}: the secret value is empty`);
  return value;
}

/**
 * `--value` exists only to be refused, with the reason, before anything else happens (before the
 * key is read, too). A value on the command line is in the shell's history and, while the command
 * runs, in the process list. The refusal never repeats it.
 */
function refuseValueFlag(_hooked: Command, command: Command): void {
  if (command.opts().value !== undefined) {
    throw new UsageError('--value is refused: a secret typed on the command line stays in the shell history and shows in the process list. Use --value-file PATH, or pipe it on stdin');
  }
}

export const secrets: CommandGroup = (program) => {
  const secrets = group(program, 'secrets', 'account secrets: pods read them as {{ RUNPOD_SECRET_<name> }} in their env');
  secrets
    .command('list')
    .description('your secrets (names and dates; a value is never shown)')
    .action(
      withClient(async ({ rp }, o) => {
        const list = await rp.rest.secrets.list();
        print(o, list, () => secretTable(list));
      }),
    );
  secrets
    .command('create')
    .description('create a secret; its value from --value-file PATH or stdin, never from the command line')
    .argument('<name>')
    .option('--value-file <path>', 'read the value from this file (one line ending at its end is dropped)')
    .option('--description <text>', 'what the secret is for')
    .addOption(new Option('--value [value]', 'refused: use --value-file or stdin').hideHelp())
    .hook('preAction', refuseValueFlag)
    .action(
      withClient(async ({ rp }, o, name: string) => {
        const value = await secretValue(o);
        const description = o.description as string | undefined;
        const made = await rp.rest.secrets.create({ name, value, ...(description !== undefined && { description }) });
        print(o, made, () => say(`created secret ${made.name} (${made.id}); use it in a pod's env as {{ RUNPOD_SECRET_${made.name} }}`));
      }),
    );
  secrets
    .command('get')
    .description('one secret by name or id (its name, id, dates and description; never the value)')
    .argument('<name-or-id>')
    .action(
      withClient(async ({ rp }, o, ref: string) => {
        const secret = await existingSecret(rp, ref);
        print(o, secret, () => secretTable([secret]));
      }),
    );
  secrets
    .command('delete')
    .description('delete a secret, by name or id')
    .argument('<name-or-id>')
    .action(
      withClient(async ({ rp }, o, ref: string) => {
        const { id, name } = await existingSecret(rp, ref);
        await rp.rest.secrets.delete(id);
        print(o, { id, name, deleted: true }, () => say(`deleted secret ${name} (${id})`));
      }),
    );
};

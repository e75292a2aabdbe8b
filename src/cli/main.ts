#!/usr/bin/env node
// The `runpod-gql` command line. Exit codes: 0 ok, 1 unexpected, 2 usage (anything refused before
// a request is sent), 3 API error, 4 no capacity, 130 interrupted.
import { COMMANDS } from './commands/index.js';
import { report, EXIT, type Invocation } from './errors.js';
import { buildProgram, pathOf, whereOf } from './program.js';

export { EXIT } from './errors.js';

/** Runs one command line (without `node` and the script) and answers its exit code. */
export async function main(argv: string[]): Promise<number> {
  // `--api-key KEY` would stay readable in the process list (`ps`, /proc) for the whole command:
  // the process title overwrites the original command line (Linux, macOS). Help says to prefer
  // the environment or `--api-key -`.
  if (argv.some((a) => (a === '--api-key' || a.startsWith('--api-key=')) && a !== '--api-key=-') && !argv.includes('-')) process.title = 'runpod-gql';
  // `help pods deploy` is `pods deploy --help` (commander's help command looks one level down only).
  const args = argv[0] === 'help' && argv.length > 2 ? [...argv.slice(1), '--help'] : argv;
  // Per run, set before every action (whether or not it opens a client), read by the error report.
  const run: Invocation = { where: 'runpod-gql', helpPath: 'runpod-gql', argv: args };
  const program = buildProgram(COMMANDS).hook('preAction', (_root, action) => {
    run.where = whereOf(action);
    run.helpPath = pathOf(action);
  });
  try {
    await program.parseAsync(args, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    return report(err, run);
  }
}

// `runpod-gql pods list | head`: a reader that goes away is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
process.exitCode = await main(process.argv.slice(2));

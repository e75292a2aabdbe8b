// `runpod-gql pods exec` and `pods logs`: what runs in a pod's container (REST v2). Added to the
// `pods` group that pods.ts makes, so this file is listed after it in COMMANDS.
import { Option } from 'commander';
import { AbortError } from '../../index.js';
import { CommandExit } from '../errors.js';
import { group, type CommandGroup } from '../program.js';
import { execSeconds, tailLines } from '../options.js';
import { print, safeJson, safeText } from '../output.js';
import { whileRunning } from '../signals.js';
import { withClient } from '../session.js';

/**
 * Without `--follow`, `pods logs` ends once the stream has gone quiet: the platform's stream has
 * no end-of-backfill marker, so the backfill is taken to be over when no line came for this long
 * (or `--tail` lines came). The first line may take longer: the connection is made first.
 */
const QUIET_MS = 1_000;
const FIRST_LINE_MS = 5_000;

/**
 * The exit status of a command's exit code: 0–255 as they are; anything else (a negative code, say,
 * for a command killed by a signal) is 255, never a value that wraps round to 0 and hides a failure.
 */
export const exitStatusOf = (exitCode: number): number => (Number.isInteger(exitCode) && exitCode >= 0 && exitCode <= 255 ? exitCode : 255);

/**
 * A command's output as the user's stream takes it: as it is when piped or redirected (so
 * `pods exec ID -- cat file > file` copies it), with control characters escaped on a terminal
 * (so a command's output cannot rewrite it, as with every other text from the server).
 */
function writeOutput(stream: NodeJS.WriteStream, text: string): void {
  if (text) stream.write(stream.isTTY ? safeText(text) : text);
}

export const podContainer: CommandGroup = (program) => {
  const pods = group(program, 'pods');
  pods
    .command('exec')
    .description("run a command in a running pod's container (no shell) and exit with its exit code")
    .argument('<pod-id>')
    .argument('<command...>', 'the program and its arguments, after --: pods exec ID -- ls -la /workspace')
    .option('--timeout <seconds>', 'stop the command after this long, 1 to 25 (default: 20, the platform\'s)', execSeconds)
    .option('--cwd <dir>', 'the working directory of the command (default: the container\'s)')
    .action(
      withClient(async ({ rp, emulator, where }, o, podId: string, command: string[]) => {
        // rest.pods.exec never resends: once the request may have reached the pod, the command may have run.
        const offSignal = whileRunning(where, () =>
          emulator ? '' : `The command may have started in pod ${podId}; it runs to its end or its timeout there (it is never sent twice).`,
        );
        let result;
        try {
          result = await rp.rest.pods.exec(podId, { command, timeoutSeconds: o.timeout as number | undefined, cwd: o.cwd as string | undefined });
        } finally {
          offSignal();
        }
        if (o.json) print(o, result);
        else {
          writeOutput(process.stdout, result.stdout);
          writeOutput(process.stderr, result.stderr);
        }
        // The command's exit code is the CLI's: `pods exec ID -- test -f x && …` works as in a shell.
        const status = exitStatusOf(result.exitCode);
        if (status !== 0) throw new CommandExit(status);
      }),
    );
  pods
    .command('logs')
    .description("a pod's log lines (--follow: and the new ones, until Ctrl-C or the pod stops)")
    .argument('<pod-id>')
    .option('--follow', 'keep printing new lines until interrupted or the pod stops')
    .option('--tail <n>', 'lines from before now to start with, 0 to 5000', tailLines, 100)
    .addOption(new Option('--source <source>', 'only the container\'s lines, or only the system\'s (default: both)').choices(['container', 'system']))
    .action(
      withClient(async ({ rp }, o, podId: string) => {
        const tail = o.tail as number;
        const follow = Boolean(o.follow);
        if (!follow && tail === 0) return;
        const quiet = new AbortController();
        let timer: NodeJS.Timeout | undefined;
        const wait = (ms: number) => {
          clearTimeout(timer);
          if (!follow) timer = setTimeout(() => quiet.abort(), ms);
        };
        wait(FIRST_LINE_MS);
        let seen = 0;
        try {
          for await (const line of rp.rest.pods.logs(podId, { tail, source: o.source as 'container' | 'system' | undefined, signal: quiet.signal })) {
            process.stdout.write(o.json ? `${safeJson(line)}\n` : `${safeText(line.line, true)}\n`);
            seen += 1;
            if (!follow && seen >= tail) break;
            wait(QUIET_MS);
          }
        } catch (err) {
          // The quiet period ending is how a read without --follow stops, not a failure.
          if (!(quiet.signal.aborted && err instanceof AbortError)) throw err;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
};

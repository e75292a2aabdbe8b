// Signals: Ctrl-C (SIGINT) and SIGTERM (sent by containers, `timeout`, CI runners) are handled
// alike. The command stops; what it started or waited for does not, and the user is told what
// still exists, under which name, and the command that finds or stops it.
import { safeText } from './output.js';

/** The exit code for each signal handled: 128 + the signal's number, as shells report it. */
export const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
type HandledSignal = keyof typeof SIGNAL_EXIT;

interface Watch {
  where: string;
  describe: () => string;
  line: { done(): void } | undefined;
}

// Process-wide by nature (a signal reaches the process, not a command): the innermost watch speaks.
const watches: Watch[] = [];

function handle(signal: HandledSignal): void {
  const watch = watches.at(-1);
  if (!watch) return;
  watch.line?.done();
  const what = safeText(watch.describe());
  const how = signal === 'SIGINT' ? 'interrupted' : 'terminated (SIGTERM)';
  process.stderr.write(`\n${safeText(watch.where)}: ${how}.${what ? ` ${what}` : ''}\n`);
  process.exit(SIGNAL_EXIT[signal]);
}
const onSigint = () => handle('SIGINT');
const onSigterm = () => handle('SIGTERM');

/**
 * Until the answered function is called, SIGINT and SIGTERM print `where`, then what is still
 * running and how to deal with it (`describe()`, read when the signal comes), erase the progress
 * `line`, and exit 130 or 143. Watches nest: the latest one speaks.
 */
export function whileRunning(where: string, describe: () => string = () => '', line?: { done(): void }): () => void {
  const watch: Watch = { where, describe, line };
  if (watches.length === 0) {
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigterm);
  }
  watches.push(watch);
  return () => {
    const at = watches.lastIndexOf(watch);
    if (at >= 0) watches.splice(at, 1);
    if (watches.length === 0) {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
    }
  };
}

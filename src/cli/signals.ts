// Signals during a wait: the wait stops, what it waited for does not, and the user is told so.
import { safeText } from './output.js';

/**
 * On Ctrl-C during a wait: what is still running and how to deal with it, then exit 130 (the
 * shell's code for SIGINT). `where` is the command as typed. Answers a function that removes the handler.
 */
export function onInterrupt(where: string, describe: () => string, line?: { done(): void }): () => void {
  const handler = () => {
    line?.done();
    process.stderr.write(`\n${safeText(where)}: interrupted. ${safeText(describe())}\n`);
    process.exit(130);
  };
  process.once('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}

// The one way to load after-answer.ts: it holds what the core runs only once an answer (or a
// failure) has arrived, when every call is asynchronous already, so loading it then changes nothing
// a caller sees, and an app that code-splits does not load it at start-up.
import type { AfterAnswer, AnswerContext } from './after-answer.js';

let loading: Promise<typeof import('./after-answer.js')> | undefined;

/** The after-answer steps for one core, loading the module on first use (tests that fake timers load it first: loading is real I/O). */
export async function loadAfterAnswer(context: AnswerContext): Promise<AfterAnswer> {
  return (await (loading ??= import('./after-answer.js'))).createAfterAnswer(context);
}

// The one place the gateway builds a scrubber from its secrets: the upstream key, the tokens, and
// in pass-through mode the caller's own key. Answers are scrubbed with these only, never with the
// process-wide index, which strings from other callers must not reach.
import { createScrubber } from '../transport/redact.js';

/** Removes every spelling the redactor knows of a set of secrets from a text. */
export type Scrub = (text: string) => string;

export const noScrub: Scrub = (text) => text;

/** The scrubber for `secrets` (empty ones skipped): one matcher and one pass over the text, however many. */
export function scrubberOf(secrets: readonly (string | undefined)[]): Scrub {
  return secrets.some((s) => !!s) ? createScrubber(secrets) : noScrub;
}


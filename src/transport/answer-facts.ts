// What the start-up modules read from answers: request ids, the platform's no-capacity and generic-failure wordings, the
// bound on an error body, the statuses that redirect. The mapping of an error answer to its class (error-mapping.ts), which
// loads with the first answer that needs it, reads them too.
import type { GraphQLErrorEntry, RunpodError } from '../errors.js';
import { redactText } from './redact.js';

/** Answers that redirect: the core sends the first hop, after-answer.ts follows it. */
export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Longest error answer parsed as JSON; a longer one is kept as a snippet of its text. */
export const MAX_ERROR_BODY_CHARS = 256 * 1024;

const CAPACITY_PATTERN =
  /no longer any instances available|no instances (?:are )?(?:currently )?available|(?:no|insufficient|not enough) (?:gpu |cpu )?capacity|could not be placed/i;

/** True for the platform's no-capacity messages (GraphQL and REST word them differently). */
export function isCapacityMessage(message: string): boolean {
  return CAPACITY_PATTERN.test(message);
}

const GENERIC_FAILURE = /^\s*something went wrong\b/i;

/**
 * True when the errors are the platform's generic "Something went wrong…", which it also sends
 * after a mutation took effect: the outcome is unknown.
 */
export function isGenericFailure(errors: readonly GraphQLErrorEntry[]): boolean {
  return errors.length > 0 && errors.some((e) => GENERIC_FAILURE.test(e.message));
}

/** `text` cut to `max` characters, saying so. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[truncated]`;
}

/** The answer's request id: `x-request-id`, else `x-runpod-request-id`, else the serverless `x-runpod-worker-id`. */
export function requestIdOf(headers: Headers | undefined): string | undefined {
  const id = headers && (headers.get('x-request-id') ?? headers.get('x-runpod-request-id') ?? headers.get('x-runpod-worker-id'));
  // A long id is scrubbed before it is cut: a key cut in two there would leave a piece too short for
  // any scrubber to recognise (ids are short; this costs nothing on the way a normal answer takes).
  return id ? (id.length > 200 ? clip(redactText(id), 200) : id) : undefined;
}

/**
 * `error` with the request id of the answer it comes from. Set after the error is built, so that
 * each place that turns an answer into an error (HTTP status, wrong shape, GraphQL `errors`) need
 * not thread it through every class; scrubbed as every other field.
 */
export function withRequestId<E extends RunpodError>(error: E, headers: Headers | undefined): E {
  const id = requestIdOf(headers);
  if (id !== undefined && error.requestId === undefined) (error as { requestId: string | undefined }).requestId = redactText(id);
  return error;
}

// What the lazily loaded after-answer module (after-answer.ts) takes from the start-up modules, and
// the one way to load it. It holds what the core runs only once an answer (or a failure) has
// arrived: by then every call is asynchronous already, so loading it there changes nothing a caller
// sees, and an app that code-splits does not load it at start-up.
import {
  AbortError,
  ApiError,
  ApiRetiredError,
  AuthenticationError,
  BadRequestError,
  CapacityUnavailableError,
  ConflictError,
  ConnectionError,
  GraphQLResponseError,
  InsufficientBalanceError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  ValidationError,
} from '../errors.js';
import { clip, isCapacityMessage, MAX_ERROR_BODY_CHARS, requestIdOf, withRequestId } from './answer-facts.js';
import { redactText, redactUrl, redactValue } from './redact.js';
import { MAX_RETRY_AFTER_MS } from './retry.js';
import type { AfterAnswer, AnswerContext } from './after-answer.js';

/** Answers that redirect: the core sends the first hop, after-answer.ts follows it. */
export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export const afterAnswerKit = {
  errors: {
    ...{ AbortError, ApiError, ApiRetiredError, AuthenticationError, BadRequestError, CapacityUnavailableError, ConflictError, ConnectionError },
    ...{ GraphQLResponseError, InsufficientBalanceError, NotFoundError, PermissionDeniedError, RateLimitError, ServerError, ValidationError },
  },
  ...{ clip, isCapacityMessage, MAX_ERROR_BODY_CHARS, requestIdOf, withRequestId, redactText, redactUrl, redactValue, MAX_RETRY_AFTER_MS, REDIRECT_STATUSES },
};
export type AfterAnswerKit = typeof afterAnswerKit;

let loading: Promise<typeof import('./after-answer.js')> | undefined;

/** The after-answer steps for one core, loading the module on first use (tests that fake timers load it first: loading is real I/O). */
export async function loadAfterAnswer(context: Omit<AnswerContext, 'kit'>): Promise<AfterAnswer> {
  return (await (loading ??= import('./after-answer.js'))).createAfterAnswer({ kit: afterAnswerKit, ...context });
}

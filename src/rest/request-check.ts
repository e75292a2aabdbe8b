// Checks a REST v2 request body against the rules compiled from the contract
// (src/rest/__generated__/request-rules.ts) before anything is sent.
import { ValidationError } from '../errors.js';
import type { RequestSchemaName } from './__generated__/request-rules.js';
import { problemOfBody } from './request-problems.js';

export type { FieldRule, ObjectRule } from './request-rule.js';

/** Throws a `ValidationError` naming the field when `body` breaks the contract's `schema`. */
export function checkRequestBody(schema: RequestSchemaName, body: unknown, path = 'body'): void {
  const problem = problemOfBody(schema, body, path);
  if (problem) throw new ValidationError(problem[0], problem[1]);
}

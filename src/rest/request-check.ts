// Checks a REST v2 request body against the rules compiled from the contract
// (src/rest/__generated__/request-rules.ts) before anything is sent.
import { ValidationError } from '../errors.js';
import type { RequestSchemaName } from './__generated__/request-rules.js';
import { problemOfBody } from './request-problems.js';

/** One value's rule: JSON types, enum, bounds, pattern, and the rule of its object, items or alternatives. */
export interface FieldRule {
  readonly t?: readonly string[];
  readonly e?: readonly unknown[];
  readonly min?: number;
  readonly max?: number;
  readonly minLen?: number;
  readonly maxLen?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly unique?: boolean;
  readonly p?: string;
  readonly o?: ObjectRule;
  readonly i?: FieldRule;
  readonly u?: readonly ObjectRule[];
}

/** An object's rule: known keys, required keys, closed or not, the value rule of a map, conditional requirements. */
export interface ObjectRule {
  readonly k: Readonly<Record<string, FieldRule>>;
  readonly r?: readonly string[];
  readonly closed?: boolean;
  readonly minProps?: number;
  readonly v?: FieldRule;
  /** `image` required unless `templateId` is given. */
  readonly ru?: Readonly<Record<string, string>>;
  readonly dr?: Readonly<Record<string, readonly string[]>>;
  /** When key `k` is `v`, the fields in `then` must also pass these rules (a LOAD_BALANCER scales by request count). */
  readonly c?: ReadonlyArray<{ readonly k: string; readonly v: unknown; readonly then: Readonly<Record<string, FieldRule>> }>;
}

/** Throws a `ValidationError` naming the field when `body` breaks the contract's `schema`. */
export function checkRequestBody(schema: RequestSchemaName, body: unknown, path = 'body'): void {
  const problem = problemOfBody(schema, body, path);
  if (problem) throw new ValidationError(problem[0], problem[1]);
}

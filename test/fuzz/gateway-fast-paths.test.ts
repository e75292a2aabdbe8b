// The gateway's per-request shortcuts against what they stand in for, under any input: the
// variables stage's check of plain scalar variables gives what graphql-js's coercion gives (or
// leaves the request to it), and a RateLimit header is skipped only when its parser would find no
// window with no request left.
import fc from 'fast-check';
import { getVariableValues, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildExecutableSchema } from '../../src/graphql/executable-schema.js';
import { spentWindow } from '../../src/gateway/fairness.js';
import { coercedAsIs, plainVariables } from '../../src/gateway/stages/variables.js';
import { parseRateLimitHeaders } from '../../src/transport/rate-limit-headers.js';
import { FUZZ_TIMEOUT_MS, params } from './harness.js';

const TYPES = ['String', 'String!', 'ID', 'ID!', 'Int', 'Int!', 'Float', 'Float!', 'Boolean', 'Boolean!', '[String]', 'PodFilter'];

/** A JSON value of the kinds a request body holds, leaning to the edges of each scalar. */
const valueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.integer(),
  fc.constantFrom(2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 0, -0, 1.5, 1e300, Number.MAX_SAFE_INTEGER),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string(), { maxKeys: 2 }),
);

describe('gateway fast paths', () => {
  it('plain scalar variables: the same coerced values as graphql-js, or graphql-js decides', () => {
    const schema = buildExecutableSchema();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...TYPES), fc.boolean()), { minLength: 0, maxLength: 4 }),
        fc.array(fc.option(valueArb, { nil: undefined }), { minLength: 4, maxLength: 4 }),
        fc.boolean(),
        (defs, values, withDefault) => {
          const declared = defs.map(([type], i) => `$v${i}: ${type}${withDefault && i === 0 && type === 'String' ? ' = "d"' : ''}`);
          const text = `query Q${declared.length ? `(${declared.join(', ')})` : ''} { myself { id } }`;
          const operation = parse(text).definitions[0] as OperationDefinitionNode;
          const inputs: Record<string, unknown> = {};
          values.forEach((value, i) => {
            if (value !== undefined) inputs[`v${i}`] = value;
          });
          const plain = plainVariables(operation);
          const fast = plain ? coercedAsIs(plain, inputs) : undefined;
          const full = getVariableValues(schema, operation.variableDefinitions ?? [], inputs);
          if (fast !== undefined) {
            expect(full.errors).toBeUndefined();
            expect(fast).toEqual(full.coerced);
          }
          // Every operation of built-in scalars without defaults takes the fast path when graphql-js takes its values as they are.
          if (plain && !full.errors && Object.entries(full.coerced ?? {}).every(([name, v]) => v === inputs[name])) expect(fast).toBeDefined();
        },
      ),
      params(400),
    );
  }, FUZZ_TIMEOUT_MS);

  it('RateLimit headers: skipped only when no window is spent', () => {
    const paramArb = fc.oneof(
      fc.tuple(fc.constantFrom('r', ' r', 'r ', 'R', 't', 'q', 'xr'), fc.constantFrom('0', '00', '0.0', '-0', ' 0 ', '1', '', '0x0', '1e0', 'abc', '"0"')).map(([k, v]) => `${k}=${v}`),
      fc.string({ maxLength: 6 }),
    );
    const memberArb = fc.tuple(fc.constantFrom('"minute"', '"hour"', 'minute', '', '"a;r=0"'), fc.array(paramArb, { maxLength: 3 })).map(([name, ps]) => [name, ...ps].join(';'));
    fc.assert(
      fc.property(fc.array(memberArb, { maxLength: 3 }), fc.constantFrom(', ', ',', ' , '), fc.boolean(), (members, sep, withPolicy) => {
        const header = members.join(sep);
        const headers = new Headers();
        if (header !== '') headers.set('ratelimit', header);
        if (withPolicy) headers.set('ratelimit-policy', '"minute";q=200;w=60');
        const pauses = parseRateLimitHeaders(headers).some((w) => w.remaining === 0 && w.resetSeconds !== undefined);
        // The shortcut may let the parser look at a header that pauses nothing, never skip one that does.
        if (pauses) expect(spentWindow(headers.get('ratelimit'))).toBe(true);
      }),
      params(600),
    );
    expect(spentWindow('"minute";r=176;t=30, "hour";r=4000;t=1800')).toBe(false);
    expect(spentWindow('"minute";r=0;t=30')).toBe(true);
  }, FUZZ_TIMEOUT_MS);
});

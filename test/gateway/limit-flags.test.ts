// Each new limit has its flag, parsed in the one place flags are defined, named in --help.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { GATEWAY_USAGE, parseGatewayArgs } from '../../src/gateway/node.js';

const FLAGS = {
  '--max-tokens': 'maxTokens',
  '--max-fragments': 'maxFragments',
  '--max-spreads': 'maxSpreads',
  '--max-in-flight': 'maxInFlight',
  '--deadline-ms': 'deadlineMs',
  '--pacing-wait-ms': 'pacingWaitMs',
  '--max-refused-keys': 'maxRefusedKeys',
  '--max-upstream-calls': 'maxUpstreamCalls',
  '--max-pages': 'maxPages',
  '--max-items': 'maxItems',
  '--max-upstream-in-flight': 'maxUpstreamInFlight',
} as const;

describe("the gateway's limit flags", () => {
  it.each(Object.entries(FLAGS))('%s is parsed, documented in --help, and refused when not a count', (flag, field) => {
    expect(parseGatewayArgs([flag, '7'])[field]).toBe(7);
    expect(parseGatewayArgs([])[field]).toBeUndefined();
    expect(GATEWAY_USAGE).toContain(flag);
    expect(() => parseGatewayArgs([flag, 'x'])).toThrow(ValidationError);
    expect(() => parseGatewayArgs([flag, '-1'])).toThrow(flag);
  });

  it('--pacing-wait-ms 0 answers at once (the others need at least 1)', () => {
    expect(parseGatewayArgs(['--pacing-wait-ms', '0']).pacingWaitMs).toBe(0);
    expect(() => parseGatewayArgs(['--max-in-flight', '0'])).toThrow(/--max-in-flight/);
  });
});

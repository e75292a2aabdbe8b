// The answer to a document the gateway stopped: past its deadline, what ran stays in the answer with
// what each field's typed error adds (a create's createMarker); RunPod's pause answers 503 when
// nothing was read, else 200 with the data and each stopped field as a rate-limit error.
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AbortError, PossiblyCreatedError } from '../../src/errors.js';
import { stoppedAnswer } from '../../src/gateway/answers.js';
import { Refusal } from '../../src/gateway/protocol.js';

const fieldError = (path: string[], original: Error) => new GraphQLError(original.message, { path, originalError: original, extensions: { code: original.name } });

describe('stoppedAnswer', () => {
  it("past the deadline: 504 with the stop's error first, and a create's field error keeps its createMarker", () => {
    const created = new PossiblyCreatedError('maybe', { createMarker: 'marker_0123456789' });
    const answer = stoppedAnswer({ data: { podFindAndDeployOnDemand: null }, errors: [fieldError(['podFindAndDeployOnDemand'], created)] }, new Refusal(504, 'past the deadline', 'DEADLINE_EXCEEDED'));
    expect(answer.status).toBe(504);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('DEADLINE_EXCEEDED');
    expect(answer.body.errors?.[1]?.extensions).toMatchObject({ code: 'PossiblyCreatedError', createMarker: 'marker_0123456789' });
    expect(answer.body.errors?.[1]?.path).toEqual(['podFindAndDeployOnDemand']);
  });

  it("RunPod's pause: 503 with retryAfterMs when nothing was read; 200 with the data when something was", () => {
    const paused = new Refusal(503, 'RunPod asked the gateway to slow down: retry in 7 s', 'UPSTREAM_RATE_LIMITED', { 'retry-after': '7' });
    const nothing = stoppedAnswer({ data: { myself: { pods: null } }, errors: [fieldError(['myself', 'pods'], new AbortError('aborted'))] }, paused);
    expect(nothing).toMatchObject({ status: 503, headers: { 'retry-after': '7' } });
    expect(nothing.body.data).toBeUndefined();
    expect(nothing.body.errors?.[0]?.extensions).toEqual({ code: 'UPSTREAM_RATE_LIMITED', retryAfterMs: 7000 });
    const some = stoppedAnswer({ data: { gpuTypes: [{ id: 'g' }], myself: { pods: null } }, errors: [fieldError(['myself', 'pods'], new AbortError('aborted'))] }, paused);
    expect(some.status).toBe(200);
    expect(some.body.data).toEqual({ gpuTypes: [{ id: 'g' }], myself: { pods: null } });
    expect(some.body.errors?.[0]).toMatchObject({ path: ['myself', 'pods'], extensions: { code: 'RateLimitError', retryAfterMs: 7000 } });
  });
});

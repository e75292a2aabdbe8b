// The page fetcher (`runpod-gql/graphql/fetch`) under every malformed answer of the suite and
// arbitrary ones: a RunpodError or `data`, never a TypeError, and never its token, which the
// gateway's answers may echo in any field.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunpodError } from '../../src/errors.js';
import { createGatewayFetcher } from '../../src/graphql/gateway-fetch.js';
import { GpuTypesDocument, StopPodDocument } from '../../src/graphql/index.js';
import { malformedAnswers, toResponse } from './answers.js';
import { params } from './harness.js';

const TOKEN = 'page-fuzz-token-0123456789abcdef';

async function outcome(respond: () => Response, document: unknown = GpuTypesDocument): Promise<unknown> {
  const execute = createGatewayFetcher({ token: TOKEN, maxRetries: 1, fetch: async () => respond() });
  try {
    return { resolved: await execute(document as typeof GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } }) };
  } catch (err) {
    return err;
  }
}

const leaks = (value: unknown) => {
  const shown = value instanceof Error ? `${JSON.stringify(value)} ${value.stack} ${JSON.stringify((value as { body?: unknown }).body ?? null)} ${JSON.stringify((value as { errors?: unknown }).errors ?? null)}` : '';
  return shown.includes(TOKEN);
};

describe('the page fetcher × malformed answers', () => {
  it('every malformed answer of the suite is a RunpodError or data, never a TypeError', async () => {
    for (const answer of malformedAnswers().filter((a) => !a.deep)) {
      const result = await outcome(() => toResponse(answer));
      if (result instanceof Error) expect(result, answer.name).toBeInstanceOf(RunpodError);
      else expect(typeof (result as { resolved: unknown }).resolved, answer.name).toBe('object');
    }
  });

  it('arbitrary statuses and bodies that echo the token: a RunpodError that never shows it', async () => {
    const echo = fc.oneof(fc.constant(TOKEN), fc.string(), fc.integer(), fc.constant(null));
    const body = fc.oneof(
      fc.record({ errors: fc.array(fc.record({ message: echo, extensions: fc.record({ code: fc.oneof(fc.constant('POSSIBLY_CREATED'), fc.string()), createMarker: echo }) }), { maxLength: 3 }), data: fc.oneof(fc.constant(null), fc.record({ x: echo })) }),
      fc.record({ data: echo }),
      fc.string().map((s) => `${s}${TOKEN}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 200, max: 599 }), body, fc.boolean(), async (status, value, mutation) => {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        const result = await outcome(() => new Response(text, { status, headers: { 'content-type': 'application/json', 'retry-after': '0' } }), mutation ? StopPodDocument : GpuTypesDocument);
        if (result instanceof Error) {
          expect(result).toBeInstanceOf(RunpodError);
          expect(leaks(result)).toBe(false);
        } else {
          expect(status).toBeLessThan(300);
        }
      }),
      params(60),
    );
  });
});

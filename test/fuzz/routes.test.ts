import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { fuzzClient, METHODS, FUZZ_TIMEOUT_MS, params, reportFigures, settleWithin } from './harness.js';

/** Ids made to escape their path segment: dot segments, separators, encodings, controls, unicode. */
const HOSTILE = ['.', '..', '../..', './', '..%2f', '%2e%2e', '%2E', '/', '//', '\\', '..\\', '?x=1', '#frag', '..;/', 'a/../b', ' .. ', '\t', 'a\nb', '\u0000', '\u007f', '\u0085', '．．', 'é', '%', '%00', ''];

const idArb = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.array(fc.constantFrom(...HOSTILE, 'a', 'p1'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

const PATH_METHODS = METHODS.filter((m) => m.path);

let sentCount = 0;
let refused = 0;
let escapes = 0;

afterAll(() => {
  reportFigures('no id reaches another route', { 'methods with ids in paths': PATH_METHODS.length, 'requests sent': sentCount, 'refused before sending': refused, 'route escapes': escapes });
});

/** Where `id` must land: the method's template (a path under TEST_URLS) with the id as one encoded segment. */
function expectedPath(template: string, id: string): string {
  return template.replace('{id}', encodeURIComponent(id));
}

describe('no id reaches another route', () => {
  it('property: an id is refused before sending, or stays one segment of its own route', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATH_METHODS), idArb, async (method, id) => {
        const { client, sent } = fuzzClient(() => Response.json({ id: 'p1', status: 'IN_QUEUE' }));
        const settled = await settleWithin(() => method.call(client, id));
        if (sent.length === 0) {
          refused++;
          expect(settled.kind === 'rejected' && settled.error instanceof ValidationError).toBe(true);
          return;
        }
        sentCount++;
        const path = sent[0]!.url.pathname;
        const ok = path === expectedPath(method.path!, id);
        if (!ok) escapes++;
        expect(ok ? 'same route' : `${method.name}(${JSON.stringify(id)}) sent ${path}`).toBe('same route');
      }),
      params(500),
    );
  }, FUZZ_TIMEOUT_MS);

  it.each([['.'], ['..'], [''], ['a\nb'], ['\u0000']])('%j is a ValidationError on every method, with nothing sent', async (id) => {
    for (const method of PATH_METHODS) {
      const { client, sent } = fuzzClient(() => Response.json({}));
      const settled = await settleWithin(() => method.call(client, id));
      expect(settled.kind === 'rejected' && settled.error instanceof ValidationError, method.name).toBe(true);
      expect(sent).toEqual([]);
    }
  });
});

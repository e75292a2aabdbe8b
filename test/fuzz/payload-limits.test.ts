// The body-size check every serverless route uses (queue and load-balanced): for any text, refused
// exactly when its UTF-8 bytes pass the limit, with the size in the message. The limit is scaled
// down here; test/serverless/payload-limits.test.ts checks the real ones on both sides.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { checkBodySize } from '../../src/validation.js';
import { counted, params } from './harness.js';

describe('fuzz: payload limits', () => {
  it('any text, any limit: refused exactly when its UTF-8 bytes pass the limit, naming the size', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\u0000', '"', '\\'), maxLength: 60 }),
        fc.integer({ min: 0, max: 200 }),
        counted('payload limits: body size', (text, limit) => {
          const bytes = Buffer.byteLength(text, 'utf8');
          let refused: unknown;
          try {
            checkBodySize('json', text, limit, 'a load-balanced endpoint');
          } catch (err) {
            refused = err;
          }
          if (bytes <= limit) {
            expect(refused).toBeUndefined();
          } else {
            expect(refused).toBeInstanceOf(ValidationError);
            expect((refused as Error).message).toContain(`${bytes} bytes`);
          }
        }),
      ),
      params(300),
    );
  });
});

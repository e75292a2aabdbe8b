import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exitStatusOf } from '../../src/cli/commands/pod-container.js';
import { params } from './harness.js';

// `pods exec` exits with its command's exit code: whatever the server answers, the CLI's status is
// one a shell can see (0–255), and it is 0 only when the command's code was 0.
describe('pods exec exit status', () => {
  it('property: any answered exit code maps to 0–255, and to 0 only for 0', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.integer({ min: -1, max: 512 }), fc.double()), (code) => {
        const status = exitStatusOf(code);
        expect(Number.isInteger(status) && status >= 0 && status <= 255).toBe(true);
        expect(status === 0).toBe(code === 0);
        if (Number.isInteger(code) && code >= 0 && code <= 255) expect(status).toBe(code);
      }),
      params(500),
    );
  });
});

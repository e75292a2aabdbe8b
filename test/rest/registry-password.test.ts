// A registry password is a secret like the key: rp.rest.registries.create registers it before the
// body leaves, so an answer that echoes it (a 422 quoting the body) never shows it in the error.
import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { captureError, TEST_API_KEY } from '../helpers.js';

describe('rp.rest.registries.create', () => {
  it('scrubs the password from an error that echoes the body', async () => {
    const password = 'reg-password-that-must-not-leak-0123456789';
    const rp = createRunpodClient({
      apiKey: TEST_API_KEY,
      fetch: async (_input, init) =>
        new Response(JSON.stringify({ title: 'Unprocessable Entity', status: 422, detail: `bad body: ${String(init?.body)}`, errors: [`$.password: ${password}`] }), {
          status: 422,
          headers: { 'content-type': 'application/problem+json' },
        }),
    });
    const err = await captureError(rp.rest.registries.create({ name: 'ghcr', username: 'me', password }));
    expect(err.name).toBe('ValidationError');
    expect(JSON.stringify(err) + String(err) + err.message).not.toContain(password);
    expect(JSON.stringify(err)).not.toContain(password.slice(5, 40));
  });
});

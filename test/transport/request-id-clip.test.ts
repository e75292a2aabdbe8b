// A request id longer than the 200 characters an error keeps is scrubbed before it is cut, so a key
// echoed across the cut leaves no piece of itself behind.
import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { captureError, TEST_API_KEY } from '../helpers.js';

describe('a long request id', () => {
  it('is scrubbed of the key before it is clipped', async () => {
    // The key starts 10 characters before the cut: clipping first would keep its first 10 characters.
    const id = `${'r'.repeat(190)}${TEST_API_KEY}${'s'.repeat(100)}`;
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, maxRetries: 0, fetch: async () => new Response('{"title":"Not Found","status":404}', { status: 404, headers: { 'content-type': 'application/problem+json', 'x-request-id': id } }) });
    const err = (await captureError(rp.rest.pods.get('p1'))) as Error & { requestId?: string };
    expect(err.requestId).toBeDefined();
    expect(err.requestId).not.toContain(TEST_API_KEY.slice(0, 10));
    expect(JSON.stringify(err)).not.toContain(TEST_API_KEY.slice(0, 10));
  });
});

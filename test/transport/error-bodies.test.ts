import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/client.js';
import { ApiError, BadRequestError, GraphQLResponseError, MAX_MESSAGE_CHARS, PossiblyCreatedError, ServerError, ValidationError } from '../../src/errors.js';
import { ERROR_BODY_LIMITS } from '../../src/transport/error-mapping.js';
import { captureError, recordingFetch, TEST_API_KEY } from '../helpers.js';

function nested(levels: number): string {
  return `{"errors":${'['.repeat(levels)}1${']'.repeat(levels)}}`;
}

const answer = (status: number, text: string) => () => new Response(text, { status, headers: { 'content-type': 'application/json' } });

describe('error bodies are bounded, and an HTTP error stays one', () => {
  it('a 5,000-level nested errors body on a 500 is a ServerError, retried only as a 500', async () => {
    const { fetch, calls } = recordingFetch(answer(500, nested(5_000)));
    const client = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 0 });
    const err = await captureError<ServerError>(client.rest.pods.list());
    expect(err).toBeInstanceOf(ServerError);
    expect(err.status).toBe(500);
    expect(calls).toHaveLength(1);
  });

  it('a definite 422 with a deep body on a create is a ValidationError, never PossiblyCreatedError', async () => {
    const { fetch, calls } = recordingFetch(answer(422, nested(5_000)));
    const client = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 2 });
    const err = await captureError(client.rest.pods.create({ name: 'p', image: 'img', gpu: { id: 'NVIDIA GeForce RTX 4090', count: 1 } }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).not.toBeInstanceOf(PossiblyCreatedError);
    // The GPU catalog read that checks gpu.id first is a GET; the create itself went out once.
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });

  it('a GET with a deep 400 body is sent once', async () => {
    const { fetch, calls } = recordingFetch(answer(400, nested(5_000)));
    const client = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError<GraphQLResponseError>(client.rest.pods.list());
    expect(err).toBeInstanceOf(GraphQLResponseError);
    expect(err.status).toBe(400);
    expect(calls).toHaveLength(1);
  });

  it('a 20 MB detail gives a message of a few KB and a bounded body', async () => {
    const detail = 'd'.repeat(20_000_000);
    const { fetch } = recordingFetch(answer(400, JSON.stringify({ detail })));
    const client = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError<ApiError>(client.rest.pods.list());
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS + 20);
    expect(JSON.stringify(err).length).toBeLessThan(20_000);
  });

  it('a body of 10,000 keys and a 10,000-item list keeps their first entries', async () => {
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    const { fetch } = recordingFetch(answer(400, JSON.stringify({ error: 'bad', wide, list: Array.from({ length: 10_000 }, (_, i) => i) })));
    const client = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError<ApiError>(client.rest.pods.list());
    const body = err.body as { wide: object; list: unknown[] };
    expect(Object.keys(body.wide).length).toBeLessThanOrEqual(ERROR_BODY_LIMITS.entries);
    expect(body.list.length).toBeLessThanOrEqual(ERROR_BODY_LIMITS.entries + 1);
    expect(err.message).toContain('bad');
  });

  it('an error answer over 256 KB is kept as a snippet, still an HTTP error', async () => {
    const { fetch } = recordingFetch(answer(400, JSON.stringify({ error: 'bad', pad: 'x'.repeat(300_000) })));
    const err = await captureError<ApiError>(createRunpodClient({ apiKey: TEST_API_KEY, fetch }).rest.pods.list());
    expect(err).toBeInstanceOf(BadRequestError);
    expect(String(err.body).length).toBeLessThanOrEqual(300);
  });

  it('a __proto__ key cannot inject fields into err.body, nor spoof GraphQLResponseError.data', async () => {
    const { fetch } = recordingFetch(answer(400, '{"__proto__":{"isAdmin":true,"data":{"spoofed":1}},"errors":[{"message":"no","__proto__":{"isAdmin":true}}]}'));
    const client = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const err = await captureError<GraphQLResponseError>(client.rest.pods.list());
    expect(err).toBeInstanceOf(GraphQLResponseError);
    expect(err.data).toBeUndefined();
    expect((err.errors[0] as unknown as { isAdmin?: unknown }).isAdmin).toBeUndefined();
    const plain = recordingFetch(answer(400, '{"error":"x","__proto__":{"isAdmin":true}}'));
    const err2 = await captureError<ApiError>(createRunpodClient({ apiKey: TEST_API_KEY, fetch: plain.fetch }).rest.pods.list());
    expect((err2.body as { isAdmin?: unknown }).isAdmin).toBeUndefined();
  });
});

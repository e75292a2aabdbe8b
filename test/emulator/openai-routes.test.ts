import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, DEFAULT_SERVERLESS_LIMITS, EMULATOR_API_KEY, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';

// The emulator's OpenAI-compatible routes at the wire: what any OpenAI client would see.
let emulator: Emulator | undefined;
afterEach(() => {
  emulator?.dispose();
  emulator = undefined;
});

function setup(options: EmulatorOptions = {}) {
  emulator = createEmulator(options);
  const base = emulator.clientOptions().serverlessUrl;
  const e = emulator;
  const call = async (endpointId: string, route: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${EMULATOR_API_KEY}` }) => {
    const res = await e.fetch(
      new Request(`${base}/${endpointId}/openai/v1${route}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, type: res.headers.get('content-type') ?? '', text, json };
  };
  return { emulator: e, call };
}

/** The `data:` payloads of an SSE body. */
const events = (text: string) => text.split('\n\n').filter(Boolean).map((e) => e.replace(/^data: /, ''));

describe('OpenAI-compatible routes', () => {
  it('are limited to 2000 per 10 s per endpoint by default, as the platform', () => {
    expect(DEFAULT_SERVERLESS_LIMITS.openai).toEqual({ requests: 2000, intervalMs: 10_000 });
  });

  it('enforce the /openai/* limit per endpoint, and it refills on the clock', async () => {
    const { emulator, call } = setup({ clock: 'manual', serverlessLimits: { routes: { openai: { requests: 3, intervalMs: 10_000 } } } });
    for (let i = 0; i < 3; i++) expect((await call('openai-echo', '/models')).status).toBe(200);
    const refused = await call('openai-echo', '/models');
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ type: 'rate_limit_error', message: expect.stringMatching(/\/openai\/\*/) });
    // Another endpoint has its own bucket; the queue routes are not counted against it.
    expect((await call('echo', '/models')).status).toBe(200);
    await emulator.clock.advance(3_400);
    expect((await call('openai-echo', '/models')).status).toBe(200);
    expect((await call('openai-echo', '/models')).status).toBe(429);
  });

  it('need the key, and answer 404 for an unknown endpoint or route', async () => {
    const { call } = setup();
    expect((await call('openai-echo', '/models', undefined, {})).status).toBe(401);
    expect((await call('openai-echo', '/models', undefined, { authorization: 'Bearer rpa_wrong' })).status).toBe(401);
    const missing = await call('nope', '/models');
    expect(missing.status).toBe(404);
    expect(missing.json.error.type).toBe('not_found_error');
    expect((await call('openai-echo', '/embeddings', { input: 'x' })).status).toBe(404);
  });

  it('refuse a body that is not JSON with 400, in OpenAI’s error shape', async () => {
    const { call } = setup();
    const bad = await call('openai-echo', '/chat/completions', '{"messages": [');
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: null } });
    const noMessages = await call('openai-echo', '/chat/completions', { model: 'm' });
    expect(noMessages.status).toBe(400);
    expect(noMessages.json.error.message).toMatch(/messages/);
  });

  it('answer a raising handler with 500, and end a failing stream with an error event', async () => {
    const { emulator, call } = setup();
    emulator.handlers.register('broken-llm', () => {
      throw new Error('CUDA out of memory');
    });
    const failed = await call('broken-llm', '/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(failed.status).toBe(500);
    expect(failed.json.error).toMatchObject({ type: 'server_error', message: 'CUDA out of memory' });
    const stream = await call('broken-llm', '/chat/completions', { model: 'm', stream: true, messages: [] });
    expect(stream.status).toBe(200);
    const last = JSON.parse(events(stream.text).at(-1)!);
    expect(last.error.type).toBe('server_error');
    expect(stream.text).not.toContain('[DONE]');
  });

  it('stream what the handler streams, text as it is, or its output as one event', async () => {
    const { emulator, call } = setup();
    emulator.handlers.register('sse-text', (_input, ctx) => {
      ctx.stream('data: {"raw":1}\n\n');
      ctx.stream({ n: 2 });
      return 'ignored';
    });
    emulator.handlers.register('plain', () => ({ whole: true }));
    const streamed = await call('sse-text', '/completions', { prompt: 'x', stream: true });
    expect(streamed.type).toMatch(/^text\/event-stream/);
    expect(events(streamed.text)).toEqual(['{"raw":1}', '{"n":2}', '[DONE]']);
    const plain = await call('plain', '/completions', { prompt: 'x', stream: true });
    expect(events(plain.text)).toEqual(['{"whole":true}', '[DONE]']);
  });

  it('openai-echo answers deterministically: the last message, word counts as usage, its model name', async () => {
    const { call } = setup();
    const body = { model: 'anything', messages: [{ role: 'user', content: 'first' }, { role: 'user', content: [{ type: 'text', text: 'the last one' }] }], max_tokens: 2 };
    const a = await call('openai-echo', '/chat/completions', body);
    const b = await call('openai-echo', '/chat/completions', body);
    expect(a.json.choices).toEqual(b.json.choices);
    expect(a.json).toMatchObject({
      object: 'chat.completion',
      model: 'runpod-emulator/openai-echo',
      choices: [{ message: { role: 'assistant', content: 'the last' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 },
    });
    const chunks = events((await call('openai-echo', '/completions', { prompt: 'x y', stream: true })).text);
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.slice(0, -1).map((c) => JSON.parse(c).choices[0].text).join('')).toBe('x y');
  });
});

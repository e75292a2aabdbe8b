import { inspect } from 'node:util';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRunpodClient, OPENAI_API_KEY_PLACEHOLDER, RateLimitError, RunpodError, TimeoutError, ValidationError, type RunpodClientOptions } from '../../src/index.js';
import { createEmulator, OPENAI_ECHO_MODEL, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { assertNoSecret, TEST_API_KEY } from '../helpers.js';

// The real `openai` SDK, pointed at the emulator through `rp.endpoint(id).openai()`.
let emulator: Emulator | undefined;
afterEach(() => {
  emulator?.dispose();
  emulator = undefined;
});

interface Sent {
  url: string;
  authorization: string | null;
}

function setup(options: EmulatorOptions = {}, client: Partial<RunpodClientOptions> = {}) {
  emulator = createEmulator({ apiKeys: [TEST_API_KEY], ...options });
  const base = emulator.clientOptions();
  const sent: Sent[] = [];
  const rp = createRunpodClient({
    ...base,
    fetch: (input, init) => {
      sent.push({ url: String(input), authorization: new Headers(init?.headers).get('authorization') });
      return base.fetch!(input, init);
    },
    ...client,
  });
  return { emulator, rp, sent };
}

/** The SDK wraps what `fetch` throws: the cause is this client's typed error. */
async function sdkFailure(work: Promise<unknown>): Promise<{ sdk: Error; cause: unknown }> {
  try {
    await work;
  } catch (err) {
    expect(err).toBeInstanceOf(OpenAI.APIError);
    assertNoSecret(err);
    return { sdk: err as Error, cause: (err as Error).cause };
  }
  throw new Error('expected the call to fail');
}

describe('rp.endpoint(id).openai() with the openai SDK', () => {
  it('chat completions: the answer of the endpoint’s worker, with the key sent by fetch alone', async () => {
    const { rp, sent } = setup();
    const options = rp.endpoint('openai-echo').openai();
    expect(options.apiKey).toBe(OPENAI_API_KEY_PLACEHOLDER);
    expect(options.baseURL).toBe(`${emulator!.clientOptions().serverlessUrl}/openai-echo/openai/v1`);
    const openai = new OpenAI(options);
    const completion = await openai.chat.completions.create({
      model: OPENAI_ECHO_MODEL,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello from the emulator' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(OPENAI_ECHO_MODEL);
    expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'hello from the emulator' });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 6, completion_tokens: 4, total_tokens: 10 });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toMatch(/\/queue\/v2\/openai-echo\/openai\/v1\/chat\/completions$/);
    // One Authorization header, the real key's; the SDK's placeholder went nowhere.
    expect(sent[0]!.authorization).toBe(`Bearer ${TEST_API_KEY}`);
  });

  it('each request reaches the handler as a job carrying openai_route and openai_input', async () => {
    const { emulator, rp } = setup();
    const seen: unknown[] = [];
    emulator.handlers.register('my-vllm', (input) => {
      seen.push(input);
      return { id: 'x', object: 'chat.completion', created: 0, model: 'mine', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] };
    });
    const openai = new OpenAI(rp.endpoint('my-vllm').openai());
    const answer = await openai.chat.completions.create({ model: 'mine', messages: [{ role: 'user', content: 'hi' }], temperature: 0 });
    expect(answer.choices[0]!.message.content).toBe('ok');
    expect(seen).toEqual([{ openai_route: '/v1/chat/completions', openai_input: { model: 'mine', messages: [{ role: 'user', content: 'hi' }], temperature: 0 } }]);
  });

  it('completions, cut to max_tokens', async () => {
    const { rp } = setup();
    const openai = new OpenAI(rp.endpoint('openai-echo').openai());
    const completion = await openai.completions.create({ model: OPENAI_ECHO_MODEL, prompt: 'one two three four', max_tokens: 3 });
    expect(completion.object).toBe('text_completion');
    expect(completion.choices[0]).toMatchObject({ text: 'one two three', finish_reason: 'length' });
    expect(completion.usage).toEqual({ prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 });
  });

  it('streams chat and completions as Server-Sent Events, ending with [DONE]', async () => {
    const { rp } = setup();
    const openai = new OpenAI(rp.endpoint('openai-echo').openai());
    const chat = await openai.chat.completions.create({ model: OPENAI_ECHO_MODEL, messages: [{ role: 'user', content: 'streamed word by word' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    const finishes: Array<string | null> = [];
    let usage: unknown;
    for await (const chunk of chat) {
      expect(chunk.object).toBe('chat.completion.chunk');
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('streamed word by word');
    expect(finishes.at(-1)).toBe('stop');
    expect(usage).toEqual({ prompt_tokens: 4, completion_tokens: 4, total_tokens: 8 });

    const completion = await openai.completions.create({ model: OPENAI_ECHO_MODEL, prompt: 'a b c', stream: true });
    const pieces: string[] = [];
    for await (const chunk of completion) pieces.push(chunk.choices[0]?.text ?? '');
    expect(pieces.join('')).toBe('a b c');
    expect(pieces.length).toBeGreaterThan(2);
  });

  it('streams over loopback HTTP too', async () => {
    emulator = createEmulator({ apiKeys: [TEST_API_KEY] });
    const server = await listen(emulator, { port: 0, host: '127.0.0.1' });
    try {
      const rp = createRunpodClient(server.clientOptions());
      const openai = new OpenAI(rp.endpoint('openai-echo').openai());
      const stream = await openai.chat.completions.create({ model: OPENAI_ECHO_MODEL, messages: [{ role: 'user', content: 'over the wire' }], stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('over the wire');
      const models = await openai.models.list();
      expect(models.data.map((m) => m.id)).toEqual([OPENAI_ECHO_MODEL]);
    } finally {
      await server.close();
    }
  });

  it('lists the served model', async () => {
    const { rp } = setup();
    const openai = new OpenAI(rp.endpoint('openai-echo').openai());
    const ids: string[] = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual([OPENAI_ECHO_MODEL]);
  });

  it('a 429 from the /openai/* limit is this client’s RateLimitError', async () => {
    const { rp } = setup({ serverlessLimits: { routes: { openai: { requests: 2, intervalMs: 10_000 } } } }, { rateLimits: false, maxRetries: 0 });
    const openai = new OpenAI(rp.endpoint('openai-echo').openai());
    const ask = () => openai.chat.completions.create({ model: OPENAI_ECHO_MODEL, messages: [{ role: 'user', content: 'x' }] });
    await ask();
    await ask();
    const { cause } = await sdkFailure(ask());
    expect(cause).toBeInstanceOf(RateLimitError);
    expect((cause as RateLimitError).status).toBe(429);
    expect((cause as RateLimitError).message).toMatch(/\/openai\/\* limit/);
  });

  it('a 429 with Retry-After is retried by this client, once, and then answered', async () => {
    const { emulator, rp, sent } = setup({}, { maxRetries: 2 });
    const fault = emulator.faults.inject({ match: 'POST /queue/v2/openai-echo/openai/v1/chat/completions', fault: { type: 'status', status: 429, retryAfterSeconds: 0 } });
    const openai = new OpenAI(rp.endpoint('openai-echo').openai());
    const answer = await openai.chat.completions.create({ model: OPENAI_ECHO_MODEL, messages: [{ role: 'user', content: 'again' }] });
    expect(answer.choices[0]!.message.content).toBe('again');
    expect(fault.hits()).toBe(1);
    // The SDK's own retries are off (maxRetries: 0 in the options), so this client's one retry is all.
    expect(sent).toHaveLength(2);
  });

  it('the helper’s timeoutMs is a deadline that holds under the manual clock', async () => {
    const { emulator, rp } = setup({ clock: 'manual' });
    emulator.handlers.register('slow-llm', async (_input, ctx) => {
      await ctx.sleep(600_000);
      return {};
    });
    const openai = new OpenAI(rp.endpoint('slow-llm').openai({ timeoutMs: 300 }));
    const started = Date.now();
    // The SDK reports any failure whose text says "timed out" as its own timeout error, without a cause.
    const { sdk } = await sdkFailure(openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }));
    expect(sdk).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(Date.now() - started).toBeLessThan(3000);
    // Called directly, the helper's fetch throws this client's TimeoutError.
    const { fetch, baseURL } = rp.endpoint('slow-llm').openai({ timeoutMs: 300 });
    await expect(fetch(`${baseURL}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [] }) })).rejects.toBeInstanceOf(TimeoutError);
    // The SDK's own timeout ends it as well.
    const sdkTimeout = await sdkFailure(new OpenAI(rp.endpoint('slow-llm').openai()).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, { timeout: 300 }));
    expect(sdkTimeout.sdk).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it('the key is in no object the user can read', async () => {
    const { rp } = setup({}, { maxRetries: 0 });
    const options = rp.endpoint('openai-echo').openai();
    assertNoSecret(options);
    expect(JSON.stringify(options)).not.toContain(TEST_API_KEY);
    expect(inspect(options, { showHidden: true, depth: 20, getters: true })).not.toContain(TEST_API_KEY);
    expect(Object.isFrozen(options)).toBe(true);
    const openai = new OpenAI(options);
    assertNoSecret(openai);
    expect(inspect(openai, { showHidden: true, depth: 6 })).not.toContain(TEST_API_KEY);
    // A failure's error, wrapped by the SDK, does not carry it either.
    const { cause } = await sdkFailure(new OpenAI(rp.endpoint('no-such-endpoint').openai()).models.list());
    expect(cause).toBeInstanceOf(RunpodError);
    assertNoSecret(cause);
  });

  it('never sends the key anywhere but this endpoint’s OpenAI routes', async () => {
    const { rp, sent } = setup();
    const { fetch, baseURL } = rp.endpoint('openai-echo').openai();
    for (const url of ['https://evil.example/v1/chat/completions', `${baseURL}/../../sleep/run`, `${baseURL.replace('openai-echo', 'other')}/models`, baseURL, `${baseURL}x/models`]) {
      await expect(fetch(url, { method: 'POST', body: '{}' })).rejects.toBeInstanceOf(ValidationError);
    }
    await expect(fetch(`${baseURL}/models`, { method: 'POST', body: new FormData() as unknown as string })).rejects.toBeInstanceOf(ValidationError);
    expect(sent).toHaveLength(0);
  });

  it('refuses bad options before anything is sent', () => {
    const { rp } = setup();
    expect(() => rp.endpoint('openai-echo').openai({ timeoutMs: -1 })).toThrow(ValidationError);
    // No key for RunPod's own serverless host (a loopback emulator may be keyless since issue 44).
    vi.stubEnv('RUNPOD_API_KEY', '');
    try {
      expect(() => createRunpodClient({ apiKey: undefined }).endpoint('openai-echo').openai()).toThrow(ValidationError);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('a completion is never sent twice: with maxRetries: 3 on the SDK and a 500 answer, exactly 1 POST; the resends are a ValidationError', async () => {
    const { emulator, rp, sent } = setup();
    const failures = emulator.faults.inject({ match: 'POST /queue/v2/openai-echo/openai/**', fault: { type: 'status', status: 500 }, times: 10 });
    const openai = new OpenAI({ ...rp.endpoint('openai-echo').openai(), maxRetries: 3 });
    const { cause } = await sdkFailure(openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
    expect(failures.hits()).toBe(1);
    expect(sent.filter((s) => s.url.endsWith('/chat/completions'))).toHaveLength(1);
    // The SDK's last attempt is a refused resend: it names the option to fix.
    expect(cause).toBeInstanceOf(ValidationError);
    expect(String((cause as Error).message)).toMatch(/maxRetries: 0/);
    // GET /models is safe to resend: the SDK may retry it.
    emulator.faults.inject({ match: 'GET /queue/v2/openai-echo/openai/**', fault: { type: 'status', status: 500 }, times: 1 });
    expect((await openai.models.list()).data[0]?.id).toBe(OPENAI_ECHO_MODEL);
  }, 30_000);
});

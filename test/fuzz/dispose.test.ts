// `emulator.dispose()` at a random moment of each kind of held request, whatever its state: held by
// a latency fault, waiting on a job, streaming, finished, or already given up by its caller. Every
// request and every body must end within a bounded number of event-loop turns (no time is
// measured), nothing may stay held, and what arrives afterwards is answered 503. A caller who hangs
// up without dispose ends its hold too. (Before this, an OpenAI stream held by a latency fault
// looped until the heap ran out, and a log stream never ended.)
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEmulator, EMULATOR_API_KEY, IN_PROCESS_BASE, type Emulator } from '../../src/emulator/index.js';
import { counted, FUZZ_TIMEOUT_MS, params } from './harness.js';

const KINDS = ['run', 'runsync', 'stream', 'openai-chat', 'openai-chat-stream', 'logs', 'worker-logs', 'load-balanced-cold', 'load-balanced-busy'] as const;
type Kind = (typeof KINDS)[number];

const auth = { authorization: `Bearer ${EMULATOR_API_KEY}`, 'content-type': 'application/json' };
const queue = `${IN_PROCESS_BASE}/queue/v2`;

/** One macrotask turn: every promise that was ready has run by then. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** True when `promise` settles within `turns` macrotask turns. Counts turns, never time. */
async function settlesWithin(promise: Promise<unknown>, turns: number): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < turns && !settled; i++) await turn();
  return settled;
}

const post = (url: string, body: unknown, signal: AbortSignal) => new Request(url, { method: 'POST', headers: auth, body: JSON.stringify(body), signal });
const get = (url: string, signal: AbortSignal) => new Request(url, { headers: auth, signal });

/** Sets up what the kind needs and returns the request that will be held. */
async function prepare(emulator: Emulator, kind: Kind, signal: AbortSignal): Promise<Request> {
  switch (kind) {
    case 'run':
      return post(`${queue}/sleep/run`, { input: { ms: 60_000 } }, signal);
    case 'runsync':
      return post(`${queue}/sleep/runsync?wait=60000`, { input: { ms: 60_000 } }, signal);
    case 'stream': {
      const res = await emulator.fetch(post(`${queue}/stream/run`, { input: { chunks: 3, intervalMs: 30_000 } }, new AbortController().signal));
      const { id } = (await res.json()) as { id: string };
      return get(`${queue}/stream/stream/${id}?wait=60000`, signal);
    }
    case 'openai-chat':
    case 'openai-chat-stream':
      return post(`${queue}/slow-openai/openai/v1/chat/completions`, { model: 'm', stream: kind === 'openai-chat-stream', messages: [{ role: 'user', content: 'one two three' }] }, signal);
    case 'logs': {
      const res = await emulator.fetch(post(`${IN_PROCESS_BASE}/v2/pods`, { name: 'p', image: 'me/app:1', cpu: { id: 'cpu3c', vcpuCount: 4 } }, new AbortController().signal));
      const { id } = (await res.json()) as { id: string };
      return get(`${IN_PROCESS_BASE}/v2/pods/${id}/logs`, signal);
    }
    case 'worker-logs': {
      const endpointId = emulator.endpoints.create({ handler: 'echo', workers: { min: 1, max: 1 } });
      await emulator.clock.run(turn());
      const res = await emulator.fetch(get(`${IN_PROCESS_BASE}/v2/serverless/${endpointId}/workers`, new AbortController().signal));
      const { workers } = (await res.json()) as { workers: Array<{ id: string }> };
      return get(`${IN_PROCESS_BASE}/v2/serverless/${endpointId}/workers/${workers[0]!.id}/logs`, signal);
    }
    case 'load-balanced-cold':
      return get(`${IN_PROCESS_BASE}/lb/cold/ping`, signal);
    case 'load-balanced-busy':
      return post(`${IN_PROCESS_BASE}/lb/busy/work`, { n: 1 }, signal);
  }
}

function newEmulator(clock: 'real' | 'manual' | 'auto'): Emulator {
  const emulator = createEmulator({ clock });
  // An OpenAI worker that takes its time: each word comes a minute after the last.
  emulator.handlers.register('slow-openai', async (input, ctx) => {
    const body = (input as { openai_input: { stream?: boolean } }).openai_input;
    for (const word of ['one', 'two', 'three']) {
      await ctx.sleep(60_000);
      if (body.stream) ctx.stream({ choices: [{ index: 0, delta: { content: word } }] });
    }
    return { choices: [{ index: 0, message: { role: 'assistant', content: 'one two three' } }] };
  });
  emulator.loadBalanced.define({ id: 'cold', coldStartMs: 100_000, routes: { 'GET /ping': () => ({ pong: true }) } });
  emulator.loadBalanced.define({
    id: 'busy',
    coldStartMs: 0,
    routes: {
      'POST /work': async (_req, ctx) => {
        await ctx.sleep(200_000);
        return { done: true };
      },
    },
  });
  return emulator;
}

/** The request's answer and its body, read to the end; whatever happens, the promise settles. */
async function answerAndBody(emulator: Emulator, request: Request): Promise<void> {
  const res = await emulator.fetch(request);
  const reader = res.body?.getReader();
  if (!reader) return;
  for (;;) if ((await reader.read()).done) return;
}

const TURNS = 200;

describe('fuzz: dispose() ends every held request', () => {
  it('at a random moment of each kind of held request, in any state: everything ends, nothing stays held, later requests get 503', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...KINDS),
        fc.constantFrom('real', 'manual', 'auto') as fc.Arbitrary<'real' | 'manual' | 'auto'>,
        fc.option(fc.constantFrom(1, 60_000), { nil: undefined }),
        fc.integer({ min: 0, max: 12 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 3 }),
        counted('emulator: dispose during held requests', async (kind, clock, latencyMs, turnsBefore, callerAbortsFirst, turnsBetween) => {
          const emulator = newEmulator(clock);
          const caller = new AbortController();
          try {
            const request = await prepare(emulator, kind, caller.signal);
            if (latencyMs !== undefined) emulator.faults.inject({ match: '* /**', fault: { type: 'latency', ms: latencyMs }, times: 1 });
            const done = answerAndBody(emulator, request);
            done.catch(() => undefined);
            for (let i = 0; i < turnsBefore; i++) await turn();
            if (callerAbortsFirst) {
              caller.abort();
              for (let i = 0; i < turnsBetween; i++) await turn();
            }
            emulator.dispose();
            expect(await settlesWithin(done, TURNS), `${kind}: the answer or its body still open after dispose()`).toBe(true);
            const later = await emulator.fetch(new Request(`${queue}/echo/run`, { method: 'POST', headers: auth, body: '{"input":1}' }));
            expect(later.status, 'a request after dispose()').toBe(503);
            // Let the handlers' own endings run (an aborted sleep settles a turn later).
            for (let i = 0; i < 3; i++) await turn();
            expect(emulator.inspect.held(), kind).toMatchObject({ requests: 0, sleeps: 0 });
          } finally {
            caller.abort();
            emulator.dispose();
          }
        }),
      ),
      params(60),
    );
  }, FUZZ_TIMEOUT_MS * 2);

  it('a caller who hangs up ends its hold without dispose(), and an OpenAI request takes its job with it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...KINDS.filter((k) => k !== 'run')),
        fc.integer({ min: 0, max: 12 }),
        fc.boolean(),
        counted('emulator: caller hangs up during held requests', async (kind, turnsBefore, abortBeforeSending) => {
          const emulator = newEmulator('real');
          const caller = new AbortController();
          try {
            const request = await prepare(emulator, kind, caller.signal);
            if (abortBeforeSending) caller.abort();
            const done = answerAndBody(emulator, request);
            done.catch(() => undefined);
            for (let i = 0; i < turnsBefore; i++) await turn();
            caller.abort();
            expect(await settlesWithin(done, TURNS), kind).toBe(true);
            // The emulator's side lets go too: an OpenAI request's job is cancelled, and no hold is left.
            for (let i = 0; i < 3; i++) await turn();
            if (kind.startsWith('openai')) {
              const health = await emulator.fetch(get(`${queue}/slow-openai/health`, new AbortController().signal));
              const { jobs } = (await health.json()) as { jobs: Record<string, number> };
              expect(jobs.inProgress! + jobs.inQueue!, `${kind}: the abandoned job still runs`).toBe(0);
            }
            let held = emulator.inspect.held();
            for (let i = 0; i < TURNS && held.requests > 0; i++, held = emulator.inspect.held()) await turn();
            expect(held.requests, `${kind}: holds left after the caller hung up`).toBe(0);
          } finally {
            emulator.dispose();
          }
        }),
      ),
      params(30),
    );
  }, FUZZ_TIMEOUT_MS * 2);
});

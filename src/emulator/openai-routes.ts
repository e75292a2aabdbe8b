import { Hono, type Context } from 'hono';
import type { EmulatorClock } from './clock.js';
import { readWithin } from './http-guards.js';
import { isTerminal, type EmulatedJob, type HandlerContext, type JobHandler, type ServerlessQueue } from './queue.js';
import type { EmulatorEnv } from './rest-v2/context.js';
import type { ServerlessLimiter } from './serverless-limits.js';

type C = Context<EmulatorEnv>;

/** Largest OpenAI request body, as `/runsync`. */
const OPENAI_BODY_LIMIT = 20 * 1024 * 1024;
/** How long the platform holds a non-streaming OpenAI request for its job. */
const OPENAI_HOLD_MS = 300_000;
/** How long each wait for more stream chunks lasts before looking again. */
const STREAM_POLL_MS = 10_000;

/** The model name `openai-echo` serves (the worker's `MODEL_NAME`). */
export const OPENAI_ECHO_MODEL = 'runpod-emulator/openai-echo';

type OpenAIErrorType = 'invalid_request_error' | 'rate_limit_error' | 'server_error' | 'not_found_error' | 'timeout_error';

/** An error answer in OpenAI's shape, which the `openai` SDK reads. */
function openaiError(c: C, status: number, message: string, type: OpenAIErrorType): Response {
  return c.json({ error: { message, type, param: null, code: null } }, status as 400);
}

/**
 * `{serverless}/{endpointId}/openai/v1/…`: chat completions, completions (both may stream as
 * Server-Sent Events) and models. Each request becomes a job whose input carries `openai_route`
 * and `openai_input`, handed to the endpoint's worker as the platform does; what the handler
 * returns (or streams) is the answer.
 */
export function openaiRoutes(queue: ServerlessQueue, limiter: ServerlessLimiter): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();

  const serve = async (c: C, route: string, body: unknown): Promise<Response> => {
    const account = c.get('account');
    const endpointId = c.req.param('endpointId')!;
    const endpoint = queue.endpointFor(account, endpointId);
    if (!endpoint) return openaiError(c, 404, `endpoint ${endpointId} not found`, 'not_found_error');
    const release = limiter.acquire(`${account.id}/${endpoint.id}`, 'openai');
    if (!release) return openaiError(c, 429, `Too Many Requests: the /openai/* limit of endpoint ${endpoint.id} is reached`, 'rate_limit_error');
    let releaseOnEnd = false;
    try {
      if (limiter.isQueueFull(queue.queuedCount(account, endpoint), endpoint.workersMax)) {
        return openaiError(c, 429, `Too Many Requests: the queue of endpoint ${endpoint.id} is full`, 'rate_limit_error');
      }
      const job = queue.submit(account, endpoint, { input: { openai_route: route, openai_input: body } }, true);
      // The job is this request's alone (its id is never shown): a caller who hangs up ends it.
      const abandon = () => {
        if (!isTerminal(job.status) && !job.deleted) queue.cancel(account, endpoint, job);
      };
      const streaming = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
      if (streaming) {
        releaseOnEnd = true;
        return streamAnswer(c, queue, job, release, abandon);
      }
      await queue.waitFor(job, OPENAI_HOLD_MS, c.req.raw.signal);
      if (c.req.raw.signal?.aborted) abandon();
      return finalAnswer(c, job);
    } finally {
      if (!releaseOnEnd) release();
    }
  };

  const readBody = async (c: C): Promise<{ body: unknown } | Response> => {
    const raw = c.req.raw;
    let text: string;
    if (raw.body && !raw.bodyUsed) {
      const bytes = await readWithin(raw.body, OPENAI_BODY_LIMIT);
      if (!bytes) return openaiError(c, 413, `request body is larger than ${OPENAI_BODY_LIMIT} bytes`, 'invalid_request_error');
      text = new TextDecoder().decode(bytes);
    } else {
      text = await c.req.text();
    }
    try {
      return { body: JSON.parse(text) as unknown };
    } catch {
      return openaiError(c, 400, 'request body is not valid JSON', 'invalid_request_error');
    }
  };

  for (const route of ['/v1/chat/completions', '/v1/completions']) {
    app.post(`/:endpointId/openai${route}`, async (c) => {
      const read = await readBody(c);
      if (read instanceof Response) return read;
      return serve(c, route, read.body);
    });
  }
  app.get('/:endpointId/openai/v1/models', (c) => serve(c, '/v1/models', null));
  app.all('/:endpointId/openai/*', (c) => openaiError(c, 404, `no OpenAI route ${c.req.method} ${c.req.path.replace(/^.*\/openai/, '')}`, 'not_found_error'));
  return app;
}

function finalAnswer(c: C, job: EmulatedJob): Response {
  switch (job.status) {
    case 'COMPLETED':
      return c.json((job.output ?? null) as object);
    case 'FAILED': {
      // Returned `{ error }`: the request was refused; raised: the worker broke.
      const raised = job.error !== undefined && job.error.startsWith('{"error_type"');
      const message = raised ? ((JSON.parse(job.error!) as { error_message?: string }).error_message ?? 'the worker failed') : (job.error ?? 'the worker failed');
      return openaiError(c, raised ? 500 : 400, message, raised ? 'server_error' : 'invalid_request_error');
    }
    case 'CANCELLED':
      return openaiError(c, 500, `job ${job.id} was cancelled`, 'server_error');
    case 'TIMED_OUT':
      return openaiError(c, 500, `job ${job.id} timed out on the worker`, 'timeout_error');
    default:
      return openaiError(c, 504, `job ${job.id} is still ${job.status}; no answer in time`, 'timeout_error');
  }
}

/**
 * One SSE event per chunk the handler streams: objects as JSON, text as it is; then `[DONE]`.
 * The stream ends whatever happens: the job ends, the caller hangs up (before or after the stream
 * starts: the job is cancelled then) or the emulator is disposed.
 */
function streamAnswer(c: C, queue: ServerlessQueue, job: EmulatedJob, release: () => void, abandon: () => void): Response {
  const hold = queue.lifetime.hold(c.req.raw.signal);
  const encoder = new TextEncoder();
  const event = (data: unknown) => {
    if (typeof data === 'string') return data.startsWith('data:') ? (data.endsWith('\n\n') ? data : `${data}\n\n`) : `data: ${data}\n\n`;
    return `data: ${JSON.stringify(data)}\n\n`;
  };
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let sent = 0;
      try {
        // Each turn waits on the queue; a turn that cannot wait (the hold has ended) is the last.
        while (!hold.signal.aborted) {
          const page = await queue.drain(job, STREAM_POLL_MS, hold.signal);
          if (hold.signal.aborted) break;
          for (const chunk of page.stream) {
            sent += 1;
            controller.enqueue(encoder.encode(event(chunk.output)));
          }
          if (!isTerminal(page.status) && !job.deleted) continue;
          if (job.status === 'COMPLETED') {
            // A handler that streamed nothing answers with its output, as one event.
            if (sent === 0 && job.output !== undefined) controller.enqueue(encoder.encode(event(job.output)));
            controller.enqueue(encoder.encode('data: [DONE]\n\n'));
          } else {
            controller.enqueue(encoder.encode(event({ error: { message: job.error ?? `job ${job.id} ended ${job.status}`, type: 'server_error', param: null, code: null } })));
          }
          break;
        }
      } finally {
        if (cancelled || c.req.raw.signal?.aborted) abandon();
        hold.release();
        release();
        try {
          controller.close();
        } catch {
          // The reader already cancelled.
        }
      }
    },
    cancel() {
      cancelled = true;
      // Ends the wait under way; the loop above then cancels the job and lets everything go.
      hold.end();
    },
  });
  return c.body(stream, 200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
}

// ---- the ready-made OpenAI-style worker ----------------------------------------------------------

interface ChatMessage {
  role?: unknown;
  content?: unknown;
}

const words = (text: string): string[] => text.match(/\S+\s*/g) ?? [];
const tokenCount = (text: string): number => words(text).length;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  // The array form: [{ type: 'text', text }, …].
  if (Array.isArray(content)) return content.map((part) => (typeof (part as { text?: unknown })?.text === 'string' ? (part as { text: string }).text : '')).join('');
  return '';
}

/** The reply, cut to `max_tokens` words when asked. */
function reply(text: string, maxTokens: unknown): { pieces: string[]; finish: 'stop' | 'length' } {
  const pieces = words(text);
  const max = typeof maxTokens === 'number' && Number.isInteger(maxTokens) && maxTokens > 0 ? maxTokens : undefined;
  if (max !== undefined && pieces.length > max) return { pieces: pieces.slice(0, max), finish: 'length' };
  return { pieces, finish: 'stop' };
}

/**
 * `openai-echo`: an OpenAI-compatible worker with no model. Chat answers with the last message's
 * text, a completion with its prompt; each is cut to `max_tokens` words, counts words as tokens,
 * and streams word by word when asked. `/v1/models` lists {@link OPENAI_ECHO_MODEL}.
 */
export function openaiEchoHandler(clock: EmulatorClock): JobHandler {
  return (input: unknown, ctx: HandlerContext) => {
    const { openai_route: route, openai_input: body } = (input ?? {}) as { openai_route?: unknown; openai_input?: unknown };
    const created = Math.floor(clock.now() / 1000);
    if (route === '/v1/models') {
      return { object: 'list', data: [{ id: OPENAI_ECHO_MODEL, object: 'model', created, owned_by: 'runpod' }] };
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: `${String(route)}: the body must be a JSON object` };
    const request = body as Record<string, unknown>;
    // As vLLM: the answer names the model the worker serves, whatever the request called it.
    const model = OPENAI_ECHO_MODEL;
    const stream = request.stream === true;
    const includeUsage = (request.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;

    if (route === '/v1/chat/completions') {
      if (!Array.isArray(request.messages) || request.messages.length === 0) return { error: 'messages: a non-empty list is required' };
      const messages = request.messages as ChatMessage[];
      const promptTokens = messages.reduce((n, m) => n + tokenCount(textOf(m?.content)), 0);
      const { pieces, finish } = reply(textOf(messages[messages.length - 1]?.content), request.max_tokens ?? request.max_completion_tokens);
      const usage = { prompt_tokens: promptTokens, completion_tokens: pieces.length, total_tokens: promptTokens + pieces.length };
      const id = `chatcmpl-${ctx.jobId}`;
      if (stream) {
        const chunk = (delta: object, finishReason: string | null) => ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });
        ctx.stream(chunk({ role: 'assistant', content: '' }, null));
        for (const piece of pieces) ctx.stream(chunk({ content: piece }, null));
        ctx.stream(chunk({}, finish));
        if (includeUsage) ctx.stream({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
        return { streamed: pieces.length };
      }
      return {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: pieces.join('').trimEnd(), refusal: null }, logprobs: null, finish_reason: finish }],
        usage,
      };
    }

    if (route === '/v1/completions') {
      const prompt = Array.isArray(request.prompt) ? request.prompt.map(String).join('') : request.prompt;
      if (typeof prompt !== 'string') return { error: 'prompt: a string is required' };
      const promptTokens = tokenCount(prompt);
      const { pieces, finish } = reply(prompt, request.max_tokens);
      const usage = { prompt_tokens: promptTokens, completion_tokens: pieces.length, total_tokens: promptTokens + pieces.length };
      const id = `cmpl-${ctx.jobId}`;
      if (stream) {
        const chunk = (text: string, finishReason: string | null) => ({ id, object: 'text_completion', created, model, choices: [{ index: 0, text, logprobs: null, finish_reason: finishReason }] });
        for (const piece of pieces) ctx.stream(chunk(piece, null));
        ctx.stream(chunk('', finish));
        if (includeUsage) ctx.stream({ id, object: 'text_completion', created, model, choices: [], usage });
        return { streamed: pieces.length };
      }
      return { id, object: 'text_completion', created, model, choices: [{ index: 0, text: pieces.join('').trimEnd(), logprobs: null, finish_reason: finish }], usage };
    }
    return { error: `no OpenAI route ${String(route)}` };
  };
}

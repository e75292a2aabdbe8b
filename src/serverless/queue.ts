import { AbortError, JobCancelledError, ServerError, JobFailedError, JobTimedOutError, ValidationError } from '../errors.js';
import { sleep } from '../transport/abort.js';
import { pollWithBackoff } from '../transport/poll.js';
import type { HttpCore, HttpRequest } from '../transport/http-core.js';
import { checkDuration, type CallOptions } from '../transport/options.js';
import { checkInteger, requireId, requireObject, requireString, toJsonBody } from '../validation.js';
import { isTerminalJobStatus, type CompletedJob, type EndpointHealth, type JobPolicy, type JobState, type PurgeQueueResult, type S3Config, type StreamChunk } from './types.js';

export interface RunOptions extends CallOptions {
  /** URL the platform calls with the result. */
  webhook?: string | undefined;
  policy?: JobPolicy | undefined;
  s3Config?: S3Config | undefined;
}

export interface JobProgress<Output = unknown> {
  readonly job: JobState<Output>;
  readonly attempt: number;
  readonly elapsedMs: number;
  /** Milliseconds until the next status poll. */
  readonly nextPollMs: number;
}

export interface WaitOptions<Output = unknown> {
  /** Stop waiting after this long, with a JobTimedOutError (source `deadline`). @default 600000 */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: JobProgress<Output>) => void) | undefined;
  /** First delay between status polls; grows 1.5× per poll up to `maxPollIntervalMs`. @default 250 */
  pollIntervalMs?: number | undefined;
  /** @default 3000 */
  maxPollIntervalMs?: number | undefined;
}

export interface RunSyncOptions<Output = unknown> extends Omit<RunOptions, 'timeoutMs'>, WaitOptions<Output> {
  /**
   * Overall deadline for the job to finish. @default the endpoint's `executionTimeoutMs` when
   * passed, else 60000 (spec §8)
   */
  timeoutMs?: number | undefined;
  /** The endpoint's `execution_timeout_ms`, which sets the default deadline. */
  executionTimeoutMs?: number | undefined;
  /** How long the server holds `/runsync` (1000–300000). @default the deadline, within that range */
  waitMs?: number | undefined;
}

export interface StreamOptions extends CallOptions {
  /** First pause after an empty poll; doubles up to `maxPollIntervalMs`. @default 250 */
  pollIntervalMs?: number | undefined;
  /** @default 4000 */
  maxPollIntervalMs?: number | undefined;
}

/** Chunks of a streaming job. Leaving the `for await` loop early aborts the request in flight. */
export interface JobStream<Output = unknown> extends AsyncIterable<StreamChunk<Output>> {
  /** Stops the stream and aborts any request in flight. */
  close(): void;
}

export const RUN_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
export const RUNSYNC_BODY_LIMIT_BYTES = 20 * 1024 * 1024;
export const MIN_RUNSYNC_WAIT_MS = 1_000;
export const MAX_RUNSYNC_WAIT_MS = 300_000;
export const DEFAULT_RUNSYNC_DEADLINE_MS = 60_000;
const DEFAULT_WAIT_TIMEOUT_MS = 600_000;
/** The server holds `/stream` about 10 s when nothing is ready; give each attempt room for that. */
const STREAM_ATTEMPT_MS = 30_000;
/** Margin over the server-side `/runsync` wait, so the answer carrying the job id is never cut off. */
const RUNSYNC_ANSWER_MARGIN_MS = 15_000;

function validateRunBody(input: unknown, options: RunOptions, limit: number): string {
  if (input === undefined) throw new ValidationError('input', 'is required (use null or {} for a handler without input)');
  if (options.webhook !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(options.webhook);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol)) throw new ValidationError('webhook', 'must be an http(s) URL');
  }
  if (options.policy !== undefined) {
    const policy = requireObject('policy', options.policy);
    checkInteger('policy.executionTimeout', policy.executionTimeout, 1);
    checkInteger('policy.ttl', policy.ttl, 1);
    if (policy.lowPriority !== undefined && typeof policy.lowPriority !== 'boolean') throw new ValidationError('policy.lowPriority', 'must be a boolean');
  }
  if (options.s3Config !== undefined) {
    const s3 = requireObject('s3Config', options.s3Config);
    for (const field of ['accessId', 'accessSecret', 'bucketName', 'endpointUrl'] as const) requireString(`s3Config.${field}`, s3[field]);
  }
  const body = toJsonBody('input', { input, webhook: options.webhook, policy: options.policy, s3Config: options.s3Config });
  const bytes = new TextEncoder().encode(body).length;
  if (bytes > limit) throw new ValidationError('input', `the request body is ${bytes} bytes; this route accepts at most ${limit}`);
  return body;
}

/** Calls of one queue-based endpoint, shared by the endpoint client and its Job handles. */
class QueueRoutes {
  constructor(
    private readonly core: HttpCore,
    readonly endpointId: string,
  ) {}

  private url(path: string): string {
    return `${this.core.options.serverlessUrl}/${encodeURIComponent(this.endpointId)}${path}`;
  }

  call<T>(req: Omit<HttpRequest, 'url' | 'auth' | 'operation'> & { path: string; route: string }, options: CallOptions = {}): Promise<T> {
    const { path, route, ...rest } = req;
    return this.core.requestJson<T>({ ...rest, ...options, url: this.url(path), auth: 'bearer', operation: `${route} (endpoint ${this.endpointId})` });
  }

  jobPath(action: string, jobId: string): string {
    return `/${action}/${encodeURIComponent(requireId('jobId', jobId))}`;
  }
}

/** Throws the typed error for a terminal state other than COMPLETED; returns the completed job. */
function settle<Output>(endpointId: string, state: JobState<Output>): CompletedJob<Output> {
  switch (state.status) {
    case 'COMPLETED':
      return state as CompletedJob<Output>;
    case 'FAILED':
      throw new JobFailedError({ endpointId, job: state });
    case 'CANCELLED':
      throw new JobCancelledError({ endpointId, job: state });
    case 'TIMED_OUT':
      throw new JobTimedOutError({ endpointId, job: state, source: 'platform' });
    default:
      throw new ValidationError('status', `not a terminal status: ${state.status}`);
  }
}

/** A handle on one job: poll it, wait for it, stream it, cancel or retry it. */
export class Job<Input = unknown, Output = unknown> {
  readonly id: string;
  readonly endpointId: string;
  readonly #routes: QueueRoutes;
  /** Phantom: the input type this job was run with. */
  declare readonly __input?: Input;

  /** When this handle saw the job queued (set by `run`): the first poll need not come before a step. */
  readonly #queuedAt: number | undefined;

  constructor(routes: QueueRoutes, id: string, queuedAt?: number) {
    this.#routes = routes;
    this.endpointId = routes.endpointId;
    this.id = requireId('jobId', id);
    this.#queuedAt = queuedAt;
  }

  /** The job's current state. A result that has expired answers NotFoundError. */
  status(options?: CallOptions): Promise<JobState<Output>> {
    return this.#routes.call({ method: 'GET', path: this.#routes.jobPath('status', this.id), route: 'GET /status/{jobId}', idempotent: true }, options);
  }

  /**
   * Polls with backoff (250 ms rising 1.5× to 3 s) until the job is terminal; right after `run` the
   * first poll waits one step, since the job is still queued. Resolves with the completed
   * job; throws JobFailedError, JobCancelledError or JobTimedOutError, each carrying the job id.
   */
  async wait(options: WaitOptions<Output> = {}): Promise<CompletedJob<Output>> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    const intervalMs = options.pollIntervalMs ?? 250;
    // A job queued a moment ago is still queued: asking at once would only cost a request.
    const sinceQueued = this.#queuedAt === undefined ? Infinity : Date.now() - this.#queuedAt;
    return pollWithBackoff<JobState<Output>, CompletedJob<Output>>({
      poll: () => this.status({ signal: options.signal }),
      settle: (state) => (isTerminalJobStatus(state.status) ? settle(this.endpointId, state) : undefined),
      deadline: (state) => new JobTimedOutError({ endpointId: this.endpointId, job: state, source: 'deadline', timeoutMs }),
      progress: (job, progress) => options.onProgress?.({ job, ...progress }),
      timeoutMs,
      intervalMs,
      maxIntervalMs: options.maxPollIntervalMs ?? 3_000,
      signal: options.signal,
      what: 'job wait',
      firstDelayMs: sinceQueued < intervalMs ? intervalMs - sinceQueued : undefined,
    });
  }

  /** Streams the job's output chunks until it is terminal. */
  stream(options: StreamOptions = {}): JobStream<Output> {
    return openStream<Output>(this.#routes, this.id, options);
  }

  /** Cancels the job; safe to repeat. */
  cancel(options?: CallOptions): Promise<JobState<Output>> {
    return this.#routes.call({ method: 'POST', path: this.#routes.jobPath('cancel', this.id), route: 'POST /cancel/{jobId}', idempotent: true }, options);
  }

  /** Requeues a FAILED or TIMED_OUT job under the same id. */
  async retry(options?: CallOptions): Promise<Job<Input, Output>> {
    await this.#routes.call({ method: 'POST', path: this.#routes.jobPath('retry', this.id), route: 'POST /retry/{jobId}', idempotent: false }, options);
    return this;
  }

  toJSON(): { id: string; endpointId: string } {
    return { id: this.id, endpointId: this.endpointId };
  }
}

function openStream<Output>(routes: QueueRoutes, jobId: string, options: StreamOptions): JobStream<Output> {
  const path = routes.jobPath('stream', jobId);
  const controller = new AbortController();
  let closed = false;
  const onCallerAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  else options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const maxInterval = options.maxPollIntervalMs ?? 4_000;
  const firstInterval = options.pollIntervalMs ?? 250;

  async function* chunks(): AsyncGenerator<StreamChunk<Output>, void, undefined> {
    // Checked here: Math.max below would turn a NaN or negative limit into the default silently.
    checkDuration('timeoutMs', options.timeoutMs);
    checkDuration('pollIntervalMs', options.pollIntervalMs);
    let interval = firstInterval;
    try {
      for (;;) {
        let page: { status: string; stream?: Array<StreamChunk<Output>> };
        try {
          page = await routes.call(
            { method: 'GET', path, route: 'GET /stream/{jobId}', idempotent: true },
            { ...options, timeoutMs: Math.max(options.timeoutMs ?? 0, STREAM_ATTEMPT_MS), signal: controller.signal },
          );
        } catch (err) {
          if (closed && err instanceof AbortError) return;
          throw err;
        }
        const items = page.stream ?? [];
        for (const item of items) yield item;
        if (isTerminalJobStatus(page.status)) {
          if (page.status === 'COMPLETED') return;
          // The stream page has no error text: read the job's state so the error carries it.
          const state = await routes.call<JobState<Output>>({ method: 'GET', path: routes.jobPath('status', jobId), route: 'GET /status/{jobId}', idempotent: true }, { signal: controller.signal });
          settle(routes.endpointId, { ...state, status: page.status as JobState['status'] });
        }
        if (items.length > 0) {
          interval = firstInterval;
          continue;
        }
        try {
          await sleep(interval, controller.signal);
        } catch (err) {
          if (closed) return;
          throw err;
        }
        interval = Math.min(interval * 2, maxInterval);
      }
    } finally {
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  const close = () => {
    if (closed) return;
    closed = true;
    controller.abort(new AbortError('stream closed by the consumer'));
  };
  let generator: AsyncGenerator<StreamChunk<Output>, void, undefined> | undefined;
  return {
    close,
    [Symbol.asyncIterator]() {
      generator ??= chunks();
      const gen = generator;
      return {
        next: () => gen.next(),
        // Called when the loop is left early: abort first, so a request in flight ends now.
        return: async () => {
          close();
          await gen.return(undefined);
          return { done: true, value: undefined };
        },
        throw: (err?: unknown) => gen.throw(err),
      };
    },
  };
}

export interface EndpointClient<Input = unknown, Output = unknown> {
  readonly endpointId: string;
  /** Queues a job (`POST /run`) and returns its handle at once. Never resent once it may have arrived. */
  run(input: Input, options?: RunOptions): Promise<Job<Input, Output>>;
  /**
   * Runs a job and returns it finished: `/runsync?wait=`, then status polling if the job outlives
   * the server's wait, up to the deadline. A deadline error carries the job id.
   */
  runSync(input: Input, options?: RunSyncOptions<Output>): Promise<CompletedJob<Output>>;
  /** A handle on an existing job. */
  job(jobId: string): Job<Input, Output>;
  status(jobId: string, options?: CallOptions): Promise<JobState<Output>>;
  cancel(jobId: string, options?: CallOptions): Promise<JobState<Output>>;
  retry(jobId: string, options?: CallOptions): Promise<Job<Input, Output>>;
  stream(jobId: string, options?: StreamOptions): JobStream<Output>;
  health(options?: CallOptions): Promise<EndpointHealth>;
  /** Removes queued jobs (not running ones). */
  purgeQueue(options?: CallOptions): Promise<PurgeQueueResult>;
}

export function createEndpointClient<Input = unknown, Output = unknown>(core: HttpCore, endpointId: string): EndpointClient<Input, Output> {
  const routes = new QueueRoutes(core, requireId('endpointId', endpointId));
  const job = (jobId: string, queuedAt?: number) => new Job<Input, Output>(routes, jobId, queuedAt);
  const submitted = (answer: { id?: unknown }, route: string): string => {
    if (typeof answer?.id !== 'string' || answer.id === '') throw new ServerError(`${route} (endpoint ${endpointId}) answered without a job id`, { status: 200, body: answer });
    return answer.id;
  };

  return {
    endpointId,
    job,

    async run(input, options = {}) {
      const body = validateRunBody(input, options, RUN_BODY_LIMIT_BYTES);
      const { webhook: _w, policy: _p, s3Config: _s, ...callOptions } = options;
      const answer = await routes.call<JobState<Output>>({ method: 'POST', path: '/run', route: 'POST /run', body, idempotent: false }, callOptions);
      return job(submitted(answer, 'POST /run'), Date.now());
    },

    async runSync(input, options = {}) {
      const body = validateRunBody(input, options, RUNSYNC_BODY_LIMIT_BYTES);
      checkInteger('executionTimeoutMs', options.executionTimeoutMs, 1);
      checkInteger('waitMs', options.waitMs, MIN_RUNSYNC_WAIT_MS, MAX_RUNSYNC_WAIT_MS);
      checkDuration('timeoutMs', options.timeoutMs);
      checkDuration('pollIntervalMs', options.pollIntervalMs);
      const deadlineMs = options.timeoutMs ?? options.executionTimeoutMs ?? DEFAULT_RUNSYNC_DEADLINE_MS;
      const waitMs = options.waitMs ?? Math.min(Math.max(deadlineMs, MIN_RUNSYNC_WAIT_MS), MAX_RUNSYNC_WAIT_MS);
      const started = Date.now();
      const state = await routes.call<JobState<Output>>(
        { method: 'POST', path: `/runsync?wait=${waitMs}`, route: 'POST /runsync', body, idempotent: false },
        { signal: options.signal, headers: options.headers, maxRetries: options.maxRetries, timeoutMs: waitMs + RUNSYNC_ANSWER_MARGIN_MS },
      );
      if (isTerminalJobStatus(state.status)) return settle(endpointId, state);
      const id = submitted(state, 'POST /runsync');
      const elapsedMs = Date.now() - started;
      const remaining = deadlineMs - elapsedMs;
      if (remaining <= 0) throw new JobTimedOutError({ endpointId, job: state, source: 'deadline', timeoutMs: deadlineMs });
      options.onProgress?.({ job: state, attempt: 0, elapsedMs, nextPollMs: options.pollIntervalMs ?? 250 });
      try {
        return await job(id).wait({ ...options, timeoutMs: remaining });
      } catch (err) {
        // Report the caller's whole deadline, not what was left of it after /runsync.
        if (err instanceof JobTimedOutError && err.source === 'deadline') {
          throw new JobTimedOutError({ endpointId, job: err.job, source: 'deadline', timeoutMs: deadlineMs });
        }
        throw err;
      }
    },

    status: async (jobId, options) => job(jobId).status(options),
    cancel: async (jobId, options) => job(jobId).cancel(options),
    retry: async (jobId, options) => job(jobId).retry(options),
    stream: (jobId, options) => job(jobId).stream(options),

    health: (options) => routes.call({ method: 'GET', path: '/health', route: 'GET /health', idempotent: true }, options),
    purgeQueue: (options) => routes.call({ method: 'POST', path: '/purge-queue', route: 'POST /purge-queue', idempotent: true }, options),
  };
}

import { AbortError, JobCancelledError, JobFailedError, JobTimedOutError, NotFoundError, ValidationError, type JobSnapshot } from '../errors.js';
import { linkAbort, sleep } from '../transport/abort.js';
import { monotonicNow } from '../transport/clock.js';
import { callHook, type HttpCore, type HttpRequest } from '../transport/http-core.js';
import { checkDuration, type CallOptions } from '../transport/options.js';
import { createOpenAIHelper, type OpenAICompatible, type OpenAIHelperOptions } from './openai.js';
import { QueuedCall, type PaceRelease } from '../transport/pacing.js';
import { isArrayOf, isRecord, isString } from '../transport/shape.js';
import { checkInteger, requireId, requireObject, requireString, toJsonBody } from '../validation.js';
import { isTerminalJobStatus, type CompletedJob, type EndpointHealth, type JobPolicy, type JobState, type PurgeQueueResult, type S3Config, type StreamChunk } from './types.js';

export interface RunOptions extends CallOptions {
  /** URL the platform POSTs the final state to (http or https). */
  webhook?: string | undefined;
  policy?: JobPolicy | undefined;
  s3Config?: S3Config | undefined;
}

export interface JobProgress<Output = unknown> {
  readonly job: JobState<Output>;
  readonly attempt: number;
  readonly elapsedMs: number;
  /** Milliseconds until the next status request (0 when the next one is a server-side wait). */
  readonly nextPollMs: number;
  /** The handler's latest progress update: an IN_PROGRESS job's `output`, when it sent one. */
  readonly progress: unknown;
}

export interface WaitOptions<Output = unknown> {
  /** Stop waiting after this long, with a JobTimedOutError (source `deadline`). @default 600000 */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: JobProgress<Output>) => void) | undefined;
  /**
   * How long the server holds each `/status-sync` request before answering a job that is still
   * running; shorter means more frequent `onProgress` calls. @default 30000
   */
  holdMs?: number | undefined;
  /** Where `/status-sync` is missing: first delay between `/status` polls; grows 1.5× per poll. @default 250 */
  pollIntervalMs?: number | undefined;
  /** Longest delay between `/status` polls. @default 1000 */
  maxPollIntervalMs?: number | undefined;
}

export interface RunSyncOptions<Output = unknown> extends Omit<RunOptions, 'timeoutMs'>, WaitOptions<Output> {
  /**
   * Overall deadline for the job to finish. @default the endpoint's `executionTimeoutMs` when
   * passed, else 60000
   */
  timeoutMs?: number | undefined;
  /** The endpoint's `execution_timeout_ms`, which sets the default deadline. */
  executionTimeoutMs?: number | undefined;
  /** How long the server holds `/runsync` (1000–300000). @default the deadline, within that range */
  waitMs?: number | undefined;
}

export interface StreamOptions extends Omit<CallOptions, 'timeoutMs'> {
  /** Stop streaming after this long, with a JobTimedOutError (source `deadline`). @default 600000 */
  timeoutMs?: number | undefined;
  /** How long the server holds `/stream` when nothing is ready (`?wait=`). @default 10000 */
  waitMs?: number | undefined;
  /** Smallest gap between two requests after an empty page; doubles up to `maxPollIntervalMs`. @default 250 */
  pollIntervalMs?: number | undefined;
  /** @default 4000 */
  maxPollIntervalMs?: number | undefined;
}

/** Chunks of a streaming job. Leaving the `for await` loop early aborts the request in flight. */
export interface JobStream<Chunk = unknown> extends AsyncIterable<StreamChunk<Chunk>> {
  /** Stops the stream and aborts any request in flight. */
  close(): void;
}

export const RUN_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
export const RUNSYNC_BODY_LIMIT_BYTES = 20 * 1024 * 1024;
export const MIN_RUNSYNC_WAIT_MS = 1_000;
export const MAX_RUNSYNC_WAIT_MS = 300_000;
export const DEFAULT_RUNSYNC_DEADLINE_MS = 60_000;
const SECOND = 1_000;
const DAY = 86_400_000;
const DEFAULT_WAIT_TIMEOUT_MS = 600_000;
const DEFAULT_HOLD_MS = 30_000;
/** Shortest server-side hold asked for; the platform refuses `wait` below 1 s on `/runsync`. */
const MIN_HOLD_MS = 1_000;
const DEFAULT_STREAM_WAIT_MS = 10_000;
/** Margin over a server-side hold, so the answer is never cut off by the attempt's own timer. */
const HOLD_MARGIN_MS = 15_000;
/** How long `run` keeps backing off while the platform refuses with 429 (rate or queue full), from when it is sent. */
const RUN_REFUSED_RETRY_MS = 600_000;
/** How long past its deadline `runSync` still listens for the `/runsync` answer that ends the server's hold. */
const RUNSYNC_ANSWER_GRACE_MS = 50;
/** setTimeout's largest delay; longer deadlines are waited in full anyway by other means. */
const MAX_TIMER_MS = 2_147_483_647;

/** A finite number > 0, when given. */
function checkPositive(field: string, value: unknown): number | undefined {
  checkDuration(field, value);
  return (value ?? undefined) as number | undefined;
}

function validateRunBody(input: unknown, options: RunOptions, limit: number): string {
  if (input === undefined) throw new ValidationError('input', 'is required (use null or {} for a handler without input)');
  checkPositive('timeoutMs', options.timeoutMs);
  if (options.webhook !== undefined) {
    let url: URL | undefined;
    try {
      url = typeof options.webhook === 'string' ? new URL(options.webhook) : undefined;
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol)) throw new ValidationError('webhook', 'must be an http(s) URL');
  }
  if (options.policy !== undefined) {
    const policy = requireObject('policy', options.policy);
    checkInteger('policy.executionTimeout', policy.executionTimeout, 5 * SECOND, 7 * DAY);
    checkInteger('policy.ttl', policy.ttl, 10 * SECOND, 7 * DAY);
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

/** The default for `run`: a queued run keeps its options, so none are made for a call without. */
const NO_RUN_OPTIONS: RunOptions = Object.freeze({});

/** What of `options` goes to the core: all but the fields sent in the body (only copied when present). */
function callOptionsOf(options: RunOptions): CallOptions {
  if (options.webhook === undefined && options.policy === undefined && options.s3Config === undefined) return options;
  const { webhook: _w, policy: _p, s3Config: _s, ...callOptions } = options;
  return callOptions;
}

function isJobState(body: unknown): body is JobState {
  return isRecord(body) && isString(body.status) && (body.id === undefined || isString(body.id));
}

function isSubmitted(body: unknown): body is JobState {
  return isJobState(body) && isString(body.id) && body.id !== '';
}

interface StreamPage<Chunk> {
  status: string;
  stream?: Array<StreamChunk<Chunk>>;
}

function isStreamPage(body: unknown): body is StreamPage<unknown> {
  return isRecord(body) && isString(body.status) && (body.stream === undefined || body.stream === null || isArrayOf(body.stream, isRecord));
}

interface RouteCall<T> extends Pick<HttpRequest, 'method' | 'body' | 'idempotent' | 'retryUntil' | 'retryWhen' | 'timeoutMs'> {
  path: string;
  /** Shown in errors: `GET /status/{jobId}`. */
  route: string;
  /** The rate-limit bucket of the route: `run`, `status`, … */
  bucket: string;
  /** Like `retryUntil`, counted from when the call is sent, not while it waits for its turn. */
  retryForMs?: number | undefined;
  /** What a good answer looks like; anything else is a ServerError. */
  check: (body: unknown) => body is T;
  expected: string;
}

/** Calls of one queue-based endpoint, shared by the endpoint client and its Job handles. */
class QueueRoutes {
  /** Whether this endpoint's host serves `/status-sync`; learnt from the first answer. */
  statusSync: 'unknown' | 'available' | 'missing' = 'unknown';
  readonly base: string;

  constructor(
    readonly core: HttpCore,
    readonly endpointId: string,
  ) {
    this.base = `${core.options.serverlessUrl}/${encodeURIComponent(endpointId)}`;
  }

  /**
   * Checks the call at once (a ValidationError before anything is sent), then holds it in its
   * route's bucket as a small record: the request is only built and started when its turn comes.
   * The answer, once checked, is passed through `toResult` (a function shared by all calls, where a
   * `.then` would add a promise per call).
   */
  call<T>(req: RouteCall<T>, options?: CallOptions): Promise<T>;
  call<T, R>(req: RouteCall<T>, options: CallOptions | undefined, toResult: (answer: T) => R): Promise<R>;
  call<T, R>(req: RouteCall<T>, options: CallOptions = {}, toResult?: (answer: T) => R): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      // Checks the options (timeoutMs included) and the key, naming the request in the error.
      const call = new QueuedRouteCall<T, R>(this, req, options, toResult, resolve, reject);
      this.core.checkBeforeSending(options, 'bearer', () => call.request(undefined));
      this.core.pacer.enqueue(this.rateLimitKey(req.bucket), call);
    });
  }

  // Made once per route and endpoint, not per call: a fresh key string would also be hashed anew
  // by the pacer's bucket lookup on every call.
  private readonly operations = new Map<string, string>();
  private readonly rateLimitKeys = new Map<string, string>();

  operation(route: string): string {
    let text = this.operations.get(route);
    if (text === undefined) this.operations.set(route, (text = `${route} (endpoint ${this.endpointId})`));
    return text;
  }

  rateLimitKey(bucket: string): string {
    let key = this.rateLimitKeys.get(bucket);
    if (key === undefined) this.rateLimitKeys.set(bucket, (key = `serverless:${this.endpointId}:${bucket}`));
    return key;
  }

  jobPath(action: string, jobId: string): string {
    return `/${action}/${encodeURIComponent(requireId('jobId', jobId))}`;
  }

  status<Output>(jobId: string, options?: CallOptions, retryUntil?: number): Promise<JobState<Output>> {
    return this.call(
      {
        method: 'GET',
        path: this.jobPath('status', jobId),
        route: 'GET /status/{jobId}',
        bucket: 'status',
        idempotent: true,
        retryUntil,
        check: isJobState as (body: unknown) => body is JobState<Output>,
        expected: 'a job state with a status',
      },
      options,
      (state) => withId(state, jobId),
    );
  }

  /** The job's state, held by the server up to `holdMs` while it is not terminal. */
  statusSyncCall<Output>(jobId: string, holdMs: number, options: { signal: AbortSignal; retryUntil: number }): Promise<JobState<Output>> {
    return this.call(
      {
        method: 'GET',
        path: `${this.jobPath('status-sync', jobId)}?wait=${holdMs}`,
        route: 'GET /status-sync/{jobId}',
        // The platform counts /status-sync against the /status limit.
        bucket: 'status',
        idempotent: true,
        timeoutMs: holdMs + HOLD_MARGIN_MS,
        retryUntil: options.retryUntil,
        check: isJobState as (body: unknown) => body is JobState<Output>,
        expected: 'a job state with a status',
      },
      { signal: options.signal },
    ).then((state) => withId(state, jobId));
  }
}

/**
 * One route call waiting for its pacing turn. A fan-out queues thousands of these at once, so it
 * holds only the call's own description; the request and the core's attempt loop are made in `start`.
 */
class QueuedRouteCall<T, R> extends QueuedCall {
  constructor(
    private readonly routes: QueueRoutes,
    private readonly req: RouteCall<T>,
    private readonly options: CallOptions,
    private readonly toResult: ((answer: T) => R) | undefined,
    private readonly resolve: (value: R) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    super(options.signal);
  }

  /** Fixed fields first, so requests of one route share a hidden class. */
  request(paceTurn: PaceRelease | undefined): HttpRequest {
    const { routes, req, options } = this;
    return {
      method: req.method,
      url: `${routes.base}${req.path}`,
      auth: 'bearer',
      operation: routes.operation(req.route),
      rateLimitKey: routes.rateLimitKey(req.bucket),
      body: req.body,
      idempotent: req.idempotent,
      retryUntil: req.retryForMs === undefined ? req.retryUntil : monotonicNow() + req.retryForMs,
      retryWhen: req.retryWhen,
      ...options,
      timeoutMs: options.timeoutMs ?? req.timeoutMs,
      paceTurn,
    };
  }

  start(turn: PaceRelease): void {
    const { routes, req, toResult, resolve, reject } = this;
    const request = this.request(turn);
    routes.core.requestJson<unknown>(request).then(
      (body) => {
        if (!req.check(body)) reject(routes.core.wrongShape(request, req.expected, body));
        else if (toResult === undefined) resolve(body as unknown as R);
        else {
          try {
            resolve(toResult(body));
          } catch (err) {
            reject(err);
          }
        }
      },
      (err: unknown) => {
        // The core frees the turn after its first attempt; this covers a call that failed before
        // it (freeing twice is a no-op).
        turn();
        reject(err);
      },
    );
  }

  abandon(): void {
    this.reject(this.routes.core.abortedByCaller(this.request(undefined)));
  }
}

function withId<Output>(state: JobState<Output>, jobId: string): JobState<Output> {
  return state.id === undefined ? { ...state, id: jobId } : state;
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

interface WaitPlan<Output> {
  timeoutMs: number;
  signal: AbortSignal | undefined;
  onProgress: ((progress: JobProgress<Output>) => void) | undefined;
  holdMs: number;
  firstStepMs: number;
  maxStepMs: number;
  /** The state already known (from `/runsync`), reported if the deadline passes first. */
  known?: JobSnapshot | undefined;
}

function waitPlan<Output>(options: WaitOptions<Output>): WaitPlan<Output> {
  return {
    timeoutMs: checkPositive('timeoutMs', options.timeoutMs) ?? DEFAULT_WAIT_TIMEOUT_MS,
    signal: options.signal,
    onProgress: options.onProgress,
    holdMs: checkPositive('holdMs', options.holdMs) ?? DEFAULT_HOLD_MS,
    firstStepMs: checkPositive('pollIntervalMs', options.pollIntervalMs) ?? 250,
    maxStepMs: checkPositive('maxPollIntervalMs', options.maxPollIntervalMs) ?? 1_000,
  };
}

/**
 * Long-polls `/status-sync` (one request per job in the common case); where the host has no such
 * route, polls `/status` in growing steps. Every request and pause is cut off at the deadline,
 * which always ends in JobTimedOutError carrying the job id. The plan is made in here, so a bad
 * option rejects like every other failure.
 */
async function waitForJob<Output>(routes: QueueRoutes, jobId: string, options: WaitOptions<Output>, plan = waitPlan(options)): Promise<CompletedJob<Output>> {
  const started = monotonicNow();
  const deadline = started + plan.timeoutMs;
  const link = linkAbort(plan.signal, Math.min(plan.timeoutMs, MAX_TIMER_MS));
  let last: JobSnapshot | undefined = plan.known;
  let step = plan.firstStepMs;
  const timedOut = (cause?: unknown) =>
    new JobTimedOutError({ endpointId: routes.endpointId, job: last ?? { id: jobId, status: 'UNKNOWN' }, source: 'deadline', timeoutMs: plan.timeoutMs, cause });
  try {
    for (let attempt = 1; ; attempt++) {
      const askedAt = monotonicNow();
      if (askedAt >= deadline) throw timedOut();
      const longPoll = routes.statusSync !== 'missing';
      let state: JobState<Output>;
      if (longPoll) {
        const holdMs = Math.max(MIN_HOLD_MS, Math.round(Math.min(plan.holdMs, deadline - askedAt)));
        try {
          state = await routes.statusSyncCall<Output>(jobId, holdMs, { signal: link.signal, retryUntil: deadline });
          routes.statusSync = 'available';
        } catch (err) {
          if (!(err instanceof NotFoundError) || routes.statusSync === 'available') throw err;
          // A 404 means either "no such route here" or "no such job": /status tells which
          // (it answers NotFoundError itself when the job is gone).
          state = await routes.status<Output>(jobId, { signal: link.signal }, deadline);
          routes.statusSync = 'missing';
        }
      } else {
        state = await routes.status<Output>(jobId, { signal: link.signal, timeoutMs: Math.max(1, deadline - askedAt) + HOLD_MARGIN_MS }, deadline);
      }
      last = state;
      if (isTerminalJobStatus(state.status)) return settle(routes.endpointId, state);
      const now = monotonicNow();
      // A long-poll that held is followed at once; one that came back early (a server that
      // ignores `wait`) still waits out a step, so no host is asked in a hot loop.
      const pauseMs = Math.max(0, Math.min(step - (now - askedAt), deadline - now));
      callHook(plan.onProgress, {
        job: state,
        attempt,
        elapsedMs: now - started,
        nextPollMs: pauseMs,
        progress: state.status === 'IN_PROGRESS' ? state.output : undefined,
      });
      if (pauseMs > 0) await sleep(pauseMs, link.signal);
      step = Math.min(step * 1.5, plan.maxStepMs);
    }
  } catch (err) {
    if (link.timedOut() && !plan.signal?.aborted) throw timedOut(err);
    throw err;
  } finally {
    link.dispose();
  }
}

/** A handle on one job: poll it, wait for it, stream it, cancel or retry it. */
export class Job<Input = unknown, Output = unknown, Chunk = unknown> {
  readonly id: string;
  readonly endpointId: string;
  readonly #routes: QueueRoutes;
  /** Phantom: the input type this job was run with. */
  declare readonly __input?: Input;
  /** Phantom: the type of this job's stream chunks. */
  declare readonly __chunk?: Chunk;

  /** The state `run` answered with, if this handle came from it: the last status seen until a wait sees another. */
  readonly #submitted: JobSnapshot | undefined;

  constructor(routes: QueueRoutes, id: string, submitted?: JobSnapshot) {
    this.#routes = routes;
    this.endpointId = routes.endpointId;
    this.id = requireId('jobId', id);
    this.#submitted = submitted;
  }

  /** The job's current state. A result that has expired answers NotFoundError. */
  status(options?: CallOptions): Promise<JobState<Output>> {
    return this.#routes.status<Output>(this.id, options);
  }

  /**
   * Waits until the job is terminal, on the server (`/status-sync`), or by polling `/status` where
   * that route is missing. Resolves with the completed job; throws JobFailedError,
   * JobCancelledError or JobTimedOutError, each carrying the job id.
   */
  async wait(options: WaitOptions<Output> = {}): Promise<CompletedJob<Output>> {
    return waitForJob(this.#routes, this.id, options, { ...waitPlan(options), known: this.#submitted });
  }

  /** Streams the job's output chunks until it is terminal, up to a deadline. */
  stream(options: StreamOptions = {}): JobStream<Chunk> {
    return openStream<Chunk>(this.#routes, this.id, options);
  }

  /** Cancels the job; safe to repeat. */
  cancel(options?: CallOptions): Promise<JobState<Output>> {
    return this.#routes.call(
      {
        method: 'POST',
        path: this.#routes.jobPath('cancel', this.id),
        route: 'POST /cancel/{jobId}',
        bucket: 'cancel',
        idempotent: true,
        check: isJobState as (body: unknown) => body is JobState<Output>,
        expected: 'a job state with a status',
      },
      options,
    );
  }

  /** Requeues a FAILED or TIMED_OUT job under the same id. */
  async retry(options?: CallOptions): Promise<Job<Input, Output, Chunk>> {
    await this.#routes.call(
      { method: 'POST', path: this.#routes.jobPath('retry', this.id), route: 'POST /retry/{jobId}', bucket: 'retry', idempotent: false, check: isJobState, expected: 'a job state with a status' },
      options,
    );
    return this;
  }

  toJSON(): { id: string; endpointId: string } {
    return { id: this.id, endpointId: this.endpointId };
  }
}

function openStream<Chunk>(routes: QueueRoutes, jobId: string, options: StreamOptions): JobStream<Chunk> {
  const path = routes.jobPath('stream', jobId);
  const timeoutMs = checkPositive('timeoutMs', options.timeoutMs) ?? DEFAULT_WAIT_TIMEOUT_MS;
  const waitMs = Math.max(MIN_HOLD_MS, Math.round(checkPositive('waitMs', options.waitMs) ?? DEFAULT_STREAM_WAIT_MS));
  const firstInterval = checkPositive('pollIntervalMs', options.pollIntervalMs) ?? 250;
  const maxInterval = checkPositive('maxPollIntervalMs', options.maxPollIntervalMs) ?? 4_000;
  const { signal: callerSignal, timeoutMs: _deadline, waitMs: _wait, pollIntervalMs: _p, maxPollIntervalMs: _m, ...callOptions } = options;
  const controller = new AbortController();
  let closed = false;
  const onCallerAbort = () => controller.abort(callerSignal?.reason);

  async function* chunks(): AsyncGenerator<StreamChunk<Chunk>, void, undefined> {
    // Followed only while the stream is iterated: a stream never read leaves no listener behind.
    if (callerSignal?.aborted) controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    const deadline = monotonicNow() + timeoutMs;
    const link = linkAbort(controller.signal, Math.min(timeoutMs, MAX_TIMER_MS));
    let lastStatus = 'UNKNOWN';
    let interval = firstInterval;
    try {
      for (;;) {
        const askedAt = monotonicNow();
        const hold = Math.max(MIN_HOLD_MS, Math.min(waitMs, Math.round(deadline - askedAt)));
        const page = await routes.call<StreamPage<Chunk>>(
          {
            method: 'GET',
            path: `${path}?wait=${hold}`,
            route: 'GET /stream/{jobId}',
            bucket: 'stream',
            idempotent: true,
            timeoutMs: hold + HOLD_MARGIN_MS,
            retryUntil: deadline,
            check: isStreamPage as (body: unknown) => body is StreamPage<Chunk>,
            expected: 'a stream page with a status and a stream list',
          },
          { ...callOptions, signal: link.signal },
        );
        lastStatus = page.status;
        const items = page.stream ?? [];
        for (const item of items) yield item;
        if (isTerminalJobStatus(page.status)) {
          if (page.status === 'COMPLETED') return;
          // The stream page has no error text: read the job's state so the error carries it.
          const state = await routes.status(jobId, { signal: link.signal }, deadline);
          settle(routes.endpointId, { ...state, status: page.status });
        }
        if (items.length > 0) {
          interval = firstInterval;
          continue;
        }
        // The server held the request while nothing was ready; pause only when it did not.
        const pauseMs = interval - (monotonicNow() - askedAt);
        if (pauseMs > 0) await sleep(pauseMs, link.signal);
        interval = Math.min(interval * 2, maxInterval);
      }
    } catch (err) {
      if (closed && err instanceof AbortError) return;
      if (link.timedOut() && !callerSignal?.aborted) {
        throw new JobTimedOutError({ endpointId: routes.endpointId, job: { id: jobId, status: lastStatus }, source: 'deadline', timeoutMs, cause: err });
      }
      throw err;
    } finally {
      link.dispose();
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  const close = () => {
    if (closed) return;
    closed = true;
    controller.abort(new AbortError('stream closed by the consumer'));
  };
  let generator: AsyncGenerator<StreamChunk<Chunk>, void, undefined> | undefined;
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

export interface EndpointClient<Input = unknown, Output = unknown, Chunk = unknown> {
  readonly endpointId: string;
  /**
   * Queues a job (`POST /run`) and returns its handle at once. Never resent once it may have
   * arrived; a 429 (refused before queueing) is retried with backoff.
   */
  run(input: Input, options?: RunOptions): Promise<Job<Input, Output, Chunk>>;
  /**
   * Runs a job and returns it finished: `/runsync?wait=`, then a wait on the job if it outlives
   * the server's hold, up to the deadline. A deadline error carries the job id.
   */
  runSync(input: Input, options?: RunSyncOptions<Output>): Promise<CompletedJob<Output>>;
  /** A handle on an existing job. */
  job(jobId: string): Job<Input, Output, Chunk>;
  status(jobId: string, options?: CallOptions): Promise<JobState<Output>>;
  cancel(jobId: string, options?: CallOptions): Promise<JobState<Output>>;
  retry(jobId: string, options?: CallOptions): Promise<Job<Input, Output, Chunk>>;
  stream(jobId: string, options?: StreamOptions): JobStream<Chunk>;
  health(options?: CallOptions): Promise<EndpointHealth>;
  /** Removes queued jobs (not running ones). */
  purgeQueue(options?: CallOptions): Promise<PurgeQueueResult>;
  /**
   * Options for the `openai` SDK that reach this endpoint's OpenAI-compatible routes through this
   * client: `new OpenAI(ep.openai())`. The key never leaves the returned `fetch`.
   */
  openai(options?: OpenAIHelperOptions): OpenAICompatible;
}

function isHealth(body: unknown): body is EndpointHealth {
  return isRecord(body) && isRecord(body.jobs) && isRecord(body.workers);
}

function isPurgeResult(body: unknown): body is PurgeQueueResult {
  return isRecord(body) && typeof body.removed === 'number';
}

export function createEndpointClient<Input = unknown, Output = unknown, Chunk = unknown>(core: HttpCore, endpointId: string): EndpointClient<Input, Output, Chunk> {
  const routes = new QueueRoutes(core, requireId('endpointId', endpointId));
  const job = (jobId: string, submitted?: JobSnapshot) => new Job<Input, Output, Chunk>(routes, jobId, submitted);
  const jobOf = (submitted: JobState<Output>) => job(submitted.id, { id: submitted.id, status: submitted.status });
  const isOutputState = isSubmitted as (body: unknown) => body is JobState<Output>;

  return {
    endpointId,
    job: (jobId: string) => job(jobId),

    // Not async: a fan-out holds thousands of runs in the pacing queue, and an async frame
    // suspended for each would cost far more than the queued record.
    run(input, options = NO_RUN_OPTIONS) {
      let body: string;
      try {
        body = validateRunBody(input, options, RUN_BODY_LIMIT_BYTES);
      } catch (err) {
        return Promise.reject(err);
      }
      return routes.call(
        {
          method: 'POST',
          path: '/run',
          route: 'POST /run',
          bucket: 'run',
          body,
          idempotent: false,
          retryForMs: RUN_REFUSED_RETRY_MS,
          check: isOutputState,
          expected: 'a job state with an id',
        },
        callOptionsOf(options),
        jobOf,
      );
    },

    async runSync(input, options = {}) {
      const body = validateRunBody(input, { ...options, timeoutMs: undefined }, RUNSYNC_BODY_LIMIT_BYTES);
      checkInteger('executionTimeoutMs', options.executionTimeoutMs, 1);
      checkPositive('waitMs', options.waitMs);
      checkInteger('waitMs', options.waitMs, MIN_RUNSYNC_WAIT_MS, MAX_RUNSYNC_WAIT_MS);
      const plan = waitPlan<Output>(options);
      const deadlineMs = options.timeoutMs ?? options.executionTimeoutMs ?? DEFAULT_RUNSYNC_DEADLINE_MS;
      const waitMs = options.waitMs ?? Math.min(Math.max(deadlineMs, MIN_RUNSYNC_WAIT_MS), MAX_RUNSYNC_WAIT_MS);
      const started = monotonicNow();
      // The caller's deadline cuts /runsync too: a server that holds it past the deadline (or
      // never answers) must not stretch the wait to the attempt's own limit. A little grace lets
      // a server that answers right at the end of its hold be heard, so the error can name the job.
      const link = linkAbort(options.signal, Math.min(deadlineMs + RUNSYNC_ANSWER_GRACE_MS, MAX_TIMER_MS));
      let state: JobState<Output>;
      try {
        state = await routes.call(
          {
            method: 'POST',
            path: `/runsync?wait=${waitMs}`,
            route: 'POST /runsync',
            bucket: 'runsync',
            body,
            idempotent: false,
            retryUntil: started + deadlineMs,
            check: isOutputState,
            expected: 'a job state with an id',
          },
          { signal: link.signal, headers: options.headers, maxRetries: options.maxRetries, timeoutMs: waitMs + HOLD_MARGIN_MS },
        );
      } catch (err) {
        // No answer, so no job id: the job may have been queued, and the error says so.
        if (link.timedOut() && !options.signal?.aborted) throw new JobTimedOutError({ endpointId, job: { id: '', status: 'UNKNOWN' }, source: 'deadline', timeoutMs: deadlineMs, cause: err });
        throw err;
      } finally {
        link.dispose();
      }
      if (isTerminalJobStatus(state.status)) return settle(endpointId, state);
      const elapsedMs = monotonicNow() - started;
      const remaining = deadlineMs - elapsedMs;
      if (remaining <= 0) throw new JobTimedOutError({ endpointId, job: state, source: 'deadline', timeoutMs: deadlineMs });
      callHook(options.onProgress, { job: state, attempt: 0, elapsedMs, nextPollMs: 0, progress: state.status === 'IN_PROGRESS' ? state.output : undefined });
      try {
        return await waitForJob(routes, state.id, options, { ...plan, timeoutMs: remaining, known: state });
      } catch (err) {
        // Report the caller's whole deadline, not what was left of it after /runsync.
        if (err instanceof JobTimedOutError && err.source === 'deadline') {
          throw new JobTimedOutError({ endpointId, job: err.job, source: 'deadline', timeoutMs: deadlineMs, cause: err.cause });
        }
        throw err;
      }
    },

    status: async (jobId, options) => job(jobId).status(options),
    cancel: async (jobId, options) => job(jobId).cancel(options),
    retry: async (jobId, options) => job(jobId).retry(options),
    stream: (jobId, options) => job(jobId).stream(options),

    health: (options) =>
      routes.call({ method: 'GET', path: '/health', route: 'GET /health', bucket: 'health', idempotent: true, check: isHealth, expected: 'an object with jobs and workers' }, options),
    openai: (options) => createOpenAIHelper(core, endpointId, options),
    // Never resent once it may have arrived: a second purge would delete jobs other producers
    // queued in between.
    purgeQueue: (options) =>
      routes.call(
        { method: 'POST', path: '/purge-queue', route: 'POST /purge-queue', bucket: 'purge-queue', idempotent: false, check: isPurgeResult, expected: 'an object with removed' },
        options,
      ),
  };
}

// The serverless queue's calls, loaded with the first one (src/serverless/queue.ts keeps the
// public Job class and the endpoint client, which delegate here). What it uses of the start-up
// modules comes in the kit rather than by import: a lazy chunk that imports a start-up module
// splits it into a chunk of its own, which costs the start-up more than this module saves.
import type { JobSnapshot } from '../errors.js';
import type { HttpRequest } from '../transport/http-core.js';
import type { CallOptions } from '../transport/options.js';
import type { PaceRelease } from '../transport/pacing.js';
import type { Job, JobProgress, QueueHub, QueueKit, RunOptions, RunSyncOptions, StreamOptions, WaitOptions } from './queue.js';
import type { CompletedJob, EndpointHealth, JobState, PurgeQueueResult, StreamChunk } from './types.js';

// The platform's "10 MB" and "20 MB", read as MiB: see "What MB means" in ./README.md.
const RUN_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
const RUNSYNC_BODY_LIMIT_BYTES = 20 * 1024 * 1024;
const MIN_RUNSYNC_WAIT_MS = 1_000;
const MAX_RUNSYNC_WAIT_MS = 300_000;
const DEFAULT_RUNSYNC_DEADLINE_MS = 60_000;
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

interface StreamPage<Chunk> {
  status: string;
  stream?: Array<StreamChunk<Chunk>>;
}

interface RouteCall<T> extends Pick<HttpRequest, 'method' | 'body' | 'idempotent' | 'retryUntil' | 'retryWhen' | 'timeoutMs'> {
  path: string;
  /** Shown in errors: `GET /status/{jobId}`. */
  route: string;
  /** The rate-limit bucket of the route: `run`, `status`, … */
  bucket: string;
  /** Like `retryUntil`, counted from when the call is sent, not while it waits for its turn. */
  retryForMs?: number | undefined;
  /** The job the route is about, for an answer that may leave its id out. */
  jobId?: string | undefined;
  /** What a good answer looks like; anything else is a ServerError. */
  check: (body: unknown) => body is T;
  expected: string;
}

interface WaitPlan<Output> {
  timeoutMs: number;
  signal: AbortSignal | undefined;
  onProgress: ((progress: JobProgress<Output>) => void) | undefined;
  holdMs: number;
  firstStepMs: number;
  maxStepMs: number;
  /** The state already known (from `/run` or `/runsync`), reported if the deadline passes first. */
  known?: JobSnapshot | undefined;
}

export type QueueCalls = ReturnType<typeof createQueueCalls>;

export function createQueueCalls(kit: QueueKit) {
  /** The default for `run`: a queued run keeps its options, so none are made for a call without. */
  const NO_RUN_OPTIONS: RunOptions = Object.freeze({});
  /** A call made without options: its request is sent as built, with nothing spread into it. */
  const NO_OPTIONS: CallOptions = NO_RUN_OPTIONS;
  // In the kit's order (its tuple type checks most of it; the error classes alike in shape, the tests).
  const [AbortError, JobCancelledError, JobFailedError, JobTimedOutError, NotFoundError, ValidationError, QueuedCall, Job, callHook, checkDuration, checkInteger, isArrayOf, isRecord, isString, isTerminalJobStatus, linkAbort, monotonicNow, requireId, requireObject, requireString, sleep, toJsonBody, checkBodySize] = kit;

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
    checkBodySize('input', body, limit, 'this route');
    return body;
  }

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

  function isStreamPage(body: unknown): body is StreamPage<unknown> {
    return isRecord(body) && isString(body.status) && (body.stream === undefined || body.stream === null || isArrayOf(body.stream, isRecord));
  }

  function isHealth(body: unknown): body is EndpointHealth {
    return isRecord(body) && isRecord(body.jobs) && isRecord(body.workers);
  }

  function isPurgeResult(body: unknown): body is PurgeQueueResult {
    return isRecord(body) && typeof body.removed === 'number';
  }

  // Made once per route and endpoint, not per call: a fresh key string would also be hashed anew
  // by the pacer's bucket lookup on every call.
  function operation(hub: QueueHub, route: string): string {
    let text = hub.operations.get(route);
    if (text === undefined) hub.operations.set(route, (text = `${route} (endpoint ${hub.endpointId})`));
    return text;
  }

  function rateLimitKey(hub: QueueHub, bucket: string): string {
    let key = hub.rateLimitKeys.get(bucket);
    if (key === undefined) hub.rateLimitKeys.set(bucket, (key = `serverless:${hub.endpointId}:${bucket}`));
    return key;
  }

  function jobPath(action: string, jobId: string): string {
    return `/${action}/${encodeURIComponent(requireId('jobId', jobId))}`;
  }

  /**
   * One route call waiting for its pacing turn. A fan-out queues thousands of these at once, so it
   * holds only the call's own description; the request and the core's attempt loop are made in `start`.
   */
  class QueuedRouteCall<T, R> extends QueuedCall {
    constructor(
      private readonly hub: QueueHub,
      private readonly req: RouteCall<T>,
      private readonly options: CallOptions,
      private readonly toResult: ((answer: T, hub: QueueHub, req: RouteCall<T>) => R) | undefined,
      private readonly resolve: (value: R) => void,
      private readonly reject: (error: unknown) => void,
    ) {
      super(options.signal);
    }

    /** Fixed fields first, so requests of one route share a hidden class. */
    request(paceTurn: PaceRelease | undefined): HttpRequest {
      const { hub, req, options } = this;
      const request: HttpRequest = {
        method: req.method,
        url: `${hub.base}${req.path}`,
        auth: 'bearer',
        operation: operation(hub, req.route),
        rateLimitKey: rateLimitKey(hub, req.bucket),
        body: req.body,
        idempotent: req.idempotent,
        retryUntil: req.retryForMs === undefined ? req.retryUntil : monotonicNow() + req.retryForMs,
        retryWhen: req.retryWhen,
        timeoutMs: options.timeoutMs ?? req.timeoutMs,
        paceTurn,
      };
      // A call without options (most of them) is sent as built: no copy.
      return options === NO_OPTIONS ? request : { ...request, ...options, timeoutMs: request.timeoutMs, paceTurn };
    }

    start(turn: PaceRelease): void {
      const { hub, req, toResult, resolve, reject } = this;
      const request = this.request(turn);
      hub.core.requestJson<unknown>(request).then(
        (body) => {
          if (!req.check(body)) reject(hub.core.wrongShape(request, req.expected, body));
          else if (toResult === undefined) resolve(body as unknown as R);
          else {
            try {
              resolve(toResult(body, hub, req));
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
      this.reject(this.hub.core.abortedByCaller(this.request(undefined)));
    }
  }

  /**
   * Checks the call at once (a ValidationError before anything is sent), then holds it in its
   * route's bucket as a small record: the request is only built and started when its turn comes.
   * The answer, once checked, is passed through `toResult` (a function shared by all calls, where a
   * `.then` would add a promise per call). A throw here is the caller's to turn into a rejection.
   */
  function send<T, R>(hub: QueueHub, req: RouteCall<T>, options: CallOptions, toResult: ((answer: T, hub: QueueHub, req: RouteCall<T>) => R) | undefined, resolve: (value: R) => void, reject: (error: unknown) => void): void {
    // Checks the options (timeoutMs included) and the key, naming the request in the error.
    const call = new QueuedRouteCall<T, R>(hub, req, options, toResult, resolve, reject);
    hub.core.checkBeforeSending(options, 'bearer', () => call.request(undefined));
    hub.core.pacer.enqueue(rateLimitKey(hub, req.bucket), call);
  }

  function call<T>(hub: QueueHub, req: RouteCall<T>, options?: CallOptions): Promise<T>;
  function call<T, R>(hub: QueueHub, req: RouteCall<T>, options: CallOptions | undefined, toResult: (answer: T, hub: QueueHub, req: RouteCall<T>) => R): Promise<R>;
  function call<T, R>(hub: QueueHub, req: RouteCall<T>, options: CallOptions = NO_OPTIONS, toResult?: (answer: T, hub: QueueHub, req: RouteCall<T>) => R): Promise<R> {
    return new Promise<R>((resolve, reject) => send(hub, req, options, toResult, resolve, reject));
  }

  /** The job's state; with `holdMs`, from `/status-sync`, which the server holds up to that long while the job is not terminal. */
  function status<Output>(hub: QueueHub, jobId: string, options?: CallOptions, retryUntil?: number, holdMs?: number): Promise<JobState<Output>> {
    const held = holdMs !== undefined;
    return call(
      hub,
      {
        method: 'GET',
        path: held ? `${jobPath('status-sync', jobId)}?wait=${holdMs}` : jobPath('status', jobId),
        route: held ? 'GET /status-sync/{jobId}' : 'GET /status/{jobId}',
        // The platform counts /status-sync against the /status limit.
        bucket: 'status',
        idempotent: true,
        timeoutMs: held ? holdMs + HOLD_MARGIN_MS : undefined,
        retryUntil,
        jobId,
        check: isJobState as (body: unknown) => body is JobState<Output>,
        expected: 'a job state with a status',
      },
      options,
      withId as (state: JobState<Output>, hub: QueueHub, req: RouteCall<JobState<Output>>) => JobState<Output>,
    );
  }

  /** A state with the id of the job asked about, where the answer left it out (one function for every call: no closure each). */
  function withId(state: JobState, _hub: QueueHub, req: RouteCall<JobState>): JobState {
    return state.id === undefined ? { ...state, id: req.jobId! } : state;
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
  async function waitForJob<Output>(hub: QueueHub, jobId: string, options: WaitOptions<Output>, known: JobSnapshot | undefined, planned?: WaitPlan<Output>): Promise<CompletedJob<Output>> {
    const plan = planned ?? waitPlan(options);
    const started = monotonicNow();
    const deadline = started + plan.timeoutMs;
    const link = linkAbort(plan.signal, plan.timeoutMs);
    let last: JobSnapshot | undefined = known;
    let step = plan.firstStepMs;
    const timedOut = (cause?: unknown) =>
      new JobTimedOutError({ endpointId: hub.endpointId, job: last ?? { id: jobId, status: 'UNKNOWN' }, source: 'deadline', timeoutMs: plan.timeoutMs, cause });
    try {
      for (let attempt = 1; ; attempt++) {
        const askedAt = monotonicNow();
        if (askedAt >= deadline) throw timedOut();
        const longPoll = hub.statusSync !== 'missing';
        let state: JobState<Output>;
        if (longPoll) {
          const holdMs = Math.max(MIN_HOLD_MS, Math.round(Math.min(plan.holdMs, deadline - askedAt)));
          try {
            state = await status<Output>(hub, jobId, { signal: link.signal }, deadline, holdMs);
            hub.statusSync = 'available';
          } catch (err) {
            if (!(err instanceof NotFoundError) || hub.statusSync === 'available') throw err;
            // A 404 means either "no such route here" or "no such job": /status tells which
            // (it answers NotFoundError itself when the job is gone).
            state = await status<Output>(hub, jobId, { signal: link.signal }, deadline);
            hub.statusSync = 'missing';
          }
        } else {
          state = await status<Output>(hub, jobId, { signal: link.signal, timeoutMs: Math.max(1, deadline - askedAt) + HOLD_MARGIN_MS }, deadline);
        }
        last = state;
        if (isTerminalJobStatus(state.status)) return settle(hub.endpointId, state);
        const now = monotonicNow();
        // A long-poll that held is followed at once; one that came back early (a server that
        // ignores `wait`) still waits out a step, so no host is asked in a hot loop.
        const pauseMs = Math.max(0, Math.min(step - (now - askedAt), deadline - now));
        callHook(plan.onProgress, {
          job: state,
          attempt,
          elapsedMs: Math.round(now - started),
          nextPollMs: Math.round(pauseMs),
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

  /**
   * The pages of a job's stream, until it is terminal or the deadline. `controller` is the
   * stream's own (its `close()` fires it); the caller's signal is followed only while the pages
   * are read, so a stream never read leaves no listener behind.
   */
  async function* streamChunks<Chunk>(hub: QueueHub, jobId: string, options: StreamOptions, controller: AbortController, closed: () => boolean): AsyncGenerator<StreamChunk<Chunk>, void, undefined> {
    const path = jobPath('stream', jobId);
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    const waitMs = Math.max(MIN_HOLD_MS, Math.round(options.waitMs ?? DEFAULT_STREAM_WAIT_MS));
    const firstInterval = options.pollIntervalMs ?? 250;
    const maxInterval = options.maxPollIntervalMs ?? 4_000;
    const { signal: callerSignal, timeoutMs: _deadline, waitMs: _wait, pollIntervalMs: _p, maxPollIntervalMs: _m, ...callOptions } = options;
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    const deadline = monotonicNow() + timeoutMs;
    const link = linkAbort(controller.signal, timeoutMs);
    let lastStatus = 'UNKNOWN';
    let interval = firstInterval;
    try {
      for (;;) {
        const askedAt = monotonicNow();
        const hold = Math.max(MIN_HOLD_MS, Math.min(waitMs, Math.round(deadline - askedAt)));
        const page = await call<StreamPage<Chunk>>(
          hub,
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
          const state = await status(hub, jobId, { signal: link.signal }, deadline);
          settle(hub.endpointId, { ...state, status: page.status });
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
      if (closed() && err instanceof AbortError) return;
      if (link.timedOut() && !callerSignal?.aborted) {
        throw new JobTimedOutError({ endpointId: hub.endpointId, job: { id: jobId, status: lastStatus }, source: 'deadline', timeoutMs, cause: err });
      }
      throw err;
    } finally {
      link.dispose();
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** `run`'s answer as a handle: the state it answered with is the last one seen until a wait sees another. */
  const jobOf = (submitted: JobState, hub: QueueHub): Job => new Job(hub, submitted.id, { id: submitted.id, status: submitted.status });

  return {
    status,
    streamChunks,

    // Not async, and settling the caller's own promise: a fan-out holds thousands of runs in the
    // pacing queue, and an async frame or a chained promise kept for each would cost far more
    // than the queued record.
    run(hub: QueueHub, input: unknown, options: RunOptions = NO_RUN_OPTIONS, resolve: (job: Job) => void, reject: (error: unknown) => void): void {
      try {
        const body = validateRunBody(input, options, RUN_BODY_LIMIT_BYTES);
        send(
          hub,
          {
            method: 'POST',
            path: '/run',
            route: 'POST /run',
            bucket: 'run',
            body,
            idempotent: false,
            retryForMs: RUN_REFUSED_RETRY_MS,
            check: isSubmitted,
            expected: 'a job state with an id',
          },
          callOptionsOf(options),
          jobOf,
          resolve,
          reject,
        );
      } catch (err) {
        reject(err);
      }
    },

    async runSync<Output>(hub: QueueHub, input: unknown, options: RunSyncOptions<Output> = {}): Promise<CompletedJob<Output>> {
      const { endpointId } = hub;
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
      const link = linkAbort(options.signal, deadlineMs + RUNSYNC_ANSWER_GRACE_MS);
      let state: JobState<Output>;
      try {
        state = await call(
          hub,
          {
            method: 'POST',
            path: `/runsync?wait=${waitMs}`,
            route: 'POST /runsync',
            bucket: 'runsync',
            body,
            idempotent: false,
            retryUntil: started + deadlineMs,
            check: isSubmitted as (body: unknown) => body is JobState<Output>,
            expected: 'a job state with an id',
          },
          { signal: link.signal, headers: options.headers, maxRetries: options.maxRetries, timeoutMs: waitMs + HOLD_MARGIN_MS, onResponse: options.onResponse, fetchOptions: options.fetchOptions },
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
      callHook(options.onProgress, { job: state, attempt: 0, elapsedMs: Math.round(elapsedMs), nextPollMs: 0, progress: state.status === 'IN_PROGRESS' ? state.output : undefined });
      try {
        return await waitForJob(hub, state.id, options, state, { ...plan, timeoutMs: remaining });
      } catch (err) {
        // Report the caller's whole deadline, not what was left of it after /runsync.
        if (err instanceof JobTimedOutError && err.source === 'deadline') {
          throw new JobTimedOutError({ endpointId, job: err.job, source: 'deadline', timeoutMs: deadlineMs, cause: err.cause });
        }
        throw err;
      }
    },

    wait: waitForJob,

    cancel: <Output>(hub: QueueHub, jobId: string, options?: CallOptions): Promise<JobState<Output>> =>
      call(
        hub,
        {
          method: 'POST',
          path: jobPath('cancel', jobId),
          route: 'POST /cancel/{jobId}',
          bucket: 'cancel',
          idempotent: true,
          check: isJobState as (body: unknown) => body is JobState<Output>,
          expected: 'a job state with a status',
        },
        options,
      ),

    retry: (hub: QueueHub, jobId: string, options?: CallOptions): Promise<JobState> =>
      call(hub, { method: 'POST', path: jobPath('retry', jobId), route: 'POST /retry/{jobId}', bucket: 'retry', idempotent: false, check: isJobState, expected: 'a job state with a status' }, options),

    health: (hub: QueueHub, options?: CallOptions): Promise<EndpointHealth> =>
      call(hub, { method: 'GET', path: '/health', route: 'GET /health', bucket: 'health', idempotent: true, check: isHealth, expected: 'an object with jobs and workers' }, options),

    // Never resent once it may have arrived: a second purge would delete jobs other producers
    // queued in between.
    purgeQueue: (hub: QueueHub, options?: CallOptions): Promise<PurgeQueueResult> =>
      call(hub, { method: 'POST', path: '/purge-queue', route: 'POST /purge-queue', bucket: 'purge-queue', idempotent: false, check: isPurgeResult, expected: 'an object with removed' }, options),
  };
}

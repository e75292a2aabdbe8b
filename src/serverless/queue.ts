// The serverless queue at start-up: the public Job class and the endpoint client, thin. Their
// calls (the routes and their pacing, waits, streams, runSync, the checks of a run's body) live in
// ./queue-calls.ts, loaded with the first call; once it is loaded a call goes straight there, with
// no await or promise added.
import { AbortError, JobCancelledError, JobFailedError, JobTimedOutError, NotFoundError, ValidationError, type JobSnapshot } from '../errors.js';
import { linkAbort, sleep } from '../transport/abort.js';
import { monotonicNow } from '../transport/clock.js';
import { callHook, type HttpCore } from '../transport/http-core.js';
import { checkDuration, type CallOptions } from '../transport/options.js';
import { QueuedCall } from '../transport/pacing.js';
import { isArrayOf, isRecord, isString } from '../transport/shape.js';
import { checkBodySize, checkInteger, requireId, requireObject, requireString, toJsonBody } from '../validation.js';
import { createOpenAIHelper, type OpenAICompatible, type OpenAIHelperOptions } from './openai.js';
import type { QueueCalls } from './queue-calls.js';
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
  /** Whole milliseconds since the wait began. */
  readonly elapsedMs: number;
  /** Whole milliseconds until the next status request (0 when the next one is a server-side wait). */
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

/** One queue-based endpoint's state, shared by its client, its Job handles and the loaded calls. */
export interface QueueHub {
  readonly core: HttpCore;
  readonly endpointId: string;
  /** `{serverlessUrl}/{endpointId}`. */
  readonly base: string;
  /** Whether this endpoint's host serves `/status-sync`; learnt from the first answer. */
  statusSync: 'unknown' | 'available' | 'missing';
  /** Made once per route and endpoint, not per call: the pacer would also hash a fresh key anew. */
  readonly operations: Map<string, string>;
  readonly rateLimitKeys: Map<string, string>;
}

let calls: QueueCalls | undefined;
let loading: Promise<QueueCalls> | undefined;

/** Loads the queue's calls now (tests that fake timers may call it first: loading is real I/O). */
export function loadQueueCalls(): Promise<QueueCalls> {
  return (loading ??= import('./queue-calls.js').then((loaded) => (calls = loaded.createQueueCalls(kit))));
}

/** `use(calls)` at once when they are loaded, else once they are. */
function later<T>(use: (loaded: QueueCalls) => Promise<T>): Promise<T> {
  return calls ? use(calls) : loadQueueCalls().then(use);
}

/** A handle on one job: poll it, wait for it, stream it, cancel or retry it. */
export class Job<Input = unknown, Output = unknown, Chunk = unknown> {
  readonly id: string;
  readonly endpointId: string;
  readonly #hub: QueueHub;
  /** Phantom: the input type this job was run with. */
  declare readonly __input?: Input;
  /** Phantom: the type of this job's stream chunks. */
  declare readonly __chunk?: Chunk;

  /** The state `run` answered with, if this handle came from it: the last status seen until a wait sees another. */
  readonly #submitted: JobSnapshot | undefined;

  constructor(hub: QueueHub, id: string, submitted?: JobSnapshot) {
    this.#hub = hub;
    this.endpointId = hub.endpointId;
    this.id = requireId('jobId', id);
    this.#submitted = submitted;
  }

  /** The job's current state. A result that has expired answers NotFoundError. */
  status(options?: CallOptions): Promise<JobState<Output>> {
    // The hot path of a polling loop: once loaded, straight to the call.
    return calls ? calls.status<Output>(this.#hub, this.id, options) : loadQueueCalls().then((loaded) => loaded.status<Output>(this.#hub, this.id, options));
  }

  /**
   * Waits until the job is terminal, on the server (`/status-sync`), or by polling `/status` where
   * that route is missing. Resolves with the completed job; throws JobFailedError,
   * JobCancelledError or JobTimedOutError, each carrying the job id.
   */
  wait(options: WaitOptions<Output> = {}): Promise<CompletedJob<Output>> {
    return calls ? calls.wait(this.#hub, this.id, options, this.#submitted) : later((loaded) => loaded.wait(this.#hub, this.id, options, this.#submitted));
  }

  /** Streams the job's output chunks until it is terminal, up to a deadline. */
  stream(options: StreamOptions = {}): JobStream<Chunk> {
    return openStream<Chunk>(this.#hub, this.id, options);
  }

  /** Cancels the job; safe to repeat. */
  cancel(options?: CallOptions): Promise<JobState<Output>> {
    return later((loaded) => loaded.cancel<Output>(this.#hub, this.id, options));
  }

  /** Requeues a FAILED or TIMED_OUT job under the same id. */
  async retry(options?: CallOptions): Promise<Job<Input, Output, Chunk>> {
    await later((loaded) => loaded.retry(this.#hub, this.id, options));
    return this;
  }

  toJSON(): { id: string; endpointId: string } {
    return { id: this.id, endpointId: this.endpointId };
  }
}

/**
 * Start-up helpers handed to ./queue-calls.ts rather than imported by it: one of the three kits
 * kept on measure (with rest/lazy.ts's and transport/create-once-kit.ts's). Plain imports there
 * cost the start-up 1,056 B gzipped (esbuild code splitting, 2026-11-28): esbuild would split the
 * helpers it shares with the start-up into chunks of their own (see the transport README). A list,
 * not an object, so that no bundle carries their names twice (the types keep the order).
 */
const kit = [
  ...[AbortError, JobCancelledError, JobFailedError, JobTimedOutError, NotFoundError, ValidationError, QueuedCall, Job] as const,
  ...[callHook, checkDuration, checkInteger, isArrayOf, isRecord, isString, isTerminalJobStatus, linkAbort, monotonicNow, requireId, requireObject, requireString, sleep, toJsonBody, checkBodySize] as const,
] as const;
export type QueueKit = typeof kit;

const STREAM_DURATIONS = ['timeoutMs', 'waitMs', 'pollIntervalMs', 'maxPollIntervalMs'] as const;

function openStream<Chunk>(hub: QueueHub, jobId: string, options: StreamOptions): JobStream<Chunk> {
  // Bad options are refused here and now, before the calls load.
  for (const field of STREAM_DURATIONS) checkDuration(field, options[field]);
  const controller = new AbortController();
  let closed = false;
  async function* chunks(): AsyncGenerator<StreamChunk<Chunk>, void, undefined> {
    yield* (calls ?? (await loadQueueCalls())).streamChunks<Chunk>(hub, jobId, options, controller, () => closed);
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

export function createEndpointClient<Input = unknown, Output = unknown, Chunk = unknown>(core: HttpCore, endpointId: string): EndpointClient<Input, Output, Chunk> {
  const hub: QueueHub = {
    core,
    endpointId: requireId('endpointId', endpointId),
    base: `${core.options.serverlessUrl}/${encodeURIComponent(endpointId)}`,
    statusSync: 'unknown',
    operations: new Map(),
    rateLimitKeys: new Map(),
  };
  const job = (jobId: string) => new Job<Input, Output, Chunk>(hub, jobId);

  return {
    endpointId,
    job,

    // Not async, and no promise chained: a fan-out holds thousands of runs in the pacing queue,
    // and an async frame or an extra promise kept for each would cost more than the queued record.
    run: (input, options) =>
      new Promise<Job<Input, Output, Chunk>>((resolve, reject) => {
        const settle = resolve as (job: Job) => void;
        if (calls) calls.run(hub, input, options, settle, reject);
        else loadQueueCalls().then((loaded) => loaded.run(hub, input, options, settle, reject), reject);
      }),
    runSync: (input, options) => later((loaded) => loaded.runSync(hub, input, options)),
    status: async (jobId, options) => job(jobId).status(options),
    cancel: async (jobId, options) => job(jobId).cancel(options),
    retry: async (jobId, options) => job(jobId).retry(options),
    stream: (jobId, options) => job(jobId).stream(options),
    health: (options) => later((loaded) => loaded.health(hub, options)),
    openai: (options) => createOpenAIHelper(core, endpointId, options),
    purgeQueue: (options) => later((loaded) => loaded.purgeQueue(hub, options)),
  };
}

import { TIMER_CANCELLED, type EmulatorClock } from './clock.js';
import { SERVERLESS_PRICE_PER_SECOND } from './catalog.js';
import { badRequest, EmulatorHttpError } from './errors.js';
import { newId } from './ids.js';
import { Lifetime } from './lifetime.js';
import { ENDPOINT_DEFAULTS, type Account, type EmulatedEndpoint, type EndpointCharge } from './platform.js';
import { WorkerPools, type EmulatedWorker, type WorkerSummary, type WorkerTimings } from './workers.js';

export type EmulatedJobStatus = 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT';

/** What a handler gets besides its input. Time passes on the emulator's clock. */
export interface HandlerContext {
  readonly jobId: string;
  readonly endpointId: string;
  /** Fires when the job is cancelled or times out. */
  readonly signal: AbortSignal;
  sleep(ms: number): Promise<void>;
  /** Emits one chunk for `/stream`. */
  stream(output: unknown, metrics?: Record<string, unknown>): void;
  /** A progress update: `/status` shows it as the `output` of the IN_PROGRESS job. */
  progress(output: unknown): void;
}

/**
 * A serverless worker: resolve with the output, throw to fail the job, or return
 * `{ error: 'message', ...rest }` to fail it with `rest` as its output (as production does).
 */
export type JobHandler = (input: unknown, ctx: HandlerContext) => unknown;

/** A `fetch` compatible function, for webhooks. */
export type WebhookFetch = (input: string, init: RequestInit) => Promise<Response>;

interface Chunk {
  output: unknown;
  metrics?: Record<string, unknown>;
}

export interface JobPolicy {
  executionTimeout?: number | undefined;
  ttl?: number | undefined;
  lowPriority?: boolean | undefined;
}

export interface JobSubmission {
  input: unknown;
  webhook?: string | undefined;
  policy?: JobPolicy | undefined;
}

export interface EmulatedJob {
  id: string;
  accountId: string;
  endpointId: string;
  input: unknown;
  policy: JobPolicy;
  webhook?: string | undefined;
  status: EmulatedJobStatus;
  output?: unknown;
  /** The last progress update while IN_PROGRESS. */
  progress?: { output: unknown };
  error?: string;
  createdAt: number;
  /** When workers may take it: submission (or retry) plus the emulator's `queueDelayMs`. */
  eligibleAt: number;
  /** The worker that holds it, or held it last. */
  workerId?: string | undefined;
  /** Frees its worker once it has ended. */
  onEnd?: (() => void) | undefined;
  /** Submission + `policy.ttl`. */
  expiresAt: number;
  /** The ttl has already acted (the job timed out in the queue). */
  ttlSpent: boolean;
  startedAt?: number;
  finishedAt?: number;
  /** How long the result is kept after it finishes: 30 min after /run, 1 min after /runsync. */
  retentionMs: number;
  pending: Chunk[];
  controller: AbortController;
  listeners: Set<() => void>;
  retries: number;
  deleted: boolean;
}

const toInt = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The built-in handlers every emulator has. */
export const BUILT_IN_HANDLERS: Record<string, JobHandler> = {
  /** Returns its input. */
  echo: (input) => input,
  /** `{ ms?: number = 1000, output?: unknown }`: runs for `ms`, then returns `output` (or `{ sleptMs }`). */
  sleep: async (input, ctx) => {
    const ms = toInt((input as { ms?: unknown } | null)?.ms) ?? 1000;
    await ctx.sleep(ms);
    return (input as { output?: unknown } | null)?.output ?? { sleptMs: ms };
  },
  /** `{ message?: string, afterMs?: number }`: fails with `message`. */
  fail: async (input, ctx) => {
    const afterMs = toInt((input as { afterMs?: unknown } | null)?.afterMs) ?? 0;
    if (afterMs > 0) await ctx.sleep(afterMs);
    throw new Error(String((input as { message?: unknown } | null)?.message ?? 'handler failed'));
  },
  /** `{ chunks?: unknown[] | number = 5, intervalMs?: number = 100 }`: streams the chunks, returns their count. */
  stream: async (input, ctx) => {
    const raw = (input as { chunks?: unknown } | null)?.chunks;
    const chunks = Array.isArray(raw) ? raw : Array.from({ length: toInt(raw) ?? 5 }, (_, i) => `chunk ${i + 1}`);
    const intervalMs = toInt((input as { intervalMs?: unknown } | null)?.intervalMs) ?? 100;
    for (const [i, chunk] of chunks.entries()) {
      await ctx.sleep(intervalMs);
      ctx.stream(chunk, { index: i });
    }
    return { chunks: chunks.length };
  },
};

/** Workers a public endpoint may run at once for one account. */
export const PUBLIC_ENDPOINT_WORKERS = 100;

/**
 * The public endpoint of a built-in or registered handler, reachable by its name from any account
 * as the platform's public endpoints are (`/v2/{name}/run`) and owned by none. The platform runs
 * them warm: a worker per waiting job at once, up to {@link PUBLIC_ENDPOINT_WORKERS}, no cold start.
 */
export function handlerEndpoint(name: string, now: number): EmulatedEndpoint {
  return {
    ...ENDPOINT_DEFAULTS,
    gpuTypeIds: [...ENDPOINT_DEFAULTS.gpuTypeIds],
    id: name,
    name,
    templateId: `builtin-${name}`,
    createdAt: now,
    handler: name,
    workersMin: 0,
    workersMax: PUBLIC_ENDPOINT_WORKERS,
    scalerType: 'REQUEST_COUNT',
    scalerValue: 1,
    coldStartMs: 0,
    public: true,
  };
}

const TERMINAL = new Set<EmulatedJobStatus>(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);
export const isTerminal = (status: EmulatedJobStatus) => TERMINAL.has(status);

const DEFAULT_EXECUTION_TIMEOUT_MS = 600_000;
const DEFAULT_TTL_MS = 24 * 3_600_000;
const RUN_RETENTION_MS = 30 * 60_000;
const RUNSYNC_RETENTION_MS = 60_000;
const WEBHOOK_RETRY_MS = 10_000;
/** What a handler's \`ctx.signal\` says once its job has ended: one value, not a DOMException per job (see TIMER_CANCELLED). */
const JOB_ENDED = new DOMException('the job ended', 'AbortError');
const WEBHOOK_ATTEMPTS = 3;
/** How often expired jobs are looked for while any job exists. */
const SWEEP_MS = 10_000;
const RUNPOD_VERSION = '1.7.13';

export interface QueueOptions {
  clock: EmulatorClock;
  /** Time a job spends IN_QUEUE before a worker takes it. @default 0 */
  queueDelayMs?: number | undefined;
  /** How long `/stream` holds when nothing is ready. @default 10000 */
  streamHoldMs?: number | undefined;
  /** Sends webhooks. @default globalThis.fetch, looked up at call time */
  webhookFetch?: WebhookFetch | undefined;
  /** The workers' cold starts. */
  workers?: WorkerTimings | undefined;
  /** What ends the held requests (`/runsync`, `/status-sync`, `/stream`). @default a fresh one */
  lifetime?: Lifetime | undefined;
  /**
   * Finished jobs whose result is kept: past it, the oldest result goes (404) before its time is
   * up, so memory stays bounded by count as well as by time. @default 10000
   */
  maxRetainedResults?: number | undefined;
}

/** Finished results kept at most, whatever their time left: see `QueueOptions.maxRetainedResults`. */
export const DEFAULT_MAX_RETAINED_RESULTS = 10_000;
const HOUR_MS = 3_600_000;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Queue-based serverless endpoints: jobs, their states, results, streams and webhooks. */
export class ServerlessQueue {
  readonly handlers = new Map<string, JobHandler>(Object.entries(BUILT_IN_HANDLERS));
  private readonly jobs = new Map<string, EmulatedJob>();
  /** IN_QUEUE jobs per account and endpoint, oldest first: what workers take, and what fills the queue. */
  private readonly waitingJobs = new Map<string, Set<EmulatedJob>>();
  /** The public endpoints of the handlers, by name. */
  private readonly publicEndpoints = new Map<string, EmulatedEndpoint>();
  /** The workers of every endpoint: they take the waiting jobs, one each. */
  readonly workers: WorkerPools<EmulatedJob>;
  /** Every timer and webhook in flight, so that `dispose()` can end them. */
  private readonly timers = new Set<AbortController>();
  private sweeping = false;
  private readonly clock: EmulatorClock;
  private readonly queueDelayMs: number;
  private readonly streamHoldMs: number;
  private readonly webhookFetch: WebhookFetch;
  /** Ends every held request on `dispose()`; once disposed, no job is submitted. */
  readonly lifetime: Lifetime;
  /** Finished jobs still kept, oldest first: the first to go past `maxRetainedResults`. */
  private readonly finished = new Set<EmulatedJob>();
  private readonly maxRetainedResults: number;
  /**
   * This hour's charges by account, endpoint and GPU type: a job's charge adds to its row, so the
   * bill grows by one row per endpoint and hour of use, not per job. Not per worker either: a pool
   * whose workers go idle and come back (every job on a fresh worker, once the clock moves past
   * `idleTimeout` between jobs) made one row per job. Cleared when the hour turns.
   */
  private chargeRows = { hour: Number.NaN, rows: new Map<string, EndpointCharge>() };

  constructor(options: QueueOptions) {
    this.clock = options.clock;
    this.lifetime = options.lifetime ?? new Lifetime();
    this.maxRetainedResults = options.maxRetainedResults ?? DEFAULT_MAX_RETAINED_RESULTS;
    if (!(Number.isInteger(this.maxRetainedResults) && this.maxRetainedResults >= 1)) throw new Error('createEmulator: maxRetainedResults must be a whole number ≥ 1');
    this.queueDelayMs = options.queueDelayMs ?? 0;
    this.streamHoldMs = options.streamHoldMs ?? 10_000;
    const custom = options.webhookFetch;
    this.webhookFetch = custom ?? ((input, init) => globalThis.fetch(input, init));
    this.workers = new WorkerPools<EmulatedJob>(
      this.clock,
      {
        waiting: (account, endpoint) => this.waiting(account, endpoint),
        start: (account, endpoint, job, worker, onEnd) => void this.execute(account, endpoint, job, worker, onEnd),
      },
      options.workers,
    );
  }

  /** What `/{endpointId}/…` reaches for this account: its own endpoint, else a handler's public endpoint. */
  endpointFor(account: Account, endpointId: string): EmulatedEndpoint | undefined {
    return account.endpoints.get(endpointId) ?? this.publicEndpoint(endpointId);
  }

  /** The public endpoint of a registered handler, or undefined. */
  publicEndpoint(name: string): EmulatedEndpoint | undefined {
    if (!this.handlers.has(name)) return undefined;
    let endpoint = this.publicEndpoints.get(name);
    if (!endpoint) this.publicEndpoints.set(name, (endpoint = handlerEndpoint(name, this.clock.now())));
    return endpoint;
  }

  /** The waiting jobs of an endpoint, oldest first (a job whose ttl ran out in the queue is TIMED_OUT now, and left out). */
  private waiting(account: Account, endpoint: EmulatedEndpoint): EmulatedJob[] {
    const waiting = this.waitingJobs.get(`${account.id}/${endpoint.id}`);
    if (!waiting) return [];
    return [...waiting].filter((job) => this.expire(job) && job.status === 'IN_QUEUE');
  }

  /** The endpoint is gone: its jobs go with its workers, finished ones too (no route reaches them any more). */
  endpointDeleted(account: Account, endpointId: string): void {
    for (const job of [...this.jobs.values()]) if (job.accountId === account.id && job.endpointId === endpointId) this.remove(job);
    this.workers.drop(account, endpointId);
  }

  /**
   * Ends every timer, held request and webhook the queue started. Jobs not yet finished are
   * dropped, so that their handlers, now aborted, start nothing new; finished ones stay readable.
   */
  dispose(): void {
    this.lifetime.dispose();
    this.workers.dispose();
    for (const job of [...this.jobs.values()]) if (!TERMINAL.has(job.status)) this.remove(job);
    for (const timer of [...this.timers]) timer.abort();
    this.timers.clear();
    this.sweeping = false;
  }

  /** How many jobs are kept (for tests of eviction). */
  get size(): number {
    return this.jobs.size;
  }

  /** What the queue holds now, structure by structure (for tests of its bounds: `emulator.inspect.retained()`). */
  retained(): { jobs: number; jobInputs: number; finished: number; waitingQueues: number; jobListeners: number; timers: number; workerPools: number; workers: number; workerTimers: number } {
    let jobListeners = 0;
    let jobInputs = 0;
    for (const job of this.jobs.values()) {
      jobListeners += job.listeners.size;
      if (job.input !== undefined) jobInputs++;
    }
    const pools = this.workers.retained();
    return {
      jobs: this.jobs.size,
      jobInputs,
      finished: this.finished.size,
      waitingQueues: this.waitingJobs.size,
      jobListeners,
      timers: this.timers.size,
      workerPools: pools.pools,
      workers: pools.workers,
      workerTimers: pools.timers,
    };
  }

  /**
   * Runs `fn` after `ms` on the clock, unless cancelled or disposed first (then `onCancel`).
   * `passive`: housekeeping, which `clock.run()` and the auto mode do not jump to.
   */
  private after(ms: number, fn: () => void, onCancel?: () => void, options?: { passive: boolean }): AbortController {
    const timer = new AbortController();
    this.timers.add(timer);
    this.clock.sleep(ms, timer.signal, options).then(
      () => {
        this.timers.delete(timer);
        fn();
      },
      () => {
        this.timers.delete(timer);
        onCancel?.();
      },
    );
    return timer;
  }

  private key(accountId: string, endpointId: string, jobId: string): string {
    return `${accountId}/${endpointId}/${jobId}`;
  }

  private queueKey(job: EmulatedJob): string {
    return `${job.accountId}/${job.endpointId}`;
  }

  private setStatus(job: EmulatedJob, status: EmulatedJobStatus): void {
    if (job.status === status) return;
    job.status = status;
    this.track(job);
  }

  /** Keeps the job among its endpoint's waiting jobs exactly while it is IN_QUEUE. */
  private track(job: EmulatedJob): void {
    const key = this.queueKey(job);
    let waiting = this.waitingJobs.get(key);
    if (job.status === 'IN_QUEUE' && !job.deleted) {
      if (!waiting) this.waitingJobs.set(key, (waiting = new Set()));
      waiting.add(job);
    } else if (waiting?.delete(job) && waiting.size === 0) {
      this.waitingJobs.delete(key);
    }
  }

  /** Jobs waiting for a worker on this endpoint. */
  queuedCount(account: Account, endpoint: EmulatedEndpoint): number {
    return this.waitingJobs.get(`${account.id}/${endpoint.id}`)?.size ?? 0;
  }

  private notify(job: EmulatedJob): void {
    for (const listener of [...job.listeners]) listener();
  }

  /**
   * Resolves when `until()` holds after a change of the job, after `ms` on the clock, or when
   * `signal` (the caller hanging up) fires, so an abandoned hold leaves no sleeper behind.
   */
  private async changeOrTimeout(job: EmulatedJob, ms: number, until: () => boolean, signal?: AbortSignal): Promise<void> {
    if (until() || ms <= 0 || signal?.aborted || this.lifetime.disposed) return;
    // Held until the job changes, the time passes, the caller hangs up or the emulator is disposed.
    const hold = this.lifetime.hold(signal);
    await new Promise<void>((resolve) => {
      let timer: AbortController | undefined = undefined;
      const listener = () => {
        if (until()) finish();
      };
      const finish = () => {
        job.listeners.delete(listener);
        hold.signal.removeEventListener('abort', finish);
        hold.release();
        timer?.abort(TIMER_CANCELLED);
        resolve();
      };
      job.listeners.add(listener);
      hold.signal.addEventListener('abort', finish, { once: true });
      timer = this.after(ms, finish, finish);
    });
  }

  private remove(job: EmulatedJob): void {
    if (job.status === 'IN_QUEUE') this.setStatus(job, 'CANCELLED');
    job.deleted = true;
    job.controller.abort(JOB_ENDED);
    this.jobs.delete(this.key(job.accountId, job.endpointId, job.id));
    this.finished.delete(job);
    this.release(job);
    this.notify(job);
  }

  /** The job has ended: its worker is free. */
  private release(job: EmulatedJob): void {
    const onEnd = job.onEnd;
    job.onEnd = undefined;
    onEnd?.();
  }

  /**
   * Applies the ttl and the result's retention as of now. Returns false once the job is gone.
   * Called on every read, so what callers see is exact; the sweeper only frees memory.
   */
  private expire(job: EmulatedJob): boolean {
    const now = this.clock.now();
    if (!job.ttlSpent && now >= job.expiresAt) {
      job.ttlSpent = true;
      if (job.status === 'IN_QUEUE') {
        this.finish(job, 'TIMED_OUT', {});
      } else {
        this.remove(job);
        return false;
      }
    }
    if (job.finishedAt !== undefined && now > job.finishedAt + job.retentionMs) {
      this.remove(job);
      return false;
    }
    return true;
  }

  private startSweeper(): void {
    if (this.sweeping) return;
    this.sweeping = true;
    const sweep = () => {
      this.sweeping = false;
      for (const job of [...this.jobs.values()]) this.expire(job);
      if (this.jobs.size > 0) this.startSweeper();
    };
    // Passive: the sweep only frees memory (every read applies the expiry itself), so a clock that
    // moves itself must not hop from sweep to sweep past a result's expiry while the client idles
    // between two polls; time moved by hand still sweeps in order. On the real clock it is 10 s of
    // emulator time (a wall-clock 10 s kept results 1,000 s past their expiry at `timeScale: 100`),
    // and it keeps no process alive: a CLI that ran one job exits when done.
    this.after(SWEEP_MS, sweep, () => (this.sweeping = false), { passive: true });
  }

  /** A job of this account's endpoint, or 404 once it has expired. */
  get(account: Account, endpoint: EmulatedEndpoint, jobId: string): EmulatedJob {
    const job = this.jobs.get(this.key(account.id, endpoint.id, jobId));
    if (!job || !this.expire(job)) throw new EmulatorHttpError(404, 'request does not exist');
    return job;
  }

  submit(account: Account, endpoint: EmulatedEndpoint, body: JobSubmission, sync: boolean): EmulatedJob {
    // A request held (by a latency fault, say) until after dispose() must not start a job nobody runs.
    if (this.lifetime.disposed) throw new EmulatorHttpError(503, 'the emulator was disposed');
    const now = this.clock.now();
    const policy = { ...body.policy };
    const job: EmulatedJob = {
      id: `${newId(8)}-${newId(4)}-${newId(4)}-${newId(4)}-${newId(12)}-u1`,
      accountId: account.id,
      endpointId: endpoint.id,
      input: body.input,
      policy,
      webhook: body.webhook,
      status: 'IN_QUEUE',
      createdAt: now,
      eligibleAt: now + this.queueDelayMs,
      expiresAt: now + (policy.ttl ?? DEFAULT_TTL_MS),
      ttlSpent: false,
      retentionMs: sync ? RUNSYNC_RETENTION_MS : RUN_RETENTION_MS,
      pending: [],
      controller: new AbortController(),
      listeners: new Set(),
      retries: 0,
      deleted: false,
    };
    this.jobs.set(this.key(account.id, endpoint.id, job.id), job);
    this.track(job);
    this.workers.wake(account, endpoint);
    this.startSweeper();
    return job;
  }

  private finish(job: EmulatedJob, status: EmulatedJobStatus, fields: { output?: unknown; error?: string }, bill?: { account: Account; endpoint: EmulatedEndpoint }): void {
    if (TERMINAL.has(job.status) || job.deleted) return;
    this.setStatus(job, status);
    job.finishedAt = this.clock.now();
    delete job.progress;
    if (fields.output !== undefined) job.output = fields.output;
    if (fields.error !== undefined) job.error = fields.error;
    // Only a FAILED or TIMED_OUT job can run again (retry): any other lets its input go now, not
    // when its result expires (a soak of large inputs kept 10,000 of them for 30 minutes).
    if (status === 'COMPLETED' || status === 'CANCELLED') job.input = undefined;
    const ranMs = job.startedAt === undefined ? 0 : job.finishedAt - job.startedAt;
    if (bill && ranMs > 0) this.charge(bill.account, bill.endpoint, job.workerId ?? workerIdOf(bill.endpoint), ranMs, job.finishedAt);
    this.finished.add(job);
    // The count cap: the oldest finished result goes first (the time cap is `expire`).
    for (const oldest of this.finished) {
      if (this.finished.size <= this.maxRetainedResults) break;
      this.remove(oldest);
    }
    job.controller.abort(JOB_ENDED);
    this.release(job);
    this.notify(job);
    if (job.webhook) this.sendWebhook(job.webhook, JSON.stringify(this.view(job)), 1);
  }

  /** Adds a job's run to the bill: to this hour's row of its endpoint and GPU type (`podId`: the first worker billed in it). */
  private charge(account: Account, endpoint: EmulatedEndpoint, podId: string, ranMs: number, at: number): void {
    const hour = Math.floor(at / HOUR_MS);
    if (hour !== this.chargeRows.hour) this.chargeRows = { hour, rows: new Map() };
    const gpuTypeId = endpoint.gpuTypeIds[0] ?? 'NVIDIA RTX A4000';
    const amount = (ranMs / 1000) * SERVERLESS_PRICE_PER_SECOND * Math.max(1, endpoint.gpuCount);
    const key = `${account.id}\u0000${endpoint.id}\u0000${gpuTypeId}`;
    const row = this.chargeRows.rows.get(key);
    if (row && row.at <= at) {
      row.amount += amount;
      row.timeBilledMs += ranMs;
      return;
    }
    const fresh: EndpointCharge = { endpointId: endpoint.id, ...(endpoint.public && { public: true }), gpuTypeId, podId, amount, timeBilledMs: ranMs, at };
    account.endpointCharges.push(fresh);
    this.chargeRows.rows.set(key, fresh);
  }

  /** POSTs the `/status` body; anything but 200 is tried again 10 s later, 3 attempts in all. */
  private sendWebhook(url: string, body: string, attempt: number): void {
    const inFlight = new AbortController();
    this.timers.add(inFlight);
    let sending: Promise<Response>;
    try {
      sending = this.webhookFetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: inFlight.signal });
    } catch (err) {
      sending = Promise.reject(err);
    }
    const delivered = sending
      .then(
        async (response) => {
          await response.body?.cancel().catch(() => undefined);
          return response.status === 200;
        },
        () => false,
      )
      .finally(() => this.timers.delete(inFlight));
    if (attempt >= WEBHOOK_ATTEMPTS) return;
    // The next try is timed from this one's start and registered before its answer is in, so a
    // manual clock moved on right after the POST still reaches it.
    const next = this.after(WEBHOOK_RETRY_MS, () => {
      void delivered.then((ok) => {
        if (!ok) this.sendWebhook(url, body, attempt + 1);
      });
    });
    void delivered.then((ok) => {
      if (ok) next.abort(TIMER_CANCELLED);
    });
  }

  /** A worker took the job: it runs until it ends, and `onEnd` frees the worker then. */
  private async execute(account: Account, endpoint: EmulatedEndpoint, job: EmulatedJob, worker: EmulatedWorker, onEnd: () => void): Promise<void> {
    const handler = this.handlers.get(endpoint.handler) ?? BUILT_IN_HANDLERS.echo!;
    this.setStatus(job, 'IN_PROGRESS');
    job.startedAt = this.clock.now();
    job.workerId = worker.id;
    job.onEnd = onEnd;
    this.notify(job);
    const signal = job.controller.signal;
    const ctx: HandlerContext = {
      jobId: job.id,
      endpointId: endpoint.id,
      signal,
      sleep: (ms) => this.clock.sleep(ms, signal),
      stream: (output, metrics) => {
        if (TERMINAL.has(job.status)) return;
        job.pending.push(metrics ? { output, metrics } : { output });
        this.notify(job);
      },
      progress: (output) => {
        if (job.status !== 'IN_PROGRESS') return;
        job.progress = { output };
        this.notify(job);
      },
    };
    const bill = { account, endpoint };
    const timeoutMs = job.policy.executionTimeout ?? endpoint.executionTimeoutMs ?? DEFAULT_EXECUTION_TIMEOUT_MS;
    const timer = this.after(timeoutMs, () => this.finish(job, 'TIMED_OUT', {}, bill));
    try {
      const output = await handler(job.input, ctx);
      if (isPlainObject(output) && 'error' in output) {
        const { error, ...rest } = output;
        this.finish(job, 'FAILED', { error: typeof error === 'string' ? error : JSON.stringify(error), output: Object.keys(rest).length > 0 ? rest : undefined }, bill);
      } else {
        this.finish(job, 'COMPLETED', { output }, bill);
      }
    } catch (err) {
      this.finish(job, 'FAILED', { error: raisedError(err, job.workerId ?? workerIdOf(endpoint)) }, bill);
    } finally {
      timer.abort(TIMER_CANCELLED);
    }
  }

  /** `/runsync` and `/status-sync`: holds until the job is terminal or `waitMs` has passed on the clock. */
  async waitFor(job: EmulatedJob, waitMs: number, signal?: AbortSignal): Promise<void> {
    await this.changeOrTimeout(job, waitMs, () => TERMINAL.has(job.status) || job.deleted, signal);
  }

  /** `/stream`: drains the chunks that are ready, holding a while (or `holdMs`) when there are none. */
  async drain(job: EmulatedJob, holdMs = this.streamHoldMs, signal?: AbortSignal): Promise<{ status: EmulatedJobStatus; stream: Chunk[] }> {
    await this.changeOrTimeout(job, holdMs, () => job.pending.length > 0 || TERMINAL.has(job.status) || job.deleted, signal);
    const stream = job.pending.splice(0, job.pending.length);
    if (job.status === 'FAILED') return { status: 'FAILED', stream: [] };
    return { status: job.status, stream };
  }

  cancel(account: Account, endpoint: EmulatedEndpoint, job: EmulatedJob): void {
    this.finish(job, 'CANCELLED', {}, { account, endpoint });
  }

  retry(account: Account, endpoint: EmulatedEndpoint, job: EmulatedJob): void {
    if (job.status !== 'FAILED' && job.status !== 'TIMED_OUT') throw badRequest(`job ${job.id} is ${job.status}; only FAILED or TIMED_OUT jobs can be retried`);
    this.setStatus(job, 'IN_QUEUE');
    this.finished.delete(job);
    job.retries += 1;
    delete job.error;
    delete job.output;
    delete job.progress;
    delete job.startedAt;
    delete job.finishedAt;
    job.pending = [];
    job.controller = new AbortController();
    job.eligibleAt = this.clock.now() + this.queueDelayMs;
    this.workers.wake(account, endpoint);
  }

  /** Removes this account's queued jobs of the endpoint; running ones stay. */
  purge(account: Account, endpoint: EmulatedEndpoint): number {
    let removed = 0;
    for (const job of [...this.jobs.values()]) {
      if (job.accountId === account.id && job.endpointId === endpoint.id && job.status === 'IN_QUEUE') {
        this.remove(job);
        removed += 1;
      }
    }
    return removed;
  }

  /** `/health`: the jobs of this account's endpoint, and its workers as the REST v2 workers list counts them. */
  health(account: Account, endpoint: EmulatedEndpoint): { jobs: Record<string, number>; workers: Record<string, number> } {
    const counts = { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 };
    for (const job of [...this.jobs.values()]) {
      if (job.accountId !== account.id || job.endpointId !== endpoint.id || !this.expire(job)) continue;
      if (job.status === 'COMPLETED') counts.completed += 1;
      if (job.status === 'FAILED' || job.status === 'TIMED_OUT') counts.failed += 1;
      if (job.status === 'IN_PROGRESS') counts.inProgress += 1;
      if (job.status === 'IN_QUEUE') counts.inQueue += 1;
      counts.retried += job.retries;
    }
    const { running, idle, initializing, throttled, unhealthy }: WorkerSummary = this.workers.summary(account, endpoint);
    return { jobs: counts, workers: { idle, initializing, ready: idle, running, throttled, unhealthy } };
  }

  /** The job as `/status`, `/status-sync`, `/runsync` and webhooks show it. */
  view(job: EmulatedJob): Record<string, unknown> {
    const now = this.clock.now();
    const out: Record<string, unknown> = { id: job.id, status: job.status };
    out.delayTime = (job.startedAt ?? job.finishedAt ?? now) - job.createdAt;
    if (job.startedAt !== undefined) out.executionTime = (job.finishedAt ?? now) - job.startedAt;
    if (job.status === 'IN_PROGRESS' && job.progress) out.output = job.progress.output;
    if ((job.status === 'COMPLETED' || job.status === 'FAILED') && job.output !== undefined) out.output = job.output;
    if (job.error !== undefined) out.error = job.error;
    if (job.retries > 0) out.retries = job.retries;
    return out;
  }
}

/** Names a worker for a job no worker took (it cannot happen; the fallback keeps the types honest). */
function workerIdOf(endpoint: EmulatedEndpoint): string {
  return `${endpoint.id}-worker`;
}

/** What the platform's worker SDK reports when a handler raises: a JSON-encoded object. */
function raisedError(err: unknown, workerId: string): string {
  const name = err instanceof Error ? err.name : 'Exception';
  const message = err instanceof Error ? err.message : String(err);
  const traceback = err instanceof Error && err.stack ? err.stack : `${name}: ${message}`;
  return JSON.stringify({
    error_type: `<class '${name}'>`,
    error_message: message,
    error_traceback: traceback,
    hostname: `${workerId}-emulator`,
    worker_id: workerId,
    runpod_version: RUNPOD_VERSION,
  });
}

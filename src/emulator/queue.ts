import type { EmulatorClock } from './clock.js';
import { SERVERLESS_PRICE_PER_SECOND } from './catalog.js';
import { badRequest, EmulatorHttpError } from './errors.js';
import { newId } from './ids.js';
import type { Account, EmulatedEndpoint } from './platform.js';

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
}

/** A serverless worker: resolve with the output, throw to fail the job. */
export type JobHandler = (input: unknown, ctx: HandlerContext) => unknown;

interface Chunk {
  output: unknown;
  metrics?: Record<string, unknown>;
}

export interface EmulatedJob {
  id: string;
  endpointId: string;
  input: unknown;
  policy: { executionTimeout?: number; ttl?: number; lowPriority?: boolean };
  status: EmulatedJobStatus;
  output?: unknown;
  error?: string;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  /** How long the result is kept after it finishes: 30 min after /run, 1 min after /runsync. */
  retentionMs: number;
  pending: Chunk[];
  controller: AbortController;
  listeners: Set<() => void>;
  retries: number;
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

const TERMINAL = new Set<EmulatedJobStatus>(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);
const DEFAULT_EXECUTION_TIMEOUT_MS = 600_000;
const RUN_RETENTION_MS = 30 * 60_000;
const RUNSYNC_RETENTION_MS = 60_000;

export interface QueueOptions {
  clock: EmulatorClock;
  /** Time a job spends IN_QUEUE before a worker takes it. @default 0 */
  queueDelayMs?: number | undefined;
  /** How long `/stream` holds when nothing is ready. @default 10000 */
  streamHoldMs?: number | undefined;
}

/** Queue-based serverless endpoints: jobs, their states, results and streams. */
export class ServerlessQueue {
  readonly handlers = new Map<string, JobHandler>(Object.entries(BUILT_IN_HANDLERS));
  private readonly jobs = new Map<string, EmulatedJob>();
  private readonly clock: EmulatorClock;
  private readonly queueDelayMs: number;
  private readonly streamHoldMs: number;

  constructor(options: QueueOptions) {
    this.clock = options.clock;
    this.queueDelayMs = options.queueDelayMs ?? 0;
    this.streamHoldMs = options.streamHoldMs ?? 10_000;
  }

  private key(endpointId: string, jobId: string): string {
    return `${endpointId}/${jobId}`;
  }

  private notify(job: EmulatedJob): void {
    for (const listener of [...job.listeners]) listener();
  }

  /** Resolves when the job changes (new chunk or status), or after `ms` on the clock. */
  private async changeOrTimeout(job: EmulatedJob, ms: number, until: () => boolean): Promise<void> {
    if (until()) return;
    const timeout = new AbortController();
    await new Promise<void>((resolve) => {
      const listener = () => {
        if (until()) finish();
      };
      const finish = () => {
        job.listeners.delete(listener);
        timeout.abort();
        resolve();
      };
      job.listeners.add(listener);
      this.clock.sleep(ms, timeout.signal).then(finish, () => undefined);
    });
  }

  /** A job of this endpoint, or 404 once its result has expired. */
  get(endpoint: EmulatedEndpoint, jobId: string): EmulatedJob {
    const job = this.jobs.get(this.key(endpoint.id, jobId));
    if (!job) throw new EmulatorHttpError(404, 'request does not exist');
    if (job.finishedAt !== undefined && this.clock.now() > job.finishedAt + job.retentionMs) {
      this.jobs.delete(this.key(endpoint.id, jobId));
      throw new EmulatorHttpError(404, 'request does not exist');
    }
    return job;
  }

  submit(account: Account, endpoint: EmulatedEndpoint, body: { input: unknown; policy?: EmulatedJob['policy'] }, sync: boolean): EmulatedJob {
    const job: EmulatedJob = {
      id: `${newId(8)}-${newId(4)}-${newId(4)}-${newId(4)}-${newId(12)}-u1`,
      endpointId: endpoint.id,
      input: body.input,
      policy: body.policy ?? {},
      status: 'IN_QUEUE',
      createdAt: this.clock.now(),
      retentionMs: sync ? RUNSYNC_RETENTION_MS : RUN_RETENTION_MS,
      pending: [],
      controller: new AbortController(),
      listeners: new Set(),
      retries: 0,
    };
    this.jobs.set(this.key(endpoint.id, job.id), job);
    this.schedule(account, endpoint, job);
    return job;
  }

  private schedule(account: Account, endpoint: EmulatedEndpoint, job: EmulatedJob): void {
    const start = () => {
      if (job.status === 'IN_QUEUE') void this.execute(account, endpoint, job);
    };
    if (this.queueDelayMs > 0) this.clock.sleep(this.queueDelayMs).then(start, () => undefined);
    else queueMicrotask(start);
  }

  private finish(account: Account, endpoint: EmulatedEndpoint, job: EmulatedJob, status: EmulatedJobStatus, fields: { output?: unknown; error?: string }): void {
    if (TERMINAL.has(job.status)) return;
    job.status = status;
    job.finishedAt = this.clock.now();
    if ('output' in fields) job.output = fields.output;
    if (fields.error !== undefined) job.error = fields.error;
    const ranMs = job.startedAt === undefined ? 0 : job.finishedAt - job.startedAt;
    if (ranMs > 0) {
      account.endpointCharges.push({
        endpointId: endpoint.id,
        gpuTypeId: endpoint.gpuTypeIds[0] ?? 'NVIDIA RTX A4000',
        podId: `${endpoint.id}-worker-1`,
        amount: (ranMs / 1000) * SERVERLESS_PRICE_PER_SECOND * Math.max(1, endpoint.gpuCount),
        timeBilledMs: ranMs,
        at: job.finishedAt,
      });
    }
    job.controller.abort();
    this.notify(job);
  }

  private async execute(account: Account, endpoint: EmulatedEndpoint, job: EmulatedJob): Promise<void> {
    const handler = this.handlers.get(endpoint.handler) ?? BUILT_IN_HANDLERS.echo!;
    job.status = 'IN_PROGRESS';
    job.startedAt = this.clock.now();
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
    };
    const timeoutMs = job.policy.executionTimeout ?? endpoint.executionTimeoutMs ?? DEFAULT_EXECUTION_TIMEOUT_MS;
    const timer = new AbortController();
    this.clock.sleep(timeoutMs, timer.signal).then(
      () => this.finish(account, endpoint, job, 'TIMED_OUT', {}),
      () => undefined,
    );
    try {
      const output = await handler(job.input, ctx);
      this.finish(account, endpoint, job, 'COMPLETED', { output });
    } catch (err) {
      this.finish(account, endpoint, job, 'FAILED', { error: err instanceof Error ? err.message : String(err) });
    } finally {
      timer.abort();
    }
  }

  /** `/runsync`: holds until the job is terminal or `waitMs` has passed on the clock. */
  async waitFor(job: EmulatedJob, waitMs: number): Promise<void> {
    await this.changeOrTimeout(job, waitMs, () => TERMINAL.has(job.status));
  }

  /** `/stream`: drains the chunks that are ready, holding a while when there are none. */
  async drain(job: EmulatedJob): Promise<{ status: EmulatedJobStatus; stream: Chunk[] }> {
    await this.changeOrTimeout(job, this.streamHoldMs, () => job.pending.length > 0 || TERMINAL.has(job.status));
    const stream = job.pending.splice(0, job.pending.length);
    return { status: job.status, stream };
  }

  cancel(account: Account, endpoint: EmulatedEndpoint, job: EmulatedJob): void {
    this.finish(account, endpoint, job, 'CANCELLED', {});
  }

  retry(account: Account, endpoint: EmulatedEndpoint, job: EmulatedJob): void {
    if (job.status !== 'FAILED' && job.status !== 'TIMED_OUT') throw badRequest(`job ${job.id} is ${job.status}; only FAILED or TIMED_OUT jobs can be retried`);
    job.status = 'IN_QUEUE';
    job.retries += 1;
    delete job.error;
    delete job.output;
    delete job.startedAt;
    delete job.finishedAt;
    job.pending = [];
    job.controller = new AbortController();
    this.schedule(account, endpoint, job);
  }

  /** Removes queued jobs; running ones stay. */
  purge(endpoint: EmulatedEndpoint): number {
    let removed = 0;
    for (const [key, job] of this.jobs) {
      if (job.endpointId === endpoint.id && job.status === 'IN_QUEUE') {
        job.status = 'CANCELLED';
        job.controller.abort();
        this.jobs.delete(key);
        removed += 1;
      }
    }
    return removed;
  }

  health(endpoint: EmulatedEndpoint): { jobs: Record<string, number>; workers: Record<string, number> } {
    const counts = { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 };
    for (const job of this.jobs.values()) {
      if (job.endpointId !== endpoint.id) continue;
      if (job.status === 'COMPLETED') counts.completed += 1;
      if (job.status === 'FAILED' || job.status === 'TIMED_OUT') counts.failed += 1;
      if (job.status === 'IN_PROGRESS') counts.inProgress += 1;
      if (job.status === 'IN_QUEUE') counts.inQueue += 1;
      counts.retried += job.retries;
    }
    const running = Math.min(counts.inProgress, Math.max(1, endpoint.workersMax));
    return { jobs: counts, workers: { idle: Math.max(0, endpoint.workersMin - running), running, initializing: 0, ready: Math.max(0, endpoint.workersMin - running), throttled: 0 } };
  }

  /** The job as `/status` and `/runsync` show it. */
  view(job: EmulatedJob): Record<string, unknown> {
    const now = this.clock.now();
    const out: Record<string, unknown> = { id: job.id, status: job.status };
    out.delayTime = (job.startedAt ?? now) - job.createdAt;
    if (job.startedAt !== undefined) out.executionTime = (job.finishedAt ?? now) - job.startedAt;
    if (job.status === 'COMPLETED') out.output = job.output;
    if (job.error !== undefined) out.error = job.error;
    if (job.retries > 0) out.retries = job.retries;
    return out;
  }
}

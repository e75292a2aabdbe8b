import { TIMER_CANCELLED, type EmulatorClock } from './clock.js';
import { newId } from './ids.js';
import type { Account, EmulatedEndpoint } from './platform.js';

/** What a worker is doing, as `/health` and the REST v2 workers list report it. */
export type WorkerStatus = 'INITIALIZING' | 'IDLE' | 'RUNNING' | 'THROTTLED' | 'UNHEALTHY';

/** One worker of an endpoint: it takes one job at a time. */
export interface EmulatedWorker {
  readonly id: string;
  status: WorkerStatus;
  /** When it was created: its cold start began then. */
  readonly startedAt: number;
  /** When its cold start ends. */
  readonly readyAt: number;
  /** Since when it has been IDLE; it goes away `idleTimeout` seconds later (above `workers.min`). */
  idleSince?: number | undefined;
  /** The job it holds while RUNNING. */
  jobId?: string | undefined;
}

/** The worker counts `/health` and `GET /v2/serverless/{id}/workers` share. */
export interface WorkerSummary {
  running: number;
  idle: number;
  initializing: number;
  throttled: number;
  unhealthy: number;
  total: number;
}

/** Timings of every worker pool, on the emulator clock. */
export interface WorkerTimings {
  /** A new worker's cold start when the endpoint's `flashboot` is OFF. @default 500 */
  coldStartMs?: number | undefined;
  /** A new worker's cold start with `FLASHBOOT` or `PRIORITY_FLASHBOOT`. @default 100 */
  flashbootColdStartMs?: number | undefined;
}

export const DEFAULT_COLD_START_MS = 500;
export const DEFAULT_FLASHBOOT_COLD_START_MS = 100;

/** A job as the pool sees it: waiting since `eligibleAt` (when the platform hands it to workers). */
export interface QueuedJob {
  readonly id: string;
  readonly eligibleAt: number;
}

/** What the pool needs from the queue: the waiting jobs, and a way to run one. */
export interface JobSource<J extends QueuedJob> {
  /** The pool's waiting jobs, oldest first; jobs that expired in the queue are left out. */
  waiting(account: Account, endpoint: EmulatedEndpoint): Iterable<J>;
  /** Runs `job` on `worker`; `onEnd` is called once when the job has ended, however it ended. */
  start(account: Account, endpoint: EmulatedEndpoint, job: J, worker: EmulatedWorker, onEnd: () => void): void;
}

/** The endpoint's `flashboot` (kept by REST v2; endpoints made otherwise have it OFF). */
function flashbootOf(endpoint: EmulatedEndpoint): string {
  const v2 = endpoint.v2 as { flashboot?: unknown } | undefined;
  return typeof v2?.flashboot === 'string' ? v2.flashboot : 'OFF';
}

const finiteOr = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

/** The workers of one endpoint of one account, between `workers.min` and `workers.max`. */
class WorkerPool<J extends QueuedJob> {
  readonly workers: EmulatedWorker[] = [];
  private wakeAt: number | undefined;
  private wakeTimer: AbortController | undefined;
  private pumpQueued = false;

  constructor(
    private readonly pools: WorkerPools<J>,
    readonly account: Account,
    public endpoint: EmulatedEndpoint,
  ) {}

  private get clock(): EmulatorClock {
    return this.pools.clock;
  }

  /** Pumps once the current task's other steps have run (several submissions, one pump). */
  wake(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    queueMicrotask(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  private coldStartMs(): number {
    const own = this.endpoint.coldStartMs;
    if (typeof own === 'number' && Number.isFinite(own)) return Math.max(0, own);
    return flashbootOf(this.endpoint) === 'OFF' ? this.pools.coldStartMs : this.pools.flashbootColdStartMs;
  }

  /** Brings the pool up to date with the clock: cold starts end, idle workers go, jobs are taken, workers are added. */
  pump(): void {
    if (this.pools.disposed) return;
    for (let round = 0; round < 3; round++) {
      const now = this.clock.now();
      this.promote(now);
      this.retire(now);
      this.dispatch(now);
      if (!this.scale(now)) break;
    }
    this.scheduleWake(this.clock.now());
  }

  private promote(now: number): void {
    for (const worker of this.workers) {
      if (worker.status === 'INITIALIZING' && worker.readyAt <= now) {
        worker.status = 'IDLE';
        worker.idleSince = worker.readyAt;
      }
    }
  }

  /** Idle workers past `idleTimeout` go, down to `workers.min`; and no pool keeps more than `workers.max`. */
  private retire(now: number): void {
    const { min, max } = this.bounds();
    // Lowered `workers.max`: cold starts under way are given up first, then idle workers (a running job keeps its worker).
    for (const worker of this.workers.filter((w) => w.status === 'INITIALIZING').reverse()) {
      if (this.workers.length <= max) break;
      this.remove(worker);
    }
    const idleMs = Math.max(1, finiteOr(this.endpoint.idleTimeout, 5)) * 1000;
    const idle = this.workers.filter((w) => w.status === 'IDLE').sort((a, b) => (a.idleSince ?? 0) - (b.idleSince ?? 0));
    for (const worker of idle) {
      if (this.workers.length > max || (this.workers.length > min && (worker.idleSince ?? now) + idleMs <= now)) this.remove(worker);
    }
  }

  private remove(worker: EmulatedWorker): void {
    const at = this.workers.indexOf(worker);
    if (at >= 0) this.workers.splice(at, 1);
  }

  private bounds(): { min: number; max: number } {
    const max = Math.max(0, Math.floor(finiteOr(this.endpoint.workersMax, 0)));
    return { min: Math.min(max, Math.max(0, Math.floor(finiteOr(this.endpoint.workersMin, 0)))), max };
  }

  /** Each idle worker takes the oldest job it may take now. */
  private dispatch(now: number): void {
    let idle = this.workers.filter((w) => w.status === 'IDLE');
    if (idle.length === 0) return;
    // The worker idle the longest takes the next job, so the others reach their idle timeout.
    idle = idle.sort((a, b) => (a.idleSince ?? 0) - (b.idleSince ?? 0));
    for (const job of [...this.pools.source.waiting(this.account, this.endpoint)]) {
      if (job.eligibleAt > now) continue;
      const worker = idle.shift();
      if (!worker) break;
      worker.status = 'RUNNING';
      worker.idleSince = undefined;
      worker.jobId = job.id;
      let ended = false;
      this.pools.source.start(this.account, this.endpoint, job, worker, () => {
        if (ended) return;
        ended = true;
        if (worker.jobId !== job.id || !this.workers.includes(worker)) return;
        worker.status = 'IDLE';
        worker.jobId = undefined;
        worker.idleSince = this.clock.now();
        this.wake();
      });
    }
  }

  /** Adds workers as the scaler asks; true when one is ready at once (a cold start of 0). */
  private scale(now: number): boolean {
    const { min, max } = this.bounds();
    let waiting = 0;
    let overdue = 0;
    const queueDelayMs = Math.max(0, finiteOr(this.endpoint.scalerValue, 4)) * 1000;
    for (const job of this.pools.source.waiting(this.account, this.endpoint)) {
      if (job.eligibleAt > now) continue;
      waiting += 1;
      if (now - job.eligibleAt >= queueDelayMs) overdue += 1;
    }
    const total = this.workers.length;
    const running = this.workers.filter((w) => w.status === 'RUNNING').length;
    const initializing = this.workers.filter((w) => w.status === 'INITIALIZING').length;
    let add = Math.max(0, min - total);
    if (waiting > 0) {
      if (this.endpoint.scalerType === 'REQUEST_COUNT') {
        // As many workers as (waiting + running) / requestCount, rounded up.
        const perWorker = Math.max(1, Math.floor(finiteOr(this.endpoint.scalerValue, 1)));
        add = Math.max(add, Math.ceil((waiting + running) / perWorker) - total);
      } else {
        // QUEUE_DELAY: a first worker at once; more for the jobs that waited longer than `queueDelay`.
        add = Math.max(add, total === 0 ? 1 : 0, overdue - initializing);
      }
    }
    add = Math.min(add, max - total);
    if (add <= 0) return false;
    const coldStartMs = this.coldStartMs();
    for (let i = 0; i < add; i++) {
      this.workers.push({ id: newId(14), status: coldStartMs === 0 ? 'IDLE' : 'INITIALIZING', startedAt: now, readyAt: now + coldStartMs, ...(coldStartMs === 0 && { idleSince: now }) });
    }
    return coldStartMs === 0;
  }

  /** When something is due without anyone asking: a cold start ends, a job becomes eligible, or has waited `queueDelay`. */
  private nextEvent(now: number): number | undefined {
    let next: number | undefined;
    const consider = (at: number) => {
      if (at > now && (next === undefined || at < next)) next = at;
    };
    for (const worker of this.workers) if (worker.status === 'INITIALIZING') consider(worker.readyAt);
    const canGrow = this.workers.length < this.bounds().max;
    const queueDelay = this.endpoint.scalerType !== 'REQUEST_COUNT';
    const queueDelayMs = Math.max(0, finiteOr(this.endpoint.scalerValue, 4)) * 1000;
    for (const job of this.pools.source.waiting(this.account, this.endpoint)) {
      consider(job.eligibleAt);
      if (canGrow && queueDelay) consider(job.eligibleAt + queueDelayMs);
    }
    return next;
  }

  private scheduleWake(now: number): void {
    const next = this.nextEvent(now);
    if (next === this.wakeAt) return;
    this.wakeTimer?.abort(TIMER_CANCELLED);
    this.wakeTimer = undefined;
    this.wakeAt = next;
    if (next === undefined) return;
    const timer = new AbortController();
    this.wakeTimer = timer;
    this.pools.timers.add(timer);
    this.clock.sleep(next - now, timer.signal).then(
      () => {
        this.pools.timers.delete(timer);
        if (this.wakeTimer !== timer) return;
        this.wakeTimer = undefined;
        this.wakeAt = undefined;
        this.pump();
      },
      () => this.pools.timers.delete(timer),
    );
  }

  /** Stops the pool's timer; its workers go. */
  close(): void {
    this.wakeTimer?.abort(TIMER_CANCELLED);
    this.wakeTimer = undefined;
    this.wakeAt = undefined;
    this.workers.splice(0);
  }

  summary(): WorkerSummary {
    const count = (status: WorkerStatus) => this.workers.filter((w) => w.status === status).length;
    return { running: count('RUNNING'), idle: count('IDLE'), initializing: count('INITIALIZING'), throttled: count('THROTTLED'), unhealthy: count('UNHEALTHY'), total: this.workers.length };
  }
}

/**
 * The worker pools of every endpoint (one per account and endpoint): they scale between
 * `workers.min` and `workers.max` as the endpoint's `scaling` says, cold-start on the emulator
 * clock, go after `idleTimeout` seconds idle, and take one job at a time from the queue.
 */
export class WorkerPools<J extends QueuedJob> {
  private readonly pools = new Map<string, WorkerPool<J>>();
  /** Every timer the pools started, so that `dispose()` can end them. */
  readonly timers = new Set<AbortController>();
  readonly coldStartMs: number;
  readonly flashbootColdStartMs: number;
  disposed = false;

  constructor(
    readonly clock: EmulatorClock,
    readonly source: JobSource<J>,
    timings: WorkerTimings = {},
  ) {
    this.coldStartMs = Math.max(0, finiteOr(timings.coldStartMs, DEFAULT_COLD_START_MS));
    this.flashbootColdStartMs = Math.max(0, finiteOr(timings.flashbootColdStartMs, DEFAULT_FLASHBOOT_COLD_START_MS));
  }

  private key(account: Account, endpointId: string): string {
    return `${account.id}/${endpointId}`;
  }

  private pool(account: Account, endpoint: EmulatedEndpoint): WorkerPool<J> {
    const key = this.key(account, endpoint.id);
    let pool = this.pools.get(key);
    if (!pool) this.pools.set(key, (pool = new WorkerPool(this, account, endpoint)));
    pool.endpoint = endpoint;
    return pool;
  }

  /** Something changed for this endpoint (a job arrived or ended, its settings changed): the pool looks again soon. */
  wake(account: Account, endpoint: EmulatedEndpoint): void {
    if (!this.disposed) this.pool(account, endpoint).wake();
  }

  /** The endpoint was created or its settings changed: its pool follows at once (`workers.min` start now). */
  refresh(account: Account, endpoint: EmulatedEndpoint): void {
    if (!this.disposed) this.pool(account, endpoint).pump();
  }

  /** The endpoint's workers as of now (brought up to date first). */
  workers(account: Account, endpoint: EmulatedEndpoint): readonly EmulatedWorker[] {
    const pool = this.pool(account, endpoint);
    pool.pump();
    return pool.workers;
  }

  /** The counts `/health` and the REST v2 workers list report. */
  summary(account: Account, endpoint: EmulatedEndpoint): WorkerSummary {
    const pool = this.pool(account, endpoint);
    pool.pump();
    return pool.summary();
  }

  /** Pools, their workers and their timers, for `emulator.inspect.retained()`. */
  retained(): { pools: number; workers: number; timers: number } {
    let workers = 0;
    for (const pool of this.pools.values()) workers += pool.workers.length;
    return { pools: this.pools.size, workers, timers: this.timers.size };
  }

  /** The endpoint was deleted: its workers go. */
  drop(account: Account, endpointId: string): void {
    const key = this.key(account, endpointId);
    this.pools.get(key)?.close();
    this.pools.delete(key);
  }

  dispose(): void {
    this.disposed = true;
    for (const pool of this.pools.values()) pool.close();
    this.pools.clear();
    for (const timer of [...this.timers]) timer.abort();
    this.timers.clear();
  }
}

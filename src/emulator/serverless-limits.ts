import type { EmulatorClock } from './clock.js';

/** The rate-limited groups of queue routes. `/status` and `/status-sync` share `status`; `openai` is `/openai/*`. */
export type ServerlessLimitRoute = 'run' | 'runsync' | 'status' | 'stream' | 'cancel' | 'purge-queue' | 'openai';

/** At most `requests` per `intervalMs` (a token bucket that refills evenly), and at most `concurrency` in flight. */
export interface ServerlessRouteLimit {
  requests: number;
  /** @default 10000 */
  intervalMs?: number | undefined;
  /** No cap when left out. */
  concurrency?: number | undefined;
}

/** The platform's per-endpoint limits, on by default. */
export interface ServerlessLimits {
  /** Replaces the limit of a route group; `false` lifts it. */
  routes?: Partial<Record<ServerlessLimitRoute, ServerlessRouteLimit | false>> | undefined;
  /**
   * 429 on `/run` and `/runsync` while the queue holds more than `minJobs` and more than
   * `workersMax × jobsPerWorker` jobs; `false` turns it off. @default { minJobs: 50, jobsPerWorker: 500 }
   */
  queueFull?: false | { minJobs?: number | undefined; jobsPerWorker?: number | undefined } | undefined;
}

export const DEFAULT_SERVERLESS_LIMITS: Readonly<Record<ServerlessLimitRoute, ServerlessRouteLimit>> = {
  run: { requests: 1000, intervalMs: 10_000, concurrency: 200 },
  runsync: { requests: 2000, intervalMs: 10_000, concurrency: 400 },
  status: { requests: 2000, intervalMs: 10_000, concurrency: 400 },
  stream: { requests: 2000, intervalMs: 10_000, concurrency: 400 },
  cancel: { requests: 100, intervalMs: 10_000, concurrency: 20 },
  'purge-queue': { requests: 2, intervalMs: 10_000 },
  openai: { requests: 2000, intervalMs: 10_000 },
};

interface Bucket {
  tokens: number;
  refilledAt: number;
  inFlight: number;
}

/** Counts requests per account, endpoint and route group on the emulator's clock. */
export class ServerlessLimiter {
  private readonly limits: Partial<Record<ServerlessLimitRoute, ServerlessRouteLimit>>;
  private readonly buckets = new Map<string, Bucket>();
  readonly queueFull: { minJobs: number; jobsPerWorker: number } | undefined;

  constructor(
    private readonly clock: EmulatorClock,
    options: false | ServerlessLimits | undefined,
  ) {
    const routes = options === false ? {} : { ...DEFAULT_SERVERLESS_LIMITS, ...options?.routes };
    this.limits = Object.fromEntries(Object.entries(routes).filter(([, limit]) => limit !== false)) as Partial<Record<ServerlessLimitRoute, ServerlessRouteLimit>>;
    const queueFull = options === false ? false : options?.queueFull;
    this.queueFull = queueFull === false ? undefined : { minJobs: queueFull?.minJobs ?? 50, jobsPerWorker: queueFull?.jobsPerWorker ?? 500 };
  }

  /**
   * Takes a token and a concurrency slot, or returns undefined when the route is over its limit.
   * The returned function gives the slot back.
   */
  acquire(scope: string, route: ServerlessLimitRoute): (() => void) | undefined {
    const limit = this.limits[route];
    if (!limit) return () => undefined;
    const key = `${scope}\u0000${route}`;
    const now = this.clock.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: limit.requests, refilledAt: now, inFlight: 0 };
      this.buckets.set(key, bucket);
    }
    const intervalMs = limit.intervalMs ?? 10_000;
    bucket.tokens = Math.min(limit.requests, bucket.tokens + ((now - bucket.refilledAt) * limit.requests) / intervalMs);
    bucket.refilledAt = now;
    if (bucket.tokens < 1) return undefined;
    if (limit.concurrency !== undefined && bucket.inFlight >= limit.concurrency) return undefined;
    bucket.tokens -= 1;
    bucket.inFlight += 1;
    let released = false;
    const held = bucket;
    return () => {
      if (released) return;
      released = true;
      held.inFlight -= 1;
    };
  }

  /** The endpoint `scope` (`account/endpoint`) was deleted: its buckets go with it (a test that creates and deletes endpoints for days keeps none). */
  forget(scope: string): void {
    for (const route of Object.keys(this.limits)) this.buckets.delete(`${scope}\u0000${route}`);
  }

  /** Buckets kept: one per account, endpoint and route group used (for `emulator.inspect.retained()`). */
  get size(): number {
    return this.buckets.size;
  }

  /** True when a queue of `queued` jobs refuses more work. */
  isQueueFull(queued: number, workersMax: number): boolean {
    if (!this.queueFull) return false;
    return queued > this.queueFull.minJobs && queued > workersMax * this.queueFull.jobsPerWorker;
  }
}

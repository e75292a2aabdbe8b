/** Job states. The last four are terminal. */
export type JobStatus = 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT';

export const TERMINAL_JOB_STATUSES: ReadonlySet<JobStatus> = new Set<JobStatus>(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

export function isTerminalJobStatus(status: string): status is 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT' {
  return TERMINAL_JOB_STATUSES.has(status as JobStatus);
}

/** What `/status/{id}` (and `/runsync`) return. */
export interface JobState<Output = unknown> {
  id: string;
  status: JobStatus;
  /** Milliseconds the job waited in the queue. */
  delayTime?: number;
  /** Milliseconds the job ran. */
  executionTime?: number;
  output?: Output;
  /** Set on FAILED jobs: the worker's error. */
  error?: string;
  [field: string]: unknown;
}

/** A finished job, with its output. */
export interface CompletedJob<Output = unknown> extends JobState<Output> {
  status: 'COMPLETED';
  output: Output;
}

export interface JobPolicy {
  /** Milliseconds a job may run before it ends TIMED_OUT. Platform default 600000 (10 min). */
  executionTimeout?: number;
  /** Low-priority jobs do not make the endpoint scale up. */
  lowPriority?: boolean;
  /** Milliseconds the job may live, queue time included. */
  ttl?: number;
}

/** Where the worker may upload results. */
export interface S3Config {
  accessId: string;
  accessSecret: string;
  bucketName: string;
  endpointUrl: string;
}

export interface StreamChunk<Output = unknown> {
  output: Output;
  metrics?: Record<string, unknown>;
}

export interface EndpointHealth {
  jobs: { completed: number; failed: number; inProgress: number; inQueue: number; retried: number };
  workers: { idle: number; running: number; initializing?: number; ready?: number; throttled?: number; [state: string]: number | undefined };
}

export interface PurgeQueueResult {
  removed: number;
  status: string;
}

import { afterEach, describe, expect, it } from 'vitest';
import { JobTimedOutError, TimeoutError, type RunpodClient } from '../../src/index.js';
import { KEY_A, useEmulator } from './harness.js';

// Each waiting method, against a request the server holds far past the caller's deadline (the
// emulator's latency fault, over loopback), ends at that deadline in the documented error.
const ctx = useEmulator({ podStartupMs: 0 });
const DEADLINE_MS = 600;
/**
 * What "at the deadline" allows: timers and the event loop of a loaded 2-core CI machine (100 ms
 * was seen to be tight there). Still well under one more attempt, backoff or hold, which a call
 * that let its deadline slip would add.
 */
const WITHIN_MS = 400;
const HELD = { type: 'latency', ms: 60_000 } as const;

afterEach(() => ctx.emulator.faults.clear());

interface Case {
  /** The routes held (emulator fault patterns). */
  held: string[];
  /** Sets up what the call needs before the routes are held. */
  prepare?: (rp: RunpodClient) => Promise<() => Promise<unknown>>;
  call?: (rp: RunpodClient) => Promise<unknown>;
  error: new (...args: never[]) => Error;
  /** @default DEADLINE_MS */
  deadlineMs?: number;
  check?: (error: Error) => void;
}

const timedOutAtDeadline = (jobId?: string) => (error: Error) => {
  const e = error as JobTimedOutError;
  expect(e.source).toBe('deadline');
  expect(e.timeoutMs).toBe(DEADLINE_MS);
  if (jobId !== undefined) expect(e.jobId).toBe(jobId);
};

const DEADLINES: Record<string, Case> = {
  'runSync, /runsync held': {
    held: ['POST /queue/v2/*/runsync'],
    call: (rp) => rp.endpoint('sleep').runSync({ ms: 60_000 }, { timeoutMs: DEADLINE_MS }),
    error: JobTimedOutError,
    check: (error) => {
      timedOutAtDeadline()(error);
      // /runsync never answered, so the job's id never came back: the message says so.
      expect(error.message).toMatch(/never answered|id unknown/);
    },
  },
  'runSync, /runsync answers IN_QUEUE, then /status-sync and /status held': {
    held: ['GET /queue/v2/*/status-sync/*', 'GET /queue/v2/*/status/*'],
    call: (rp) => rp.endpoint('sleep').runSync({ ms: 60_000 }, { timeoutMs: 1_200, waitMs: 1_000 }),
    deadlineMs: 1_200,
    error: JobTimedOutError,
    check: (error) => expect((error as JobTimedOutError).job.status).toMatch(/IN_QUEUE|IN_PROGRESS/),
  },
  'job.wait, /status-sync held': {
    held: ['GET /queue/v2/*/status-sync/*', 'GET /queue/v2/*/status/*'],
    prepare: async (rp) => {
      const job = await rp.endpoint('sleep').run({ ms: 60_000 });
      return () => job.wait({ timeoutMs: DEADLINE_MS });
    },
    error: JobTimedOutError,
    check: (error) => {
      timedOutAtDeadline()(error);
      // The last status seen (run's answer), not UNKNOWN.
      expect((error as JobTimedOutError).job.status).toMatch(/^(IN_QUEUE|IN_PROGRESS)$/);
      expect(error.message).toMatch(/was still (IN_QUEUE|IN_PROGRESS) when the 600 ms deadline passed/);
    },
  },
  'job.stream, /stream held': {
    held: ['GET /queue/v2/*/stream/*', 'GET /queue/v2/*/status/*'],
    prepare: async (rp) => {
      const job = await rp.endpoint('stream').run({ chunks: ['a'], delayMs: 60_000 });
      return async () => {
        for await (const _chunk of job.stream({ timeoutMs: DEADLINE_MS })) void _chunk;
      };
    },
    error: JobTimedOutError,
    check: timedOutAtDeadline(),
  },
  'pods.waitUntilReady, the pod lookups held': {
    held: ['POST /graphql', 'GET /v2/pods/*', 'GET /v2/pods'],
    prepare: async (rp) => {
      const pod = await rp.pods.deploy({ imageName: 'img', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 });
      return () => rp.pods.waitUntilReady(pod.id, { timeoutMs: DEADLINE_MS });
    },
    error: TimeoutError,
    check: (error) => expect(error.message).toMatch(new RegExp(`not ready after ${DEADLINE_MS} ms`)),
  },
};

describe('deadlines are kept however the server holds a request', () => {
  it.each(Object.entries(DEADLINES))('%s', async (_name, c) => {
    const rp = ctx.client(KEY_A, { maxRetries: 2 });
    const call = c.prepare ? await c.prepare(rp) : () => c.call!(rp);
    for (const match of c.held) ctx.emulator.faults.inject({ match, fault: HELD, times: 1_000 });
    const started = performance.now();
    const error = await call().then(
      () => new Error('resolved'),
      (err: Error) => err,
    );
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(c.error);
    c.check?.(error);
    const deadline = c.deadlineMs ?? DEADLINE_MS;
    expect(elapsed).toBeGreaterThanOrEqual(deadline - 5);
    expect(elapsed).toBeLessThan(deadline + WITHIN_MS);
  });
});

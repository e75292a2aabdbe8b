// Issue 43's soak mix, shared by test/emulator/soak-retention.test.ts (a few hundred rounds) and the
// bench's `soak` section (test/bench/soak.ts, 100,000 calls): the client, in process, against the
// emulator, calling as a service mixes them. A round is ten calls, four of them jobs:
//   run + wait, run + status, runSync, run + cancel of a long job (even rounds) or a streamed job
//   (odd rounds: run + its stream), a GraphQL read, REST v2's pod list, and a 404 (a job nobody ran).
// Every 50th round adds a pod's life over GraphQL (deploy, get, stop, terminate) and a 500 injected
// on REST v2's pod list, which the client retries.
import { createRunpodClient, NotFoundError, type RunpodClient } from '../../src/index.js';
import type { Emulator } from '../../src/emulator/index.js';

export interface SoakCounts {
  calls: number;
  jobs: number;
  notFound: number;
}

const PODS = 'query SoakPods { myself { pods { id desiredStatus } } }';

/** A client of `emulator` for the soak: its pacing figures raised, so a soak of minutes is not one of hours (the pacer paces on real time). */
export function soakClient(options: Parameters<typeof createRunpodClient>[0]): RunpodClient {
  return createRunpodClient({
    graphqlTransport: 'graphql',
    rateLimits: { serverless: { requests: 100_000, concurrency: 1_000 }, graphql: { requests: 100_000, concurrency: 100 } },
    ...options,
  });
}

export function soakMix(rp: RunpodClient, emulator: Emulator, options: { signal?: AbortSignal; timeoutMs?: number } = {}) {
  const counts: SoakCounts = { calls: 0, jobs: 0, notFound: 0 };
  const o = options.signal === undefined && options.timeoutMs === undefined ? undefined : options;
  const echo = rp.endpoint<{ i: number }, { i: number }>('echo');
  const sleep = rp.endpoint<{ ms: number }>('sleep');
  const stream = rp.endpoint<{ chunks: unknown[]; intervalMs: number }>('stream');
  const count = <T>(n: number, p: Promise<T>) => {
    counts.calls += n;
    return p;
  };

  async function round(i: number): Promise<void> {
    counts.jobs += 4;
    const a = await count(1, echo.run({ i }, o));
    await count(1, a.wait(o));
    const b = await count(1, echo.run({ i }, o));
    await count(1, b.status(o));
    await count(1, echo.runSync({ i }, o));
    if (i % 2 === 0) {
      const c = await count(1, sleep.run({ ms: 60_000 }, o));
      await count(1, c.cancel(o));
    } else {
      const c = await count(1, stream.run({ chunks: [1, 2], intervalMs: 10 }, o));
      counts.calls++;
      for await (const _ of c.stream(options.signal ? { signal: options.signal } : {})) void _;
    }
    await count(1, rp.graphql.execute(PODS, undefined, o));
    await count(1, rp.rest.pods.list(undefined, o));
    await count(1, echo.status(`missing-${i}`, o)).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
      counts.notFound++;
    });
    if (i % 50 === 0) {
      emulator.faults.inject({ match: 'GET /v2/pods', fault: { type: 'status', status: 500 }, times: 1 });
      await count(2, rp.rest.pods.list(undefined, o));
      const pod = await count(1, rp.pods.deploy({ imageName: 'runpod/base:0.6.2-cuda12.4.1', gpuTypeId: 'NVIDIA RTX A4000', cloudType: 'SECURE' }, o));
      await count(1, rp.pods.get(pod.id, o));
      await count(1, rp.pods.stop(pod.id, o));
      await count(1, rp.pods.terminate(pod.id, o));
    }
  }

  /**
   * Rounds `from` to `to`, `batch` at a time under `clock.run`; after each batch the clock moves on
   * `idleMs` (past the workers' idle time-out, so the next batch's jobs meet fresh workers, as on a
   * service's real clock).
   */
  async function rounds(from: number, to: number, batch = 100, idleMs = 6_000): Promise<void> {
    for (let i = from; i < to; i += batch) {
      await emulator.clock.run(Promise.all(Array.from({ length: Math.min(batch, to - i) }, (_, k) => round(i + k))));
      if (idleMs > 0) await emulator.clock.advance(idleMs);
    }
  }

  return { counts, round, rounds };
}

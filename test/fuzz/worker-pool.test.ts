import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { KEY_A, settle, wireEmulator } from '../emulator/serverless-wire.js';
import { FUZZ_TIMEOUT_MS, params, reportFigures } from './harness.js';

// The emulator's worker pools under random settings and random traffic: whatever happens,
// `/health` and the REST v2 workers list agree, the counts add up, no more than `workers.max`
// jobs run, jobs start in the order they came, and every job ends once time has passed.

type Op = { kind: 'run'; ms: number } | { kind: 'advance'; ms: number } | { kind: 'cancel'; pick: number } | { kind: 'purge' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('run' as const), ms: fc.integer({ min: 0, max: 5_000 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 6_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'purge' as const }) },
);

const specArb = fc.record({
  min: fc.integer({ min: 0, max: 2 }),
  extra: fc.integer({ min: 0, max: 3 }),
  idleTimeout: fc.integer({ min: 1, max: 10 }),
  scaling: fc.oneof(
    fc.record({ type: fc.constant('QUEUE_DELAY' as const), queueDelay: fc.constantFrom(0.5, 1, 4, 7.5) }),
    fc.record({ type: fc.constant('REQUEST_COUNT' as const), requestCount: fc.integer({ min: 1, max: 4 }) }),
  ),
  flashboot: fc.constantFrom('OFF' as const, 'FLASHBOOT' as const),
});

let steps = 0;
let jobsRun = 0;
let mostRunning = 0;
afterAll(() => reportFigures('worker pools keep their invariants', { steps, 'jobs run': jobsRun, 'most running at once': mostRunning }));

describe('worker pools', () => {
  it(
    'property: /health and the workers list agree, at most workers.max run, FIFO starts, and every job ends',
    async () => {
      await fc.assert(
        fc.asyncProperty(specArb, fc.array(opArb, { maxLength: 25 }), async (spec, ops) => {
          const { emulator, call, send } = wireEmulator({ serverlessLimits: false });
          try {
            const max = spec.min + spec.extra;
            const id = emulator.endpoints.create({ handler: 'sleep', workers: { min: spec.min, max, idleTimeout: spec.idleTimeout }, scaling: spec.scaling, flashboot: spec.flashboot });
            const restUrl = emulator.clientOptions(KEY_A).restUrl;
            const jobs: string[] = [];
            const submittedAt: number[] = [];
            const check = async () => {
              steps++;
              const health = (await call('GET', `/${id}/health`)).body as { jobs: Record<string, number>; workers: Record<string, number> };
              const { summary, workers } = (await send(`${restUrl}/serverless/${id}/workers`)).body as { summary: Record<string, number>; workers: unknown[] };
              expect(summary.running! + summary.idle! + summary.initializing! + summary.throttled! + summary.unhealthy!).toBe(summary.total);
              expect(workers).toHaveLength(summary.total!);
              for (const key of ['running', 'idle', 'initializing', 'throttled', 'unhealthy']) expect(health.workers[key], key).toBe(summary[key]);
              expect(summary.total).toBeLessThanOrEqual(max);
              expect(summary.total).toBeGreaterThanOrEqual(spec.min);
              expect(health.jobs.inProgress).toBe(summary.running);
              mostRunning = Math.max(mostRunning, summary.running!);
            };
            await check();
            for (const op of ops) {
              if (op.kind === 'run') {
                const answer = await call('POST', `/${id}/run`, { json: { input: { ms: op.ms } } });
                expect(answer.body.status).toBe('IN_QUEUE');
                jobs.push(answer.body.id as string);
                submittedAt.push(emulator.clock.now());
              } else if (op.kind === 'advance') {
                await emulator.clock.advance(op.ms);
              } else if (op.kind === 'cancel' && jobs.length > 0) {
                await call('POST', `/${id}/cancel/${jobs[op.pick % jobs.length]}`);
              } else if (op.kind === 'purge') {
                const before = (await call('GET', `/${id}/health`)).body as { jobs: { inQueue: number } };
                expect((await call('POST', `/${id}/purge-queue`)).body).toEqual({ removed: before.jobs.inQueue, status: 'completed' });
              }
              await settle();
              await check();
            }
            // Enough time for every job: each runs at most 5 s, one after another on one worker.
            for (let i = 0; i < jobs.length + 2; i++) await emulator.clock.advance(6_000);
            await check();
            const states = await Promise.all(
              jobs.map(async (job) => {
                const answer = await call('GET', `/${id}/status/${job}`);
                return answer.status === 404 ? {} : (answer.body as { status?: string; delayTime?: number });
              }),
            );
            const started: number[] = [];
            for (const [i, state] of states.entries()) {
              // Purged jobs are gone (404, no status); with workers.max 0 the others still wait; else they ended.
              if (state.status === undefined) continue;
              expect(max === 0 ? ['IN_QUEUE', 'CANCELLED'] : ['COMPLETED', 'CANCELLED']).toContain(state.status);
              if (state.status === 'COMPLETED') {
                jobsRun++;
                started.push(submittedAt[i]! + state.delayTime!);
              }
            }
            // Workers take the oldest job first: in the order they came, jobs never start earlier.
            expect(started).toEqual([...started].sort((x, y) => x - y));
          } finally {
            emulator.dispose();
          }
        }),
        params(40),
      );
    },
    FUZZ_TIMEOUT_MS * 3,
  );
});

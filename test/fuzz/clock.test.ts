// The emulator clock's passive sleeps (housekeeping) under random timetables: `advance` wakes every
// sleeper due, passive or not, in time order and none early; `run()` stops exactly at the first
// active sleeper, waking the passive ones on the way in order and none beyond; with only passive
// sleepers left, `run()` does not move time at all.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createClock, createEmulatorClock } from '../../src/emulator/clock.js';
import { counted, FUZZ_TIMEOUT_MS, params } from './harness.js';

const sleeperArb = fc.record({ ms: fc.integer({ min: 0, max: 120_000 }), passive: fc.boolean() });
type Planned = { ms: number; passive: boolean };

/** The order a model clock wakes them in: by time, ties in the order they slept. */
const byTime = (planned: Planned[]) => planned.map((s, i) => ({ ...s, i })).sort((a, b) => a.ms - b.ms || a.i - b.i);

const macrotasks = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

describe('fuzz: passive sleeps on the emulator clock', () => {
  it('property: advance() wakes every due sleeper of either kind, in time order, at its own time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(sleeperArb, { maxLength: 12 }),
        fc.array(fc.integer({ min: 0, max: 60_000 }), { minLength: 1, maxLength: 4 }),
        counted('clock: advance', async (planned, steps) => {
          const clock = createClock('manual');
          const start = clock.now();
          const woke: Array<{ i: number; at: number }> = [];
          planned.forEach((s, i) => void clock.sleep(s.ms, undefined, { passive: s.passive }).then(() => woke.push({ i, at: clock.now() - start })));
          let moved = 0;
          for (const step of steps) {
            await clock.advance(step);
            moved += step;
            const due = byTime(planned).filter((s) => s.ms <= moved);
            expect(woke).toEqual(due.map((s) => ({ i: s.i, at: s.ms })));
            expect(clock.now() - start).toBe(moved);
          }
          const waiting = planned.filter((s) => s.ms > moved);
          const active = waiting.filter((s) => !s.passive).map((s) => s.ms);
          expect(clock.nextDue!()).toBe(active.length ? start + Math.min(...active) : undefined);
          expect(clock.nextDue!({ passive: true })).toBe(waiting.length ? start + Math.min(...waiting.map((s) => s.ms)) : undefined);
        }),
      ),
      params(60),
    );
  }, FUZZ_TIMEOUT_MS);

  it('property: run() stops at the first active sleeper, waking passive ones on the way and none beyond; passive alone moves nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(sleeperArb, { maxLength: 10 }),
        counted('clock: run', async (planned) => {
          const clock = createEmulatorClock('manual');
          try {
            const start = clock.now();
            const woke: number[] = [];
            // Those still asleep reject when the clock is disposed at the end.
            const sleeps = planned.map((s, i) => clock.sleep(s.ms, undefined, { passive: s.passive }).then(() => void woke.push(i), () => undefined));
            const active = byTime(planned).filter((s) => !s.passive);
            const first = active[0];
            if (first === undefined) {
              await clock.run(macrotasks(5));
              expect(clock.now()).toBe(start);
              expect(woke).toEqual([]);
              return;
            }
            await clock.run(sleeps[first.i]!);
            expect(clock.now() - start).toBe(first.ms);
            expect(woke).toEqual(byTime(planned).filter((s) => s.ms <= first.ms).map((s) => s.i));
          } finally {
            clock.dispose();
          }
        }),
      ),
      params(40),
    );
  }, FUZZ_TIMEOUT_MS);
});

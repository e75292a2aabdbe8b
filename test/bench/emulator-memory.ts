// Bench worker (run with --expose-gc): the emulator's heap for finished jobs. Starts an emulator on
// the manual clock, measures the heap after full collections, runs `jobs` /run jobs on `echo` to the
// end, measures again (the results are kept: 30 min after /run), moves the clock past their expiry
// and measures a third time. Prints one JSON line.
import { createEmulator, EMULATOR_API_KEY, IN_PROCESS_BASE } from '../../src/emulator/index.js';

const { jobs } = JSON.parse(process.argv[2] ?? '{}') as { jobs: number };
const gc = (globalThis as { gc?: () => void }).gc!;
// Full collections with turns of the event loop between them: what a FinalizationRegistry frees
// (the listeners undici ties to each Request's signal) is freed only in a later task.
const heap = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  gc();
  return process.memoryUsage().heapUsed;
};

// Large enough to keep every job: the bench measures what a retained result costs.
const emulator = createEmulator({ clock: 'manual', serverlessLimits: false, maxRetainedResults: jobs });
const headers = { authorization: `Bearer ${EMULATOR_API_KEY}`, 'content-type': 'application/json' };
const run = (i: number) => emulator.fetch(new Request(`${IN_PROCESS_BASE}/queue/v2/echo/run`, { method: 'POST', headers, body: JSON.stringify({ input: { i } }) })).then((res) => res.text());

// One warm-up round, so the code paths' own allocations (compiled code, caches) are in the start.
for (let i = 0; i < 2_000; i += 500) {
  await Promise.all(Array.from({ length: 500 }, (_, k) => run(i + k)));
  await emulator.clock.advance(0);
}
await emulator.clock.advance(31 * 60_000);
const start = await heap();
for (let i = 0; i < jobs; i += 500) {
  await Promise.all(Array.from({ length: Math.min(500, jobs - i) }, (_, k) => run(i + k)));
  await emulator.clock.advance(0);
}
await emulator.clock.advance(1_000);
const retained = await heap();
const kept = emulator.inspect.held().jobs;
await emulator.clock.advance(31 * 60_000);
const expired = await heap();
const left = emulator.inspect.held();
emulator.dispose();
process.stdout.write(`${JSON.stringify({ jobs, kept, start, retained, expired, left })}\n`);

// Bench worker (run with --expose-gc): the emulator's heap for finished jobs. Starts an emulator on
// the manual clock, measures the heap after full collections, runs the calls to the end, measures
// again (the results are kept: 30 min after /run), moves the clock past their expiry and measures a
// third time. Prints one JSON line.
//   mix 'run':   `jobs` /run jobs on `echo` (what one retained result costs).
//   mix 'mixed': `jobs` rounds of six calls, as a client mixes them: /run, /status of that job,
//                /health, GraphQL pods and GPU offers, REST v2's pod list (issue 37's soak).
import { createEmulator, EMULATOR_API_KEY, IN_PROCESS_BASE } from '../../src/emulator/index.js';
import { heapAfterCollections } from './gc-heap.js';

const { jobs, mix = 'run' } = JSON.parse(process.argv[2] ?? '{}') as { jobs: number; mix?: 'run' | 'mixed' };
const heap = heapAfterCollections;

// Large enough to keep every job: the bench measures what a retained result costs. The REST and
// GraphQL limits are out of the way: the manual clock does not move between the calls.
const emulator = createEmulator({ clock: 'manual', serverlessLimits: false, maxRetainedResults: jobs, restRateLimitPerMinute: 1e9 });
const headers = { authorization: `Bearer ${EMULATOR_API_KEY}`, 'content-type': 'application/json' };
const call = async (path: string, init: RequestInit = {}) => {
  const res = await emulator.fetch(new Request(`${IN_PROCESS_BASE}${path}`, { headers, ...init }));
  const text = await res.text();
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return text;
};
const graphql = (query: string, variables: Record<string, unknown> = {}) => call('/graphql', { method: 'POST', body: JSON.stringify({ query, variables }) });
const PODS = 'query Pods { myself { pods { id desiredStatus } } }';
const OFFERS = 'query Offers($input: GpuLowestPriceInput!) { gpuTypes { id displayName lowestPrice(input: $input) { uninterruptablePrice stockStatus availableGpuCounts } } }';

const run = (i: number) => call('/queue/v2/echo/run', { method: 'POST', body: JSON.stringify({ input: { i } }) });
async function round(i: number): Promise<void> {
  const { id } = JSON.parse(await run(i)) as { id: string };
  if (mix === 'run') return;
  await call(`/queue/v2/echo/status/${id}`);
  await call('/queue/v2/echo/health');
  await graphql(PODS);
  await graphql(OFFERS, { input: { gpuCount: 1 } });
  await call('/v2/pods');
}
async function rounds(from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, from + count - i) }, (_, k) => round(i + k)));
    await emulator.clock.advance(0);
  }
}

// One warm-up round, so the code paths' own allocations (compiled code, caches) are in the start.
await rounds(0, 2_000);
await emulator.clock.advance(31 * 60_000);
const start = await heap();
await rounds(2_000, jobs);
await emulator.clock.advance(1_000);
const retained = await heap();
const kept = emulator.inspect.held().jobs;
await emulator.clock.advance(31 * 60_000);
const expired = await heap();
const left = emulator.inspect.held();
emulator.dispose();
const calls = mix === 'run' ? jobs : jobs * 6;
process.stdout.write(`${JSON.stringify({ mix, jobs, calls, kept, start, retained, expired, left })}\n`);

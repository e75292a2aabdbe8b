// Bench worker (run with --expose-gc): issue 43's soak. The client (createRunpodClient, in process)
// against the emulator on the manual clock, in one process: `rounds` rounds of test/emulator/soak-mix.ts
// (ten calls a round, four of them jobs; every 50th round a pod's life and an injected 500), the
// clock moved 6 s after each batch of 100 rounds so the workers idle out and come back, as on a
// service's clock. Reads the heap after full collections (with turns of the event loop between
// them) at 10 % of the rounds, at the end, and once the clock has passed every result's expiry, and
// what the emulator keeps at each (`emulator.inspect.retained()`). Prints one JSON line.
// `{ "snapshot": true }` also writes heap snapshots at 10 % and after expiry to /tmp, to diff by constructor.
import { writeHeapSnapshot } from 'node:v8';
import { createEmulator } from '../../src/emulator/index.js';
import { soakClient, soakMix } from '../emulator/soak-mix.js';
import { heapAfterCollections } from './gc-heap.js';

const { rounds, snapshot = false, signal = false } = JSON.parse(process.argv[2] ?? '{}') as { rounds: number; snapshot?: boolean; signal?: boolean };
const heap = heapAfterCollections;

const MINUTE = 60_000;
// The platform's limits and retention (maxRetainedResults 10,000), but for REST v2's per-minute
// limit and the serverless rate limits, which a clock that moves 6 s per 1,000 calls would hit at once.
const emulator = createEmulator({ clock: 'manual', serverlessLimits: false, restRateLimitPerMinute: 1e9 });
const rp = soakClient(emulator.clientOptions());
// `signal`: every call carries one long-lived signal and a deadline, as a service's shutdown signal would.
const life = new AbortController();
const soak = soakMix(rp, emulator, signal ? { signal: life.signal, timeoutMs: 120_000 } : {});

const BATCH = 100;
const tenth = Math.max(BATCH, Math.round(rounds / 10 / BATCH) * BATCH);
await soak.rounds(0, tenth, BATCH);
const atTenth = await heap();
const retainedAtTenth = emulator.inspect.retained();
if (snapshot) writeHeapSnapshot('/tmp/soak-tenth.heapsnapshot');
await soak.rounds(tenth, rounds, BATCH);
await emulator.clock.advance(1_000);
const atEnd = await heap();
const retainedAtEnd = emulator.inspect.retained();
await emulator.clock.advance(31 * MINUTE);
const expired = await heap();
const retainedAfter = emulator.inspect.retained();
if (snapshot) writeHeapSnapshot('/tmp/soak-expired.heapsnapshot');
emulator.dispose();
process.stdout.write(`${JSON.stringify({ rounds, ...soak.counts, atTenth, atEnd, expired, retainedAtTenth, retainedAtEnd, retainedAfter })}\n`);

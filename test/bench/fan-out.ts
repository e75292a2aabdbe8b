// Issue 11's fan-out, in its own process so its peak RSS is its own: a plain `Promise.all` of
// `jobs` × (`run` + `wait`) against the emulator with its limits on, made with the client or with
// the hand-written baseline. The bench bundles this file and runs it on plain Node, as users run
// the client, so no loader's memory is counted. Requests and 429 answers are counted at the fetch
// seam, per route, whatever the caller does with them. Prints one JSON line.
import { referenceFanOut } from './reference-fan-out.js';

type Api = typeof import('../../src/index.js');

interface Input {
  variant: 'client' | 'reference';
  /** `held`: queue the jobs on a fetch that never answers and print the heap they hold per job. */
  mode?: 'run' | 'held';
  options: { serverlessUrl: string; apiKey: string } & Record<string, unknown>;
  limits: Parameters<typeof referenceFanOut>[2];
  jobs: number;
  dist: string;
  /** One of several processes on one endpoint: pace through the Redis store at this URL (client only). */
  redisUrl?: string;
  /** Wall-clock time at which to start, so that several processes start together. */
  startAt?: number;
}
const { variant, mode = 'run', options, limits, jobs, dist, redisUrl, startAt } = JSON.parse(process.argv[2]!) as Input;

const seen = { requests: 0, status429: 0, byRoute: {} as Record<string, number> };
/** When each `/run` was handed to fetch (ms on the monotonic clock), 429s included: where a fan-out's time went. */
const runSentAt: number[] = [];
/** `run`, `status-sync`, `status`, …: the path segment after the endpoint id. */
const routeOf = (input: string | URL | Request) => {
  const parts = new URL(typeof input === 'string' || input instanceof URL ? input : input.url).pathname.split('/');
  return parts[parts.indexOf('echo') + 1] ?? '?';
};
const stalledFetch = () => new Promise<Response>(() => undefined);
const countingFetch = async (input: string | URL | Request, init?: RequestInit) => {
  seen.requests += 1;
  const route = routeOf(input);
  seen.byRoute[route] = (seen.byRoute[route] ?? 0) + 1;
  if (route === 'run') runSentAt.push(performance.now());
  const res = await fetch(input, init);
  if (res.status === 429) seen.status429 += 1;
  return res;
};

let job: (i: number) => Promise<{ output?: { i?: number } | unknown }>;
if (variant === 'client') {
  const { createRunpodClient } = (await import(dist)) as Api;
  // The Redis store's entry, from the same build (imported at run time: it is not bundled here).
  const pacingStore = redisUrl
    ? ((await import(new URL('pacing/redis.js', dist).href)) as typeof import('../../src/pacing/redis.js')).createRedisPacingStore({ redis: redisUrl })
    : undefined;
  const endpoint = createRunpodClient({ ...options, pacingStore, fetch: mode === 'held' ? stalledFetch : countingFetch }).endpoint<{ i: number }, { i: number }>('echo');
  job = async (i) => (await endpoint.run({ i })).wait();
} else {
  const runAndWait = referenceFanOut(options.serverlessUrl, options.apiKey, limits, mode === 'held' ? stalledFetch : countingFetch);
  job = (i) => runAndWait({ i }) as Promise<{ output?: unknown }>;
}

if (mode === 'held') {
  // What a queued job holds while it waits for its turn, the caller's suspended function
  // included: the heap after full collections, before and after queueing `jobs` of them.
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const pending = Array.from({ length: jobs }, (_, i) => job(i));
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc();
  gc();
  const bytesPerJob = (process.memoryUsage().heapUsed - before) / jobs;
  console.log(JSON.stringify({ jobs: pending.length, bytesPerJob }));
  process.exit(0);
}
if (startAt !== undefined) await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
const started = performance.now();
const cpuAtStart = process.cpuUsage();
const settled = await Promise.allSettled(Array.from({ length: jobs }, (_, i) => job(i)));
const seconds = (performance.now() - started) / 1000;
// The process's CPU over the fan-out (user + system, all threads): what the wall time spends on the
// client's side, which other work on the machine changes less than it changes the wall time.
const cpu = process.cpuUsage(cpuAtStart);
const cpuMs = (cpu.user + cpu.system) / 1000;
// Seconds from the start to the send of every 1,000th `/run` and of the last: with a window of
// 1,000 sends, the first says how long the first burst took to go out (the concurrency cap and
// the client's CPU), the gaps between them show the window, and the end minus the last the tail.
const runMarks = runSentAt.filter((_, i) => (i + 1) % 1000 === 0 || i === runSentAt.length - 1).map((t) => (t - started) / 1000);
const failures: Record<string, number> = {};
for (const s of settled) {
  if (s.status === 'rejected') {
    const err = s.reason as Error;
    const key = `${err.name}: ${String(err.message).slice(0, 80)}`;
    failures[key] = (failures[key] ?? 0) + 1;
  }
}
const completed = settled.filter((s) => s.status === 'fulfilled' && (s.value.output as { i?: number } | undefined)?.i !== undefined).length;
console.log(JSON.stringify({ jobs, completed, seconds, cpuMs, runMarks, finishedAt: Date.now(), requests: seen.requests, byRoute: seen.byRoute, status429: seen.status429, peakRssMb: process.resourceUsage().maxRSS / 1024, failures }));
// The shared store keeps a connection open: the process ends here, with its figures printed.
process.exit(0);

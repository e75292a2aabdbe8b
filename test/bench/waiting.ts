// Issue 11's waiting table, in its own process: jobs of each duration run on the emulator's
// time-scaled clock (durations in emulator time; real time is `ms / scale`), all at once.
// For each, `job.wait()` and a fixed 1 s polling loop: requests per job and how long after the
// job ended the caller saw it (emulator time). Prints one JSON line.
type Api = typeof import('../../src/index.js');

const { options, scale, reps, durations, dist } = JSON.parse(process.argv[2]!) as {
  options: Record<string, unknown>;
  scale: number;
  reps: number;
  durations: number[];
  dist: string;
};
const { createRunpodClient } = (await import(dist)) as Api;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Requests per route over all `job.wait()` tasks, to show which route the waiting used. */
const waitRoutes: Record<string, number> = {};

function client(routes?: Record<string, number>) {
  const counter = { requests: 0 };
  const fetchFn = (input: string | URL | Request, init?: RequestInit) => {
    counter.requests += 1;
    if (routes) {
      const parts = new URL(typeof input === 'string' || input instanceof URL ? input : input.url).pathname.split('/');
      const route = parts[parts.indexOf('sleep') + 1] ?? '?';
      routes[route] = (routes[route] ?? 0) + 1;
    }
    return fetch(input, init);
  };
  return { counter, endpoint: createRunpodClient({ ...options, fetch: fetchFn }).endpoint<{ ms: number }, { finishedAt: number }>('sleep') };
}

type Strategy = (endpoint: ReturnType<typeof client>['endpoint'], ms: number) => Promise<{ finishedAt: number }>;
const strategies: Record<string, Strategy> = {
  // The client's default waiting: /status-sync, held by the emulator for the default `holdMs`
  // (30 s, which the emulator counts on its clock). Only the deadline is scaled to real time.
  'job.wait()': async (endpoint, ms) => (await (await endpoint.run({ ms })).wait({ timeoutMs: (ms + 120_000) / scale })).output,
  'fixed 1 s loop': async (endpoint, ms) => {
    const job = await endpoint.run({ ms });
    for (;;) {
      await sleep(1_000 / scale);
      const state = await job.status();
      if (state.status === 'COMPLETED') return state.output!;
      if (state.status !== 'IN_QUEUE' && state.status !== 'IN_PROGRESS') throw new Error(`job ended ${state.status}`);
    }
  },
};

// One job first, so the measured ones do not pay for the process's first requests (JIT, the
// first connection): at 5× a cold 40 ms would read as 200 ms late.
await strategies['job.wait()']!(client().endpoint, 100);

const samples: Record<string, Record<string, { requests: number[]; lateMs: number[] }>> = {};
const tasks: Array<Promise<void>> = [];
// Tasks start 25 ms apart (real time): started in one tick, the bench's own start-up work (a client
// and a first request for each of them, on one pinned core) delays the answers of the shortest
// jobs by tens of milliseconds, and that is not the waiting's doing.
const STAGGER_MS = 25;
for (const ms of durations) {
  for (const [name, strategy] of Object.entries(strategies)) {
    const entry: { requests: number[]; lateMs: number[] } = { requests: [], lateMs: [] };
    (samples[String(ms)] ??= {})[name] = entry;
    for (let rep = 0; rep < reps; rep++) {
      const startAfterMs = tasks.length * STAGGER_MS;
      tasks.push(
        (async () => {
          const { counter, endpoint } = client(name === 'job.wait()' ? waitRoutes : undefined);
          await sleep(startAfterMs);
          const output = await strategy(endpoint, ms);
          entry.lateMs.push((Date.now() - output.finishedAt) * scale);
          entry.requests.push(counter.requests);
        })(),
      );
    }
  }
}
const settled = await Promise.allSettled(tasks);
const errors = settled.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason).slice(0, 160));
console.log(JSON.stringify({ scale, reps, samples, waitRoutes, errors }));

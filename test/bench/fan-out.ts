// Issue 11's fan-out, in its own process so its peak RSS is its own: a plain `Promise.all` of
// `jobs` × (`run` + `wait`) against the emulator with its limits on. Requests and 429 answers are
// counted at the fetch seam, per route, whatever the client does with them. Prints one JSON line.
type Api = typeof import('../../src/index.js');

const { options, jobs, dist } = JSON.parse(process.argv[2]!) as { options: Record<string, unknown>; jobs: number; dist: string };
const { createRunpodClient } = (await import(dist)) as Api;

const seen = { requests: 0, status429: 0, byRoute: {} as Record<string, number> };
/** `run`, `status-sync`, `status`, …: the path segment after the endpoint id. */
const routeOf = (input: string | URL | Request) => {
  const parts = new URL(typeof input === 'string' || input instanceof URL ? input : input.url).pathname.split('/');
  return parts[parts.indexOf('echo') + 1] ?? '?';
};
const countingFetch = async (input: string | URL | Request, init?: RequestInit) => {
  seen.requests += 1;
  const route = routeOf(input);
  seen.byRoute[route] = (seen.byRoute[route] ?? 0) + 1;
  const res = await fetch(input, init);
  if (res.status === 429) seen.status429 += 1;
  return res;
};

const rp = createRunpodClient({ ...options, fetch: countingFetch });
const endpoint = rp.endpoint<{ i: number }, { i: number }>('echo');
const started = performance.now();
const settled = await Promise.allSettled(Array.from({ length: jobs }, async (_, i) => (await endpoint.run({ i })).wait()));
const seconds = (performance.now() - started) / 1000;
const failures: Record<string, number> = {};
for (const s of settled) {
  if (s.status === 'rejected') {
    const err = s.reason as Error;
    const key = `${err.name}: ${String(err.message).slice(0, 80)}`;
    failures[key] = (failures[key] ?? 0) + 1;
  }
}
const completed = settled.filter((s) => s.status === 'fulfilled' && s.value.output?.i !== undefined).length;
console.log(JSON.stringify({ jobs, completed, seconds, requests: seen.requests, byRoute: seen.byRoute, status429: seen.status429, peakRssMb: process.resourceUsage().maxRSS / 1024, failures }));

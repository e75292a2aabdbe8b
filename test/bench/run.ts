// `npm run bench`: every figure is a ratio to a baseline measured in the same run, on servers this
// script starts on 127.0.0.1 (in child processes, so the client's CPU and memory are its own).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { createRunpodClient, PodDocument, type RunpodClient, type RunpodClientOptions } from '../../src/index.js';
import { createRunpodRestV1Client } from '../../src/rest-v1/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const BENCH_KEY = 'rpa_bench_key';
const quick = process.argv.includes('--quick');
const results: Record<string, unknown> = { machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`, date: new Date().toISOString() };
const rows: string[][] = [];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const fmt = (n: number, digits = 2) => n.toFixed(digits);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startServer(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./servers.ts', import.meta.url)), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve((JSON.parse(d.toString().split('\n')[0]!) as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, child };
}

// ---- 1. per-call overhead --------------------------------------------------------------------

async function perCall(calls: number, run: () => Promise<unknown>) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await run();
  const cpu = process.cpuUsage(cpu0);
  return { cpuUs: (cpu.user + cpu.system) / calls, wallUs: ((performance.now() - t0) * 1000) / calls };
}

async function overhead(): Promise<void> {
  const { url, child } = await startServer(['stub']);
  const rp = createRunpodClient({ apiKey: BENCH_KEY, graphqlUrl: `${url}/graphql`, restUrl: `${url}/v1`, serverlessUrl: `${url}/v2` });
  const gqlBody = JSON.stringify({ query: String(PodDocument), variables: { input: { podId: 'pod-abc123' } }, operationName: 'Pod' });
  const cases: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
    [
      'pods.get (GraphQL)',
      () => rp.pods.get('pod-abc123'),
      async () => (await fetch(`${url}/graphql?api_key=${BENCH_KEY}`, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: gqlBody })).json(),
    ],
    ['rest.pods.get', () => rp.rest.pods.get('pod-abc123'), async () => (await fetch(`${url}/v1/pods/pod-abc123`, { headers: { accept: 'application/json', authorization: `Bearer ${BENCH_KEY}` } })).json()],
    ['endpoint(id).status', () => rp.endpoint('ep-1').status('job-1'), async () => (await fetch(`${url}/v2/ep-1/status/job-1`, { headers: { accept: 'application/json', authorization: `Bearer ${BENCH_KEY}` } })).json()],
  ];
  const rounds = quick ? 3 : 8;
  const perRound = quick ? 300 : 600;
  const out: Record<string, unknown> = {};
  for (const [name, client, bare] of cases) {
    await perCall(500, bare);
    await perCall(500, client);
    const cpuRatios: number[] = [];
    const wallRatios: number[] = [];
    const base: Array<{ cpuUs: number; wallUs: number }> = [];
    const mine: Array<{ cpuUs: number; wallUs: number }> = [];
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so drift on a shared machine falls on both.
      const [a, b] = r % 2 === 0 ? [await perCall(perRound, bare), await perCall(perRound, client)] : [null, null];
      const [c, d] = r % 2 === 1 ? [await perCall(perRound, client), await perCall(perRound, bare)] : [b, a];
      const bareRun = (a ?? d)!;
      const clientRun = (b ?? c)!;
      base.push(bareRun);
      mine.push(clientRun);
      cpuRatios.push(clientRun.cpuUs / bareRun.cpuUs);
      wallRatios.push(clientRun.wallUs / bareRun.wallUs);
    }
    const entry = {
      calls: rounds * perRound,
      bareCpuUs: median(base.map((x) => x.cpuUs)),
      clientCpuUs: median(mine.map((x) => x.cpuUs)),
      cpuRatio: median(cpuRatios),
      bareWallUs: median(base.map((x) => x.wallUs)),
      clientWallUs: median(mine.map((x) => x.wallUs)),
      wallRatio: median(wallRatios),
    };
    out[name] = entry;
    rows.push([`overhead: ${name}`, `CPU ${fmt(entry.clientCpuUs, 0)} µs vs bare fetch ${fmt(entry.bareCpuUs, 0)} µs`, fmt(entry.cpuRatio), '≤ 1.05']);
    rows.push([`overhead: ${name}`, `wall ${fmt(entry.clientWallUs, 0)} µs vs bare fetch ${fmt(entry.bareWallUs, 0)} µs`, fmt(entry.wallRatio), '≤ 1.05']);
  }
  results.overhead = out;
  child.kill();
}

// ---- 2. job waiting ----------------------------------------------------------------------------

/** Counts requests through the client's fetch. */
function countingFetch() {
  const counter = { requests: 0 };
  const fetchFn = (input: string | URL | Request, init?: RequestInit) => {
    counter.requests += 1;
    return fetch(input, init);
  };
  return { counter, fetchFn };
}

// The emulator serves REST v1 until its v2 lands; the setup uses v1 meanwhile.
async function ensureTimedEndpoint(options: RunpodClientOptions): Promise<string> {
  const rest = createRunpodRestV1Client(options);
  const template = await rest.templates.create({ name: 'timed', imageName: 'bench/timed:1', isServerless: true });
  return (await rest.endpoints.create({ templateId: template.id, name: 'timed', workersMax: 1000 })).id;
}

async function jobWaiting(): Promise<void> {
  const out: Record<string, unknown> = {};
  // Jobs of 0.2 s and 2 s run in real time; 20 s runs on the emulator's clock at 10× speed, with
  // every client interval scaled the same way, and is reported in emulator time.
  for (const [jobMs, scale] of [[200, 1], [2_000, 1], [20_000, 10]] as const) {
    const { url, child } = await startServer(['emulator', String(scale)]);
    const options = { apiKey: BENCH_KEY, graphqlUrl: `${url}/graphql`, restUrl: `${url}/v1`, serverlessUrl: `${url}/queue/v2` };
    const endpointId = await ensureTimedEndpoint(options);
    const reps = quick ? 1 : 3;
    const strategies: Record<string, (rp: RunpodClient) => Promise<{ finishedAt: number }>> = {
      'job.wait()': async (rp) => (await (await rp.endpoint<{ ms: number }, { finishedAt: number }>(endpointId).run({ ms: jobMs })).wait({ pollIntervalMs: 250 / scale, maxPollIntervalMs: 3_000 / scale })).output,
      // The server-side wait is counted on the emulator's clock, so it is not scaled.
      runSync: async (rp) => (await rp.endpoint<{ ms: number }, { finishedAt: number }>(endpointId).runSync({ ms: jobMs }, { waitMs: 60_000, timeoutMs: 60_000 / scale, pollIntervalMs: 250 / scale, maxPollIntervalMs: 3_000 / scale })).output,
      'baseline: fixed 1 s loop': async (rp) => {
        const job = await rp.endpoint<{ ms: number }, { finishedAt: number }>(endpointId).run({ ms: jobMs });
        for (;;) {
          await sleep(1_000 / scale);
          const state = await job.status();
          if (state.status === 'COMPLETED') return state.output!;
        }
      },
    };
    const entry: Record<string, { requests: number; detectionMs: number }> = {};
    for (const [name, strategy] of Object.entries(strategies)) {
      const requests: number[] = [];
      const latency: number[] = [];
      for (let i = 0; i < reps; i++) {
        const { counter, fetchFn } = countingFetch();
        const output = await strategy(createRunpodClient({ ...options, fetch: fetchFn }));
        latency.push((Date.now() - output.finishedAt) * scale);
        requests.push(counter.requests);
      }
      entry[name] = { requests: median(requests), detectionMs: median(latency) };
    }
    const label = `${jobMs / 1000} s job`;
    out[label] = entry;
    const base = entry['baseline: fixed 1 s loop']!;
    for (const name of ['job.wait()', 'runSync']) {
      const e = entry[name]!;
      rows.push([`waiting: ${label}, ${name}`, `${e.requests} requests vs ${base.requests}; seen ${fmt(e.detectionMs, 0)} ms after it finished vs ${fmt(base.detectionMs, 0)} ms`, `${fmt(e.requests / base.requests)} req`, '≤ 1.00 req; latency ≤ one step']);
    }
    child.kill();
  }
  results.jobWaiting = out;
}

// ---- 3. fan-out ----------------------------------------------------------------------------------

async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await task(next++);
  }));
}

async function fanOut(): Promise<void> {
  const { url, child } = await startServer(['emulator', '1']);
  const options = { apiKey: BENCH_KEY, graphqlUrl: `${url}/graphql`, restUrl: `${url}/v1`, serverlessUrl: `${url}/queue/v2` };
  const concurrency = 100;
  const out: Record<string, unknown> = {};
  const counts = quick ? [1_000] : [1_000, 10_000];
  for (const jobs of counts) {
    for (const variant of ['bare fetch', 'runpod-gql'] as const) {
      globalThis.gc?.();
      let peakRss = process.memoryUsage().rss;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
      const started = performance.now();
      if (variant === 'runpod-gql') {
        const ep = createRunpodClient(options).endpoint('echo');
        await pool(jobs, concurrency, async (i) => (await ep.run({ i })).wait());
      } else {
        const headers = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json', accept: 'application/json' };
        await pool(jobs, concurrency, async (i) => {
          const { id } = (await (await fetch(`${url}/queue/v2/echo/run`, { method: 'POST', headers, body: JSON.stringify({ input: { i } }) })).json()) as { id: string };
          for (;;) {
            await sleep(250);
            const state = (await (await fetch(`${url}/queue/v2/echo/status/${id}`, { headers })).json()) as { status: string };
            if (state.status === 'COMPLETED') return;
          }
        });
      }
      clearInterval(sampler);
      out[`${jobs} jobs, ${variant}`] = { seconds: (performance.now() - started) / 1000, peakRssMb: peakRss / 2 ** 20 };
    }
    const mine = out[`${jobs} jobs, runpod-gql`] as { seconds: number; peakRssMb: number };
    const base = out[`${jobs} jobs, bare fetch`] as { seconds: number; peakRssMb: number };
    rows.push([`fan-out: ${jobs} jobs, ${concurrency} at a time`, `${fmt(mine.seconds)} s vs bare fetch ${fmt(base.seconds)} s`, fmt(mine.seconds / base.seconds), 'time']);
    rows.push([`fan-out: ${jobs} jobs, peak RSS`, `${fmt(mine.peakRssMb, 0)} MB vs bare fetch ${fmt(base.peakRssMb, 0)} MB`, fmt(mine.peakRssMb / base.peakRssMb), 'flat as jobs grow']);
  }
  results.fanOut = out;
  child.kill();
}

// ---- 4. bundle size and start-up ---------------------------------------------------------------

async function gzipped(entry: string): Promise<number> {
  const result = await build({ entryPoints: [`${root}${entry}`], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
  return gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
}

async function bundleAndStartup(): Promise<void> {
  const baseline = await gzipped('node_modules/graphql-request/build/entrypoints/main.js');
  const sizes: Record<string, number> = { 'graphql-request alone': baseline };
  for (const [name, file] of [['runpod-gql', 'dist/index.js'], ['runpod-gql/graphql', 'dist/graphql/index.js'], ['runpod-gql/rest', 'dist/rest/index.js'], ['runpod-gql/serverless', 'dist/serverless/index.js']] as const) {
    sizes[name] = await gzipped(file);
    rows.push([`bundle: ${name}`, `${fmt(sizes[name] / 1024, 1)} KB gz vs graphql-request ${fmt(baseline / 1024, 1)} KB`, fmt(sizes[name] / baseline), 'size']);
  }
  const run = promisify(execFile);
  const time = async (specifier: string) => {
    const t0 = performance.now();
    await run(process.execPath, ['-e', `import('${specifier}')`], { cwd: root });
    return performance.now() - t0;
  };
  const mine: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < (quick ? 5 : 15); i++) {
    base.push(await time('graphql-request'));
    mine.push(await time('runpod-gql'));
  }
  rows.push(['start-up: node -e "import(…)"', `${fmt(median(mine), 0)} ms vs graphql-request ${fmt(median(base), 0)} ms`, fmt(median(mine) / median(base)), 'time']);
  results.bundle = sizes;
  results.startup = { runpodGqlMs: median(mine), graphqlRequestMs: median(base) };
}

// ---- main ----------------------------------------------------------------------------------------

const started = performance.now();
await overhead();
await jobWaiting();
await fanOut();
await bundleAndStartup();
results.totalSeconds = (performance.now() - started) / 1000;

const widths = [0, 1, 2, 3].map((i) => Math.max(...[['measure', 'figure (client vs baseline)', 'ratio', 'target'], ...rows].map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(`\nrunpod-gql bench on ${results.machine as string}, ${fmt(results.totalSeconds as number, 0)} s\n`);
console.log(line(['measure', 'figure (client vs baseline)', 'ratio', 'target']));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(row));
const outFile = `${root}test/bench/latest.json`;
writeFileSync(outFile, `${JSON.stringify({ ...results, table: rows }, null, 2)}\n`);
console.log(`\nresults written to test/bench/latest.json`);

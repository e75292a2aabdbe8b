// Per-call client CPU. Every variant of a call runs in its own worker process (per-call-worker.ts),
// all pinned to the client's core; the bench asks them in turn for short blocks of calls, in a
// rotating order, so drift on a shared machine falls on all of them alike. Ratios are taken block
// against block within a round, then summarised as a median with its interquartile range.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { spread, type Spread } from './stats.js';
import { ABLATIONS, type AblationName } from './ablations.js';
import type { CallName, VariantName, WorkerInput } from './per-call-worker.js';

/**
 * A figure over the whole run (`value`: total against total, so every call counts), with the
 * interquartile range of the same figure over `groups` consecutive slices of the rounds.
 */
export interface Figure {
  readonly value: number;
  readonly groups: Spread;
}

export interface PerCallFigures {
  /** CPU µs per call, per variant. */
  readonly cpuUs: Record<string, Figure>;
  readonly ratios: Record<string, Figure>;
}

const RATIOS: ReadonlyArray<readonly [VariantName, VariantName]> = [
  ['runpod-gql', 'reference client'],
  ['runpod-gql', 'bare fetch'],
  ['reference client', 'bare fetch'],
  ['bare fetch + signal', 'bare fetch'],
  ['graphql-request', 'bare fetch'],
  ['graphql-request', 'reference client'],
  ['runpod-gql', 'graphql-request'],
  ['graphql-request + signal', 'graphql-request'],
  ['graphql-request + signal', 'reference client'],
  ['runpod-gql', 'graphql-request + signal'],
  // The REST GET's ablation: each step against the reference it starts from.
  ...(Object.keys(ABLATIONS) as AblationName[]).map((name) => [name, 'reference client'] as const),
];

/**
 * Single blocks on a shared machine vary by ±30 % (loopback TCP charges the kernel's work to
 * whichever side is running, other tenants warm and cool the caches), so no one block decides:
 * the figures are total CPU against total CPU, and the groups show how steady that is.
 */
function summarise(variants: readonly VariantName[], perRound: ReadonlyArray<Partial<Record<VariantName, number>>>, blockSize: number): PerCallFigures {
  const groupCount = Math.min(8, perRound.length);
  const groups = Array.from({ length: groupCount }, (_, g) => perRound.filter((_, r) => Math.floor((r * groupCount) / perRound.length) === g));
  const total = (rounds: typeof perRound, v: VariantName) => rounds.reduce((sum, cpu) => sum + cpu[v]!, 0);
  const perCall = (rounds: typeof perRound, v: VariantName) => total(rounds, v) / (rounds.length * blockSize);
  const figure = (of: (rounds: typeof perRound) => number): Figure => ({ value: of(perRound), groups: spread(groups.map(of)) });
  const ratios: Record<string, Figure> = {};
  for (const [a, b] of RATIOS) {
    if (variants.includes(a) && variants.includes(b)) ratios[`${a} / ${b}`] = figure((rounds) => total(rounds, a) / total(rounds, b));
  }
  return { cpuUs: Object.fromEntries(variants.map((v) => [v, figure((rounds) => perCall(rounds, v))])), ratios };
}

export const CALLS: Record<Exclude<CallName, 'rest-ablation'>, { label: string; variants: VariantName[] }> = {
  graphql: { label: 'pods.get (GraphQL)', variants: ['bare fetch', 'bare fetch + signal', 'reference client', 'graphql-request', 'graphql-request + signal', 'runpod-gql'] },
  rest: { label: 'rest.pods.get (REST v2 GET)', variants: ['bare fetch', 'bare fetch + signal', 'reference client', 'runpod-gql'] },
  status: { label: 'endpoint(id).status (job status)', variants: ['bare fetch', 'bare fetch + signal', 'reference client', 'runpod-gql'] },
};

/** The REST GET's ablation, over the network only: the reference, each step of it, all six, and the client. */
export const ABLATION_VARIANTS: VariantName[] = ['reference client', ...(Object.keys(ABLATIONS) as AblationName[]), 'runpod-gql'];

interface Worker {
  readonly child: ChildProcess;
  readonly lines: AsyncIterator<string>;
  readonly reader: Interface;
}

async function nextLine(worker: Worker, what: string): Promise<string> {
  const { value, done } = await worker.lines.next();
  if (done) throw new Error(`per-call worker (${what}) ended early`);
  return value;
}

export async function measureCall(options: {
  readonly command: (args: string[]) => [string, string[]];
  readonly cwd: string;
  readonly input: Omit<WorkerInput, 'variant'>;
  readonly rounds: number;
  readonly blockSize: number;
  /** Profile each worker with V8's sampler, into `<profileDir>/<variant>` (see cpu-profile.ts). */
  readonly profileDir?: string | undefined;
}): Promise<PerCallFigures> {
  const { call } = options.input;
  const variants = call === 'rest-ablation' ? ABLATION_VARIANTS : CALLS[call].variants;
  const workers = new Map<VariantName, Worker>();
  try {
    for (const variant of variants) {
      const profile = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}/${variant}`] : [];
      const [file, argv] = options.command([...profile, '--import', 'tsx', new URL('./per-call-worker.ts', import.meta.url).pathname, JSON.stringify({ ...options.input, variant })]);
      const child = spawn(file, argv, { cwd: options.cwd, stdio: ['pipe', 'pipe', 'inherit'] });
      const reader = createInterface({ input: child.stdout! });
      const worker = { child, reader, lines: reader[Symbol.asyncIterator]() };
      workers.set(variant, worker);
      // One at a time: warm-ups running side by side would disturb each other's JIT.
      if ((await nextLine(worker, variant)) !== 'ready') throw new Error(`per-call worker (${variant}) did not start`);
    }
    const perRound: Array<Partial<Record<VariantName, number>>> = [];
    for (let round = 0; round < options.rounds; round++) {
      const cpu: Partial<Record<VariantName, number>> = {};
      for (let i = 0; i < variants.length; i++) {
        const variant = variants[(round + i) % variants.length]!;
        const worker = workers.get(variant)!;
        worker.child.stdin!.write(`block ${options.blockSize}\n`);
        cpu[variant] = Number(await nextLine(worker, variant));
      }
      perRound.push(cpu);
    }
    return summarise(variants, perRound, options.blockSize);
  } finally {
    const exits: Array<Promise<unknown>> = [];
    for (const { child, reader } of workers.values()) {
      reader.close();
      child.stdin?.end('exit\n');
      // A profiled worker writes its profile as it exits: it is given the time to.
      if (options.profileDir && child.exitCode === null) exits.push(Promise.race([new Promise((resolve) => child.once('exit', resolve)), new Promise((resolve) => setTimeout(resolve, 10_000))]));
      else child.kill();
    }
    await Promise.all(exits);
    for (const { child } of workers.values()) if (child.exitCode === null) child.kill();
  }
}

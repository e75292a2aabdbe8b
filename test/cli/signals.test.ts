import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type FaultRule, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';

// SIGINT (Ctrl-C) and SIGTERM (containers, `timeout`, CI runners) during every command that waits
// or creates: the CLI names what still exists and how to find or stop it, and exits 130 or 143.
// The built binary runs as a child process against an emulator served in-process on 127.0.0.1.
const root = fileURLToPath(new URL('../../', import.meta.url));
const BIN = 'dist/cli/main.js';
const KEY = 'rpa_cli_signals';
const SIGNALS = [
  ['SIGINT', 130, 'interrupted'],
  ['SIGTERM', 143, 'terminated \\(SIGTERM\\)'],
] as const;

let emulator: Emulator;
let server: ListeningEmulator;
let env: Record<string, string>;
beforeAll(async () => {
  emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 200 });
  server = await listen(emulator, { port: 0, host: '127.0.0.1' });
  env = { PATH: process.env.PATH ?? '', RUNPOD_API_KEY: KEY, RUNPOD_GRAPHQL_URL: server.graphqlUrl, RUNPOD_REST_URL: server.restUrl, RUNPOD_SERVERLESS_URL: server.serverlessUrl };
});
afterAll(async () => {
  await server?.close();
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: root, timeout: 30_000, env }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, signal: null, stdout, stderr });
    });
  });
}

/**
 * Runs the CLI until `rule` has met its request (so the command is awaiting it, its handlers in
 * place), then sends `signal`. A rule with a long latency holds the request; one of 1 ms only marks
 * that the request arrived. `ready`, when given, must also have been printed on stderr.
 */
async function signalDuring(args: string[], rule: FaultRule, signal: NodeJS.Signals, ready = /^/): Promise<Run> {
  const { hits } = emulator.faults.inject(rule);
  const child = spawn(process.execPath, [BIN, ...args], { cwd: root, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (code, sig) => resolve([code, sig])));
  try {
    for (let i = 0; hits() === 0 || !ready.test(stderr); i++) {
      if (i > 400 || child.exitCode !== null) throw new Error(`the request never came (${args.join(' ')}): ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    emulator.faults.clear();
  }
  child.kill(signal);
  const [code, sig] = await exited;
  return { code, signal: sig, stdout, stderr };
}

const hold = (match: string): FaultRule => ({ match, fault: { type: 'latency', ms: 4_000 } });
const mark = (match: string): FaultRule => ({ match, fault: { type: 'latency', ms: 1 } });

describe.each(SIGNALS)('%s', (signal, exitCode, said) => {
  it('during pods deploy held in flight: the pod name, its create marker and the command that finds it', async () => {
    const name = `held-${signal}`;
    const run = await signalDuring(['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img', '--name', name], hold('graphql:DeployPod'), signal);
    expect(run).toMatchObject({ code: exitCode, signal: null, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`^\\nrunpod-gql pods deploy: ${said}\\. The create of pod "${name}" may have reached RunPod`));
    const marker = /create marker is (\w+) \(env RUNPOD_GQL_CREATE_MARKER\)/.exec(run.stderr)?.[1];
    expect(marker).toMatch(/^[0-9a-f]{32}$/);
    expect(run.stderr).toContain(`Find it: runpod-gql pods find --marker ${marker}`);
    // The create does arrive once the latency has passed, and the printed command finds that pod.
    let found: Run | undefined;
    for (let i = 0; i < 40; i++) {
      found = await cli(['pods', 'find', '--marker', marker!, '--json']);
      if (found.code === 0) break;
      expect(JSON.parse(found.stderr)).toMatchObject({ error: { name: 'NotFoundError', message: expect.stringContaining('no pod carries create marker') } });
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(found?.code).toBe(0);
    const pod = JSON.parse(found!.stdout) as { id: string; name: string };
    expect(pod.name).toBe(name);
    expect((await cli(['pods', 'terminate', pod.id])).code).toBe(0);
  }, 40_000);

  it('during pods wait: still billed, with how to stop it', async () => {
    const podId = (JSON.parse((await cli(['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img', '--json'])).stdout) as { id: string }).id;
    // No ports: with ports required the pod is never ready, so the wait lasts until the signal.
    const run = await signalDuring(['pods', 'wait', podId], mark('graphql:Pod'), signal);
    expect(run).toMatchObject({ code: exitCode, signal: null, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`runpod-gql pods wait ${podId}: ${said}\\. Stopped waiting; pod ${podId} keeps starting and is billed while it runs\\.`));
    expect(run.stderr).toContain(`stop it: runpod-gql pods stop ${podId}`);
    await cli(['pods', 'terminate', podId]);
  }, 30_000);

  it('during jobs run --wait: the job id, still running, how to cancel it', async () => {
    const run = await signalDuring(['jobs', 'run', 'sleep', '--input', '{"ms":60000}', '--wait'], mark('POST /queue/v2/sleep/run'), signal, /queued on endpoint sleep\n/);
    expect(run).toMatchObject({ code: exitCode, signal: null, stdout: '' });
    const jobId = /job (\S+) queued on endpoint sleep\n/.exec(run.stderr)?.[1];
    expect(jobId).toBeDefined();
    expect(run.stderr).toMatch(new RegExp(`runpod-gql jobs run sleep: ${said}\\. Stopped waiting; job ${jobId} on endpoint sleep keeps running`));
    expect(run.stderr).toContain(`Cancel it: runpod-gql jobs cancel sleep ${jobId}`);
    expect((await cli(['jobs', 'cancel', 'sleep', jobId!])).code).toBe(0);
  }, 30_000);

  it('during jobs run --sync: a job may be queued', async () => {
    const run = await signalDuring(['jobs', 'run', 'sleep', '--input', '{"ms":60000}', '--sync'], mark('POST /queue/v2/sleep/runsync'), signal);
    expect(run).toMatchObject({ code: exitCode, signal: null, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`runpod-gql jobs run sleep: ${said}\\. A job may have been queued on endpoint sleep, but its id has not come back`));
  }, 30_000);

  it('during jobs run held in flight: a job may be queued', async () => {
    const run = await signalDuring(['jobs', 'run', 'echo', '--input', '{"a":1}'], hold('POST /queue/v2/echo/run'), signal);
    expect(run).toMatchObject({ code: exitCode, signal: null, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`runpod-gql jobs run echo: ${said}\\. A job may have been queued on endpoint echo`));
  }, 30_000);

  it('during jobs stream: the job keeps running', async () => {
    const jobId = (await cli(['jobs', 'run', 'stream', '--input', '{"chunks":["a","b"],"intervalMs":60000}'])).stdout.trim();
    const run = await signalDuring(['jobs', 'stream', 'stream', jobId], mark('GET /queue/v2/stream/stream/*'), signal);
    expect(run).toMatchObject({ code: exitCode, signal: null });
    expect(run.stderr).toMatch(new RegExp(`runpod-gql jobs stream stream ${jobId}: ${said}\\. Stopped streaming; job ${jobId} on endpoint stream keeps running`));
    await cli(['jobs', 'cancel', 'stream', jobId]);
  }, 30_000);

  it('during a plain read (pods list): the same exit code, the command named', async () => {
    const run = await signalDuring(['pods', 'list'], hold('graphql:MyPods'), signal);
    expect(run).toMatchObject({ code: exitCode, signal: null, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`^\\nrunpod-gql pods list: ${said}\\.\\n$`));
  }, 30_000);
});

describe('a deploy that may have failed names the CLI command that finds the pod', () => {
  it('PossiblyCreatedError names `runpod-gql pods find --marker …`, which finds it', async () => {
    // The answer is dropped after the create, and the lookups by marker fail: the create stays unsettled.
    emulator.faults.inject({ match: 'graphql:DeployPod', fault: { type: 'drop-after-create' } });
    emulator.faults.inject({ match: 'graphql:MyPods', fault: { type: 'status', status: 503 }, times: 100 });
    let run: Run;
    try {
      run = await cli(['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img', '--name', 'maybe']);
    } finally {
      emulator.faults.clear();
    }
    expect(run.code).toBe(3);
    // The library's hint (`pods.findByMarker('…')`) in the CLI's words.
    const marker = /PossiblyCreatedError: [\s\S]*`runpod-gql pods find --marker (\w+)`/.exec(run.stderr)?.[1];
    expect(run.stderr).not.toContain('findByMarker');
    expect(marker).toBeDefined();
    const found = await cli(['pods', 'find', '--marker', marker!, '--json']);
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout)).toMatchObject({ name: 'maybe' });
  }, 60_000);
});

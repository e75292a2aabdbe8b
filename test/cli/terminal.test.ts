import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The CLI in a terminal: usage errors in its own words, server text escaped, no key echoed or left
// in the process list, and Ctrl-C during a wait saying what still runs. Runs the built binary.
const root = fileURLToPath(new URL('../../', import.meta.url));
const BIN = 'dist/cli/main.js';

interface Run {
  code: number | null;
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { cwd: root, timeout: 30_000, env: { PATH: process.env.PATH ?? '', ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

/** A raw C0 (but tab and newline), DEL, C1 or bidi control character. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Serves `runpod-gql emulator` on a free port and answers with the environment it prints. */
export async function serveEmulator(): Promise<{ server: ChildProcessWithoutNullStreams; banner: string; env: Record<string, string> }> {
  const server = spawn(process.execPath, [BIN, 'emulator', '--port', '0'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  const banner = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ctrl+C')) resolve(out);
    });
    server.on('exit', () => reject(new Error(`emulator exited: ${out}`)));
  });
  const line = /^\s*export (.+)$/m.exec(banner)![1]!;
  const env = Object.fromEntries(line.split(' ').map((pair) => pair.split('=') as [string, string]));
  return { server, banner, env };
}

async function stop(server: ChildProcessWithoutNullStreams): Promise<void> {
  if (server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.on('exit', resolve));
  server.kill('SIGTERM');
  await exited;
}

describe('usage errors name the flag and the value as typed, and the help to read', () => {
  const CASES: Array<[string[], RegExp]> = [
    [['pods', 'wait', 'abc', '--timeout', '-1'], /^runpod-gql pods wait: option '--timeout <seconds>' argument '-1' is invalid\. Expected a number of seconds above 0\.\nRun 'runpod-gql pods wait --help' for usage\.\n$/],
    [['gpus', '--max-price', '-5', '--emulator'], /^runpod-gql gpus: option '--max-price <usd>' argument '-5' is invalid\. Expected a price in USD per hour above 0\.\nRun 'runpod-gql gpus --help' for usage\.\n$/],
    [['gpus', '--count', '1.5', '--emulator'], /option '--count <n>' argument '1\.5' is invalid\. Expected a whole number of GPUs/],
    [['jobs', 'run', 'echo', '--wait', '--timeout', '0', '--emulator'], /option '--timeout <seconds>' argument '0' is invalid/],
    [['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img', '--name', '', '--emulator'], /^runpod-gql pods deploy: option '--name <name>' argument '' is invalid\. Expected a name that is not empty\.\nRun 'runpod-gql pods deploy --help' for usage\.\n$/],
    [['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img', '--name', '   ', '--emulator'], /option '--name <name>' argument ' {3}' is invalid/],
    // A value only the library can judge: still named by its flag, as typed, with the help to read.
    [['pods', 'deploy', '--gpu', 'RTX 4090', '--image', 'img', '--emulator'], /^runpod-gql pods deploy: invalid --gpu "RTX 4090": gpuTypeId .*did you mean "NVIDIA GeForce RTX 4090".*\(nothing was sent\)\nRun 'runpod-gql pods deploy --help' for usage\.\n$/],
    [['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img', '--ports=8888', '--emulator'], /^runpod-gql pods deploy: invalid --ports "8888": ports .*8888\/http.*\(nothing was sent\)\nRun 'runpod-gql pods deploy --help' for usage\.\n$/],
  ];
  it.concurrent.each(CASES)('%j', async (args, stderr) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(stderr);
  });

  it('pods get of a missing pod is NotFoundError, exit 3, like pods stop', async () => {
    const [get, stopped] = await Promise.all([cli(['pods', 'get', 'nope', '--emulator']), cli(['pods', 'stop', 'nope', '--emulator'])]);
    expect(get).toMatchObject({ code: 3, stderr: expect.stringMatching(/^runpod-gql pods get nope: NotFoundError: /) });
    expect(stopped).toMatchObject({ code: 3, stderr: expect.stringMatching(/^runpod-gql pods stop nope: NotFoundError: /) });
  });
});

describe('no key echoed, none left in the process list', () => {
  it.concurrent.each([['--apikey=rpa_SECRET_1234'], ['--api_key=rpa_SECRET_1234'], ['-krpa_SECRET_1234'], ['--key=rpa_SECRET_1234']])('an unknown option %s is named without its value', async (option) => {
    const run = await cli(['gpus', option, '--emulator']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown option '-/);
    expect(run.stdout + run.stderr).not.toContain('SECRET');
  });

  it('the help discourages --api-key KEY and offers the environment or stdin', async () => {
    const run = await cli(['--help']);
    expect(run.stdout).toMatch(/--api-key <key>\s+API key; prefer \$RUNPOD_API_KEY, or "-" to read it from\s+stdin/);
  });

  it('--api-key - with nothing on stdin is a usage error', async () => {
    const run = await cli(['pods', 'list', '--api-key', '-'], {}, '');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--api-key -: no key on stdin');
  });
});

describe('against a served emulator', () => {
  let served: Awaited<ReturnType<typeof serveEmulator>>;
  beforeAll(async () => {
    served = await serveEmulator();
  }, 30_000);
  afterAll(async () => {
    if (served) await stop(served.server);
  });

  it('--api-key - reads the key from stdin; a wrong one is refused by the server', async () => {
    const { RUNPOD_API_KEY: key, ...urls } = served.env;
    const good = await cli(['pods', 'list', '--api-key', '-', '--json'], urls, `${key}\n`);
    expect(good).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(good.stdout)).toBeInstanceOf(Array);
    const bad = await cli(['pods', 'list', '--api-key', '-'], urls, 'rpa_not_a_key_of_this_emulator\n');
    expect(bad.code).toBe(3);
    expect(bad.stderr).not.toContain('rpa_not_a_key_of_this_emulator');
  });

  it('control characters in server text are escaped in tables, JSON, messages and job failures', async () => {
    const name = 'evil\u001b]0;pwned\u0007\u009b31m\u202ename\r\n';
    const image = 'img\u001b[2J\u001bc';
    const deployed = await cli(['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', image, '--name', name], served.env);
    const runs: Run[] = [deployed];
    expect(deployed.code).toBe(0);
    const list = await cli(['pods', 'list'], served.env);
    runs.push(list, await cli(['pods', 'list', '--json'], served.env));
    expect(list.stdout).toContain('evil\\x1b]0;pwned\\x07\\x9b31m\\u202ename\\x0d\\x0a');
    expect(list.stdout).toContain('img\\x1b[2J\\x1bc');
    // JSON stays JSON: the same value, with the controls written as escapes.
    const pods = JSON.parse(runs[2]!.stdout) as Array<{ name: string; imageName: string }>;
    expect(pods.find((p) => p.imageName === image)?.name).toBe(name);
    // A job's failure message and an error's message.
    const failed = await cli(['jobs', 'run', 'fail', '--input', JSON.stringify({ message: 'boom\u001b]52;c;cHduZWQ=\u0007\u001b[31m' }), '--sync'], served.env);
    runs.push(failed);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain('boom\\x1b]52;c;cHduZWQ=\\x07\\x1b[31m');
    for (const run of runs) expect(run.stdout + run.stderr).not.toMatch(RAW_CONTROL);
  }, 30_000);

  it('jobs stream prints string chunks as they are (no newline per chunk)', async () => {
    const input = JSON.stringify({ chunks: ['Hel', 'lo ', 'world', { n: 2 }, '!'], intervalMs: 20 });
    const jobId = (await cli(['jobs', 'run', 'stream', '--input', input], served.env)).stdout.trim();
    const streamed = await cli(['jobs', 'stream', 'stream', jobId], served.env);
    expect(streamed).toMatchObject({ code: 0, stdout: 'Hello world\n{"n":2}\n!\n' });
  });

  it('Ctrl-C during jobs run --wait prints the job id, what still runs and how to cancel it, and exits 130', async () => {
    const child = spawn(process.execPath, [BIN, 'jobs', 'run', 'sleep', '--input', '{"ms":60000}', '--wait'], { cwd: root, env: { PATH: process.env.PATH ?? '', ...served.env } });
    let stderr = '';
    const queued = new Promise<string>((resolve) =>
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const id = /job (\S+) queued on endpoint sleep\n/.exec(stderr)?.[1];
        if (id) resolve(id);
      }),
    );
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])));
    const jobId = await queued;
    child.kill('SIGINT');
    expect(await exited).toEqual([130, null]);
    expect(stderr).toContain(`interrupted. Stopped waiting; job ${jobId} on endpoint sleep keeps running`);
    expect(stderr).toContain(`Cancel it: runpod-gql jobs cancel sleep ${jobId}`);
    // It does keep running, and the command printed cancels it.
    expect(JSON.parse((await cli(['jobs', 'status', 'sleep', jobId], served.env)).stdout)).toMatchObject({ status: expect.stringMatching(/IN_QUEUE|IN_PROGRESS/) });
    expect(JSON.parse((await cli(['jobs', 'cancel', 'sleep', jobId], served.env)).stdout)).toMatchObject({ status: 'CANCELLED' });
  }, 30_000);

  it('Ctrl-C during pods wait prints the pod id and how to stop it, and exits 130; --api-key KEY is not in the process list', async () => {
    // No ports: with ports required, this pod is never ready, so the wait lasts until interrupted.
    const podId = (JSON.parse((await cli(['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img', '--json'], served.env)).stdout) as { id: string }).id;
    const { RUNPOD_API_KEY: key, ...urls } = served.env;
    const child = spawn(process.execPath, [BIN, 'pods', 'wait', podId, '--timeout', '60', '--api-key', key!], { cwd: root, env: { PATH: process.env.PATH ?? '', ...urls } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])));
    // The wait has begun once the pod has been asked for; until then SIGINT would end Node by default.
    const started = Date.now();
    let cmdline = '';
    while (Date.now() - started < 20_000) {
      await new Promise((r) => setTimeout(r, 250));
      cmdline = await import('node:fs/promises').then((fs) => fs.readFile(`/proc/${child.pid}/cmdline`, 'utf8')).catch(() => '');
      if (cmdline.startsWith('runpod-gql')) break;
    }
    if (process.platform === 'linux') expect(cmdline.replaceAll('\u0000', ' ').trim()).toBe('runpod-gql');
    await new Promise((r) => setTimeout(r, 2_500));
    child.kill('SIGINT');
    expect(await exited).toEqual([130, null]);
    expect(stderr).toContain(`runpod-gql pods wait ${podId}: interrupted. Stopped waiting; pod ${podId} keeps starting and is billed while it runs.`);
    expect(stderr).toContain(`stop it: runpod-gql pods stop ${podId}`);
    expect(stderr).not.toContain(key!);
  }, 40_000);
});

describe("the README's 'Driving a running emulator' lines", () => {
  it('the export line is the one the emulator prints, and the commands after it run as written', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('README.md', `file://${root}`), 'utf8');
    const block = /\*\*Driving a running emulator[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const lines = block!.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    const [serve, exportLine, run, status] = lines;
    expect(serve).toMatch(/^npx runpod-gql emulator --port 8787$/);
    const served = await serveEmulator();
    try {
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(served.banner)![1]!;
      // The same line, word for word, but for the port (the test serves on a free one).
      const printed = /^\s*(export .+)$/m.exec(served.banner)![1]!;
      expect(exportLine!.replaceAll('127.0.0.1:8787', `127.0.0.1:${port}`)).toBe(printed);
      // Then the README's commands, in a shell, with `npx runpod-gql` as this checkout's binary.
      const asHere = (line: string) => line.replace(/#.*$/, '').replace('npx runpod-gql', `${JSON.stringify(process.execPath)} ${BIN}`);
      const shell = (script: string) =>
        new Promise<Run>((resolve) => {
          execFile('/bin/sh', ['-c', script], { cwd: root, timeout: 30_000, env: { PATH: process.env.PATH ?? '' } }, (err, stdout, stderr) =>
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
          );
        });
      const queued = await shell(`${printed}\n${asHere(run!)}`);
      expect(queued).toMatchObject({ code: 0, stderr: '' });
      const jobId = queued.stdout.trim();
      expect(jobId).toMatch(/^[\w-]+$/);
      const checked = await shell(`${printed}\n${asHere(status!).replace('<job id>', jobId)}`);
      expect(checked.code).toBe(0);
      expect(JSON.parse(checked.stdout)).toMatchObject({ id: jobId, status: expect.stringMatching(/IN_QUEUE|IN_PROGRESS/) });
    } finally {
      await stop(served.server);
    }
  }, 40_000);
});

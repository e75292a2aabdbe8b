import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serveEmulatorCli } from './served-emulator.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const BIN = 'dist/cli/main.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built binary as a real process (stdout piped, so never a TTY). */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: root, timeout: 30_000, env: { PATH: process.env.PATH ?? '', ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const VERSION = (JSON.parse(readFileSync(new URL('package.json', `file://${root}`), 'utf8')) as { version: string }).version;

interface Case {
  args: string[];
  env?: Record<string, string>;
  code: number;
  stdout?: RegExp;
  stderr?: RegExp;
}

/** The conventions table: what each command line answers, and its exit code. */
const CONVENTIONS: Record<string, Case> = {
  '--version prints the version': { args: ['--version'], code: 0, stdout: new RegExp(`^${VERSION.replaceAll('.', '\\.')}\n$`) },
  '-v too': { args: ['-v'], code: 0, stdout: new RegExp(`^${VERSION.replaceAll('.', '\\.')}\n$`) },
  'help <command> is that command\'s help': { args: ['help', 'pods'], code: 0, stdout: /^Usage: runpod-gql pods \[options\] \[command\]/ },
  'help <command> <subcommand>': { args: ['help', 'jobs', 'run'], code: 0, stdout: /^Usage: runpod-gql jobs run \[options\] <endpoint-id>[\s\S]*--timeout <seconds>/ },
  'a mistyped command gets a suggestion and a short usage error': { args: ['podz'], code: 2, stderr: /^runpod-gql: unknown command 'podz'\n\(Did you mean pods\?\)\nRun 'runpod-gql --help' for usage\.\n$/ },
  'a mistyped option gets a suggestion naming the command\'s own help': { args: ['gpus', '--cont', '2', '--emulator'], code: 2, stderr: /^runpod-gql gpus: unknown option '--cont'\n\(Did you mean --count\?\)\nRun 'runpod-gql gpus --help' for usage\.\n$/ },
  'a mistyped subcommand gets a suggestion': { args: ['pods', 'lst'], code: 2, stderr: /unknown command 'lst'\n\(Did you mean list\?\)\nRun 'runpod-gql pods --help' for usage\./ },
  'an extra argument is refused': { args: ['pods', 'list', 'extra', '--emulator'], code: 2, stderr: /^runpod-gql pods list: too many arguments[^\n]*\nRun 'runpod-gql pods list --help' for usage\.\n$/ },
  'an extra argument after an id is refused': { args: ['pods', 'get', 'abc', 'def', '--emulator'], code: 2, stderr: /too many arguments/ },
  'jobs alone names its subcommands': { args: ['jobs'], code: 2, stderr: /^runpod-gql jobs: missing subcommand \(run, status, stream, health, cancel\)\nRun 'runpod-gql jobs --help' for usage\.\n$/ },
  'a missing id is a usage error': { args: ['pods', 'get', '--emulator'], code: 2, stderr: /missing required argument 'pod-id'/ },
  'gpus --count 0 is refused before sending, naming the flag and the value': { args: ['gpus', '--count', '0', '--emulator'], code: 2, stderr: /^runpod-gql gpus: option '--count <n>' argument '0' is invalid\. Expected a whole number of GPUs, 1 or more\.\nRun 'runpod-gql gpus --help' for usage\.\n$/ },
  '--ports 8888 is refused before sending (ValidationError), named by its flag': { args: ['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img', '--ports', '8888', '--emulator'], code: 2, stderr: /^runpod-gql pods deploy: invalid --ports "8888": ports .*8888\/http.*\(nothing was sent\)\nRun 'runpod-gql pods deploy --help' for usage\.\n$/ },
  'a number option refuses a word': { args: ['gpus', '--count', 'two', '--emulator'], code: 2, stderr: /option '--count <n>' argument 'two' is invalid\. Expected a number\./ },
  '--port 99999 is a usage error, not a stack': { args: ['emulator', '--port', '99999'], code: 2, stderr: /^runpod-gql emulator: option '--port <n>' argument '99999' is invalid\. Expected a port number from 0 to 65535\.\n/ },
  '--secure and --community conflict': { args: ['gpus', '--secure', '--community', '--emulator'], code: 2, stderr: /cannot be used with option '--community'/ },
  '--timeout needs --sync or --wait': { args: ['jobs', 'run', 'echo', '--timeout', '5', '--emulator'], code: 2, stderr: /--timeout needs --sync or --wait/ },
  'a bad RUNPOD_GRAPHQL_URL is a configuration error': { args: ['pods', 'list'], env: { RUNPOD_API_KEY: 'rpa_x', RUNPOD_GRAPHQL_URL: 'localhost:8787/graphql' }, code: 2, stderr: /^runpod-gql pods list: configuration error: RUNPOD_GRAPHQL_URL \(graphqlUrl\) must be an absolute URL starting with http:\/\/ or https:\/\/\n$/ },
  'a RUNPOD_REST_URL with another scheme is a configuration error': { args: ['pods', 'list'], env: { RUNPOD_API_KEY: 'rpa_x', RUNPOD_REST_URL: 'ftp://127.0.0.1/v2' }, code: 2, stderr: /^runpod-gql pods list: configuration error: RUNPOD_REST_URL \(restUrl\) must be an absolute URL starting with http:\/\/ or https:\/\// },
  'an unparseable RUNPOD_SERVERLESS_URL is a configuration error': { args: ['jobs', 'status', 'echo', 'x'], env: { RUNPOD_API_KEY: 'rpa_x', RUNPOD_SERVERLESS_URL: 'http://[::1' }, code: 2, stderr: /^runpod-gql jobs status echo x: configuration error: RUNPOD_SERVERLESS_URL \(serverlessUrl\) must be an absolute URL starting with http:\/\/ or https:\/\// },
  'errors name the ids the user typed': { args: ['jobs', 'status', 'echo', 'no-such-job', '--emulator'], code: 3, stderr: /^runpod-gql jobs status echo no-such-job: NotFoundError: / },
  'jobs run --wait --timeout gives up after the timeout': { args: ['jobs', 'run', 'sleep', '--input', '{"ms":600000}', '--wait', '--timeout', '0.2', '--emulator'], code: 3, stderr: /JobTimedOutError: .*200 ms deadline/ },
  // Without dispose() the in-process job (10 minutes) would keep the process alive past the test's timeout.
  'a queued in-process job does not keep the process alive': { args: ['jobs', 'run', 'sleep', '--input', '{"ms":600000}', '--emulator'], code: 0, stdout: /^[\w-]+-u1\n$/, stderr: /^note: with --emulator the job ends with this command; serve `runpod-gql emulator` to keep it/ },
  'a pod deployed on --emulator comes with the same note': { args: ['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img', '--emulator'], code: 0, stdout: /^deployed \w+ \(1 GPU, /, stderr: /^note: with --emulator the pod ends with this command/ },
};

describe('CLI conventions', () => {
  // Concurrent: each case is its own process, and starting Node is most of the time.
  it.concurrent.each(Object.entries(CONVENTIONS))('%s', async (_name, c) => {
    const run = await cli(c.args, c.env);
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toMatchObject({
      code: c.code,
      ...(c.stdout && { stdout: expect.stringMatching(c.stdout) }),
      ...(c.stderr && { stderr: expect.stringMatching(c.stderr) }),
    });
  });

});

// util-linux `script` runs a command on a pseudo-terminal, so the CLI sees a TTY.
const haveScript = existsSync('/usr/bin/script');

describe('progress on a terminal', () => {
  it.skipIf(!haveScript)('jobs run --wait shows a progress line on a terminal, then erases it before the result', async () => {
    const command = `${JSON.stringify(process.execPath)} ${BIN} jobs run sleep --input '{"ms":1200,"output":7}' --wait --emulator`;
    const out = await new Promise<string>((resolve, reject) => {
      execFile('/usr/bin/script', ['-qec', command, '/dev/null'], { cwd: root, timeout: 30_000, env: { PATH: process.env.PATH ?? '' } }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    expect(out).toMatch(/^\rqueueing… \d+ s\u001b\[K/);
    // The id on its own line, then the job's real status on the progress line.
    expect(out).toMatch(/\r\u001b\[Kjob (\S+) queued on endpoint sleep\r?\n\rjob \1: IN_(QUEUE|PROGRESS)… \d+ s/);
    const [progress, result] = out.split('\r\u001b[K{');
    expect(progress).not.toContain('{');
    expect(JSON.parse(`{${result}`.replaceAll('\r', ''))).toMatchObject({ status: 'COMPLETED', output: 7 });
  });
});

describe('progress shows the real status', () => {
  it.skipIf(!haveScript)('a long job shows IN_PROGRESS on a terminal, not the first status seen', async () => {
    const command = `${JSON.stringify(process.execPath)} ${BIN} jobs run sleep --input '{"ms":4500,"output":1}' --wait --emulator`;
    const out = await new Promise<string>((resolve, reject) => {
      execFile('/usr/bin/script', ['-qec', command, '/dev/null'], { cwd: root, timeout: 30_000, env: { PATH: process.env.PATH ?? '' } }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    expect(out).toMatch(/\rjob \S+: IN_PROGRESS… \d+ s/);
    expect(out).toContain('"status": "COMPLETED"');
  }, 40_000);
});

describe('runpod-gql CLI', () => {
  it('gpus --emulator prints a price table sorted by price', async () => {
    const run = await cli(['gpus', '--emulator']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^GPU\s+ID\s+MEMORY\s+\$\/HR\s+STOCK\s+AVAILABLE$/);
    const prices = lines.slice(1).map((l) => Number(/\s(\d+\.\d\d)\s/.exec(l)?.[1]));
    expect(prices.length).toBeGreaterThan(3);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
  });

  it('gpus filters and --json', async () => {
    const run = await cli(['gpus', '--emulator', '--json', '--count', '2', '--secure', '--min-memory', '40', '--max-price', '5']);
    expect(run.code).toBe(0);
    const offers = JSON.parse(run.stdout) as Array<{ gpuTypeId: string; pricePerHour: number; memoryInGb: number; gpuCount: number; cloud: string }>;
    expect(offers.length).toBeGreaterThan(0);
    for (const o of offers) {
      expect(o.memoryInGb).toBeGreaterThanOrEqual(40);
      expect(o.pricePerHour).toBeLessThanOrEqual(5);
      expect(o).toMatchObject({ gpuCount: 2, cloud: 'SECURE' });
    }
  });

  it('without a key or --emulator it explains and exits 2', async () => {
    const run = await cli(['pods', 'list']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no API key: set RUNPOD_API_KEY, or pipe it to --api-key -, or try --emulator');
  });

  it('--help works everywhere; usage errors exit 2', async () => {
    for (const args of [['--help'], ['gpus', '--help'], ['pods', '--help'], ['jobs', '-h'], ['emulator', '--help']]) {
      const run = await cli(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Usage: runpod-gql');
    }
    expect((await cli(['nonsense'])).code).toBe(2);
    expect((await cli(['gpus', '--bogus'])).code).toBe(2);
    expect((await cli(['gpus', '--emulator', '--count', 'two'])).code).toBe(2);
    expect((await cli(['pods', 'deploy', '--emulator', '--image', 'x'])).stderr).toContain("required option '--gpu <type>' not specified");
  });

  it('exit codes tell API errors (3) from no capacity (4)', async () => {
    const missing = await cli(['pods', 'get', 'nope', '--emulator']);
    expect(missing.code).toBe(3);
    const full = await cli(['pods', 'deploy', '--emulator', '--gpu', 'NVIDIA H100 80GB HBM3', '--image', 'img', '--count', '8']);
    expect(full.code).toBe(4);
    expect(full.stderr).toContain('no capacity');
  });

  it('jobs run --sync runs a job on the emulator', async () => {
    const run = await cli(['jobs', 'run', 'echo', '--input', '{"hello":"world"}', '--sync', '--emulator']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'COMPLETED', output: { hello: 'world' } });
  });

  it('emulator serves other programs; pods and jobs work against it, and wait prints no progress when piped', async () => {
    const server = spawn(process.execPath, [BIN, 'emulator', '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const banner = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('Ctrl+C')) resolve(out);
        });
        server.on('exit', () => reject(new Error(`emulator exited: ${out}`)));
      });
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
      const key = /apiKey\s+(\S+)/.exec(banner)?.[1];
      expect(url).toBeDefined();
      const env = { RUNPOD_API_KEY: key!, RUNPOD_GRAPHQL_URL: `${url}/graphql`, RUNPOD_REST_URL: `${url}/v2`, RUNPOD_SERVERLESS_URL: `${url}/queue/v2` };

      const deployed = await cli(['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img:1', '--ports', '8888/http', '--env', 'A=1', '--json'], env);
      expect(deployed.code).toBe(0);
      const podId = (JSON.parse(deployed.stdout) as { id: string }).id;
      const waited = await cli(['pods', 'wait', podId, '--timeout', '20'], env);
      expect(waited.code).toBe(0);
      expect(waited.stdout).toMatch(new RegExp(`^${podId} ready: 8888/http → `));
      expect(waited.stderr).toBe('');
      expect((await cli(['pods', 'list'], env)).stdout).toContain(podId);
      expect((await cli(['pods', 'stop', podId], env)).stdout.trim()).toBe(`${podId} EXITED`);
      expect((await cli(['pods', 'resume', podId], env)).stdout.trim()).toBe(`${podId} RUNNING with 1 GPU`);
      expect((await cli(['pods', 'terminate', podId], env)).stdout.trim()).toBe(`${podId} terminated`);

      const input = '{"chunks":["x",{"n":2}],"intervalMs":50}';
      const jobId = (await cli(['jobs', 'run', 'stream', '--input', input], env)).stdout.trim();
      const streamed = await cli(['jobs', 'stream', 'stream', jobId], env);
      expect(streamed.stdout.trim().split('\n')).toEqual(['x', '{"n":2}']);
      const second = (await cli(['jobs', 'run', 'stream', '--input', input], env)).stdout.trim();
      const chunks = (await cli(['jobs', 'stream', 'stream', second, '--json'], env)).stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown);
      expect(chunks).toEqual([{ output: 'x', metrics: { index: 0 } }, { output: { n: 2 }, metrics: { index: 1 } }]);
      expect(JSON.parse((await cli(['jobs', 'status', 'stream', jobId], env)).stdout)).toMatchObject({ status: 'COMPLETED' });
      const sleeper = (await cli(['jobs', 'run', 'sleep', '--input', '{"ms":60000}'], env)).stdout.trim();
      expect(JSON.parse((await cli(['jobs', 'cancel', 'sleep', sleeper], env)).stdout)).toMatchObject({ status: 'CANCELLED' });
    } finally {
      server.kill('SIGTERM');
    }
    const code = await new Promise((resolve) => server.on('exit', (c) => resolve(c)));
    expect(code).toBe(0);
  }, 60_000);

  it('emulator --json prints its URLs and key; pods wait --no-require-ports accepts a pod without ports', async () => {
    const { info, stop } = await serveEmulatorCli([]);
    try {
      expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(info).toMatchObject({ graphqlUrl: `${info.url}/graphql`, restUrl: `${info.url}/v2`, serverlessUrl: `${info.url}/queue/v2`, apiKey: 'rpa_emulator_default_key' });
      expect(info.env).toEqual({ RUNPOD_API_KEY: info.apiKey, RUNPOD_GRAPHQL_URL: info.graphqlUrl, RUNPOD_REST_URL: info.restUrl, RUNPOD_SERVERLESS_URL: info.serverlessUrl });

      const podId = (JSON.parse((await cli(['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img:1', '--json'], info.env)).stdout) as { id: string }).id;
      const waited = await cli(['pods', 'wait', podId, '--no-require-ports', '--timeout', '20', '--json'], info.env);
      expect(waited.code).toBe(0);
      expect(JSON.parse(waited.stdout)).toMatchObject({ id: podId, desiredStatus: 'RUNNING' });
      // With ports required (the default), a pod without ports never counts as ready.
      const strict = await cli(['pods', 'wait', podId, '--timeout', '1'], info.env);
      expect(strict.code).toBe(3);
      expect(strict.stderr).toContain(`pods wait ${podId}: TimeoutError`);
    } finally {
      expect(await stop()).toBe(0);
    }
  }, 60_000);
});

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { createEmulator, type Emulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';

// `pods exec`, `pods logs`, `secrets` and `jobs health` through the built CLI, run as a child
// process against the emulator served on 127.0.0.1.
const root = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'rpa_cli_pod_ops';
let emulator: Emulator;
let server: ListeningEmulator;
let running = '';
let stopped = '';
const dirs: string[] = [];
beforeAll(async () => {
  emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 0 });
  server = await listen(emulator, { port: 0, host: '127.0.0.1' });
  const calls: string[][] = [];
  emulator.exec.define('exit', (args) => ({ exitCode: Number(args[0]), stdout: 'out line\n', stderr: 'err line\n' }));
  emulator.exec.define('record', (args, { cwd }) => {
    calls.push([...args]);
    return { exitCode: 0, stdout: `${cwd} ${calls.length}\n` };
  });
  const rp = createRunpodClient(server.clientOptions(KEY));
  const pod = (name: string) => rp.rest.pods.create({ name, image: 'img', gpu: { id: 'NVIDIA RTX A4000' } });
  running = (await pod('runs')).id;
  stopped = (await pod('stops')).id;
  await rp.rest.pods.stop(stopped);
});
afterAll(async () => {
  await server?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin = ''): Promise<Run> {
  const env = { PATH: process.env.PATH ?? '', HOME: tmpdir(), RUNPOD_API_KEY: KEY, RUNPOD_GRAPHQL_URL: server.graphqlUrl, RUNPOD_REST_URL: server.restUrl, RUNPOD_SERVERLESS_URL: server.serverlessUrl };
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['dist/cli/main.js', ...args], { cwd: root, timeout: 30_000, env }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(stdin);
  });
}

describe('pods exec', () => {
  it("the README's example: `pods exec ID -- nvidia-smi` prints the pod's GPU and exits 0", async () => {
    const run = await cli(['pods', 'exec', running, '--', 'nvidia-smi']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/NVIDIA RTX A4000\s+On\s+\|/);
    expect(await cli(['pods', 'exec', running, '--', 'sh', '-c', 'cd /workspace && pwd && ls /'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\/workspace\nbin\n[\s\S]*workspace\n$/) });
  });

  it('prints the output on the matching streams and exits 0', async () => {
    expect(await cli(['pods', 'exec', running, '--', 'echo', 'hello', '-n', 'world'])).toEqual({ code: 0, stdout: 'hello -n world\n', stderr: '' });
  });

  it.each([1, 3, 42, 255])('exits with the command\'s exit code (%i)', async (code) => {
    expect(await cli(['pods', 'exec', running, '--', 'exit', String(code)])).toEqual({ code, stdout: 'out line\n', stderr: 'err line\n' });
  });

  it('false exits 1; a code outside 0–255 exits 255, never 0', async () => {
    expect((await cli(['pods', 'exec', running, '--', 'false'])).code).toBe(1);
    expect((await cli(['pods', 'exec', running, '--', 'exit', '256'])).code).toBe(255);
    expect((await cli(['pods', 'exec', running, '--', 'exit', '-1'])).code).toBe(255);
  });

  it('--cwd and --timeout reach the pod; --json prints the result and keeps the exit code', async () => {
    const run = await cli(['pods', 'exec', running, '--cwd', '/workspace', '--timeout', '5', '--json', '--', 'exit', '7']);
    expect(run.code).toBe(7);
    expect(JSON.parse(run.stdout)).toEqual({ exitCode: 7, stdout: 'out line\n', stderr: 'err line\n' });
    expect(await cli(['pods', 'exec', running, '--cwd', '/workspace', '--', 'pwd'])).toMatchObject({ code: 0, stdout: '/workspace\n' });
  });

  it('an unknown program is the platform\'s 127', async () => {
    const run = await cli(['pods', 'exec', running, '--', 'no-such-program']);
    expect(run.code).toBe(127);
    expect(run.stderr).toMatch(/executable file not found/);
  });

  it.each([['0'], ['26'], ['2.5'], ['x']])('--timeout %s is a usage error (exit 2), nothing sent', async (t) => {
    const run = await cli(['pods', 'exec', running, '--timeout', t, '--', 'echo']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--timeout <seconds>' argument .* is invalid/);
  });

  it('a missing command is a usage error', async () => {
    const run = await cli(['pods', 'exec', running]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/missing required argument 'command'/);
  });

  it('a pod that is not running is an API error (exit 3), naming the command as typed', async () => {
    const run = await cli(['pods', 'exec', stopped, '--', 'echo', 'hi']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(new RegExp(`^runpod-gql pods exec ${stopped} echo hi: ConflictError: .*RUNNING`));
  });
});

describe('pods logs', () => {
  it('prints the lines of a stopped pod, and ends with its stream', async () => {
    const run = await cli(['pods', 'logs', stopped]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/start container for img/);
    expect(run.stdout).toMatch(/stop container/);
  });

  it('--follow on a stopped pod prints its lines and ends when its stream does', async () => {
    const run = await cli(['pods', 'logs', stopped, '--follow']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/start container for img[\s\S]*stop container/);
  });

  it('--source and --json: one JSON line each, of that source only', async () => {
    const run = await cli(['pods', 'logs', stopped, '--source', 'container', '--json']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { source: string; line: string; ts: string });
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatchObject({ source: 'container', ts: expect.any(String), line: expect.any(String) });
  });

  it('without --follow, a running pod\'s logs end after its lines so far (--tail 1: one line)', async () => {
    const run = await cli(['pods', 'logs', running, '--tail', '1']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('--tail 5001 is a usage error; a missing pod is exit 3', async () => {
    expect((await cli(['pods', 'logs', running, '--tail', '5001'])).code).toBe(2);
    expect((await cli(['pods', 'logs', 'no-such-pod'])).code).toBe(3);
  });
});

describe('secrets', () => {
  const VALUE = 'hunter2-very-secret-value';
  const file = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'runpod-gql-secret-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'value'), text);
    return join(dir, 'value');
  };
  const noValue = (run: Run) => {
    for (const text of [run.stdout, run.stderr, encodeURIComponent(run.stdout), Buffer.from(run.stdout).toString()]) expect(text).not.toContain(VALUE);
    expect(run.stdout + run.stderr).not.toContain(Buffer.from(VALUE).toString('base64'));
  };

  it('create from --value-file, list, delete: the value is never printed', async () => {
    const made = await cli(['secrets', 'create', 'from_file', '--value-file', file(`${VALUE}\n`), '--description', 'a test', '--json']);
    expect(made.code).toBe(0);
    noValue(made);
    const secret = JSON.parse(made.stdout) as { id: string; name: string };
    expect(secret.name).toBe('from_file');
    const listed = await cli(['secrets', 'list']);
    expect(listed).toMatchObject({ code: 0, stdout: expect.stringMatching(/^NAME\s+ID\s+CREATED\s+DESCRIPTION\n.*from_file/) });
    noValue(listed);
    noValue(await cli(['secrets', 'list', '--json']));
    const deleted = await cli(['secrets', 'delete', secret.id]);
    expect(deleted).toMatchObject({ code: 0, stdout: `deleted secret from_file (${secret.id})\n` });
    expect((await cli(['secrets', 'delete', secret.id])).code).toBe(3);
  });

  it('a text-mode API error ends with the request id, the one --json carries', async () => {
    expect((await cli(['secrets', 'create', 'twice', '--value-file', file(VALUE)])).code).toBe(0);
    const text = await cli(['secrets', 'create', 'twice', '--value-file', file(VALUE)]);
    expect(text.code).toBe(3);
    expect(text.stderr).toMatch(/^runpod-gql secrets create twice: \w+Error: .* \(request id [\w-]+\)\n$/);
    const json = await cli(['secrets', 'create', 'twice', '--value-file', file(VALUE), '--json']);
    const { requestId } = (JSON.parse(json.stderr) as { error: { requestId?: string } }).error;
    expect(requestId).toMatch(/^[\w-]+$/);
    expect(json.stderr).not.toContain('(request id');
    noValue(text);
  });

  it('get and delete take the name (as create printed it) or the id', async () => {
    const made = await cli(['secrets', 'create', 'HF_TOKEN', '--value-file', file(VALUE), '--json']);
    const { id } = JSON.parse(made.stdout) as { id: string };
    for (const ref of ['HF_TOKEN', id]) {
      const got = await cli(['secrets', 'get', ref, '--json']);
      expect(got.code).toBe(0);
      expect(JSON.parse(got.stdout)).toMatchObject({ id, name: 'HF_TOKEN' });
      noValue(got);
    }
    expect(await cli(['secrets', 'get', 'HF_TOKEN'])).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^NAME\\s+ID.*\\nHF_TOKEN\\s+${id}`)) });
    expect(await cli(['secrets', 'delete', 'HF_TOKEN'])).toMatchObject({ code: 0, stdout: `deleted secret HF_TOKEN (${id})\n` });
    const again = await cli(['secrets', 'delete', 'HF_TOKEN']);
    expect(again).toMatchObject({ code: 3, stderr: expect.stringContaining('no secret named HF_TOKEN, nor with that id, on this account') });
    expect((await cli(['secrets', 'get', id])).code).toBe(3);
  });

  it('create from stdin; a pod sees the value (without the line ending) through {{ RUNPOD_SECRET_name }}', async () => {
    const made = await cli(['secrets', 'create', 'from_stdin'], `${VALUE}\r\n`);
    expect(made).toMatchObject({ code: 0, stdout: expect.stringMatching(/^created secret from_stdin \(/) });
    noValue(made);
    const rp = createRunpodClient(server.clientOptions(KEY));
    const pod = await rp.rest.pods.create({ name: 'reads', image: 'img', gpu: { id: 'NVIDIA RTX A4000' }, env: { TOKEN: '{{ RUNPOD_SECRET_from_stdin }}' } });
    const read = await cli(['pods', 'exec', pod.id, '--', 'printenv', 'TOKEN']);
    expect(read).toEqual({ code: 0, stdout: `${VALUE}\n`, stderr: '' });
  });

  it('--value is refused with the reason, never echoing the value, before anything is sent', async () => {
    for (const args of [['--value', VALUE], [`--value=${VALUE}`]]) {
      const run = await cli(['secrets', 'create', 'refused', ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--value is refused: a secret typed on the command line stays in the shell history/);
      noValue(run);
    }
    const json = await cli(['secrets', 'create', 'refused', '--value', VALUE, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { name: 'UsageError' } });
    noValue(json);
    expect((await cli(['secrets', 'list', '--json'])).stdout).not.toContain('refused');
  });

  it('the value as an extra argument is refused without echoing it', async () => {
    const run = await cli(['secrets', 'create', 'extra', VALUE]);
    expect(run.code).toBe(2);
    noValue(run);
  });

  it('an empty value, a missing file, or a name the library refuses: usage errors that never quote it', async () => {
    expect((await cli(['secrets', 'create', 'empty'], '\n'))).toMatchObject({ code: 2, stderr: expect.stringMatching(/stdin: the secret value is empty/) });
    expect((await cli(['secrets', 'create', 'missing', '--value-file', '/nonexistent/value']))).toMatchObject({ code: 2, stderr: expect.stringMatching(/cannot read the file \(no such file\)/) });
    const reserved = await cli(['secrets', 'create', 'RUNPOD_X', '--value-file', file(VALUE)]);
    expect(reserved.code).toBe(2);
    noValue(reserved);
  });
});

describe('jobs health', () => {
  it('counts jobs and workers; --json is the answer as it is', async () => {
    const run = await cli(['jobs', 'health', 'echo']);
    expect(run).toMatchObject({ code: 0, stdout: expect.stringMatching(/^jobs: \d+ in queue, \d+ in progress, \d+ completed, \d+ failed, \d+ retried\nworkers: \d+ \w+/) });
    const json = await cli(['jobs', 'health', 'echo', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ jobs: { inQueue: expect.any(Number) }, workers: { idle: expect.any(Number) } });
    expect((await cli(['jobs', 'health', 'no-such-endpoint'])).code).toBe(3);
  });
});

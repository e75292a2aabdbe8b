import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { errorJson } from '../../src/cli/errors.js';

// Job input from a file or stdin, errors as JSON under --json, hints that name commands, defaults in
// help and whole milliseconds. Runs the built binary against --emulator.
const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'runpod-gql-cli-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['dist/cli/main.js', ...args], { cwd: root, timeout: 30_000, env: { PATH: process.env.PATH ?? '' } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(stdin ?? '');
  });
}

describe('jobs run --input', () => {
  it('@file reads the input from a file', async () => {
    const file = join(dir, 'input.json');
    writeFileSync(file, '{"prompt":"from a file","n":[1,2]}\n');
    const run = await cli(['jobs', 'run', 'echo', '--input', `@${file}`, '--sync', '--emulator']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'COMPLETED', output: { prompt: 'from a file', n: [1, 2] } });
  });

  it('- reads the input from stdin', async () => {
    const run = await cli(['jobs', 'run', 'echo', '--input', '-', '--sync', '--emulator'], '{"prompt":\n"from stdin"}');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ output: { prompt: 'from stdin' } });
  });

  it.each([
    [['--input', '@'], /option '--input <json>' argument '@' is invalid\. Expected a file name after @/],
    [['--input', '@/no/such/file.json'], /^runpod-gql jobs run echo: --input @\/no\/such\/file\.json: cannot read the file \(no such file\)\n$/],
    [['--input', '-'], /^runpod-gql jobs run echo: --input -: not JSON \(/, 'not json'],
    [['--input', '{"a":'], /option '--input <json>' argument '\{"a":' is invalid\. Expected JSON/],
    [['--input', '-', '--api-key', '-'], /--input - and --api-key - both read stdin/, 'rpa_x\n{}'],
  ] as Array<[string[], RegExp, string?]>)('%j is a usage error (exit 2), nothing sent', async (args, stderr, stdin) => {
    const run = await cli(['jobs', 'run', 'echo', ...args, ...(args.includes('--api-key') ? [] : ['--emulator'])], stdin);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(stderr);
  });

  it('a file that is not JSON is named', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, 'prompt: yaml');
    const run = await cli(['jobs', 'run', 'echo', '--input', `@${file}`, '--emulator']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--input @${file}: not JSON (`);
  });
});

describe('--json errors: one JSON object on stderr, the same exit codes', () => {
  const one = (stderr: string) => {
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]!) as { error: { name: string; message: string; status?: number; requestId?: string } };
  };

  it('an API error: name, message, status (exit 3)', async () => {
    const run = await cli(['pods', 'get', 'nope', '--emulator', '--json']);
    expect(run.code).toBe(3);
    expect(one(run.stderr)).toEqual({ error: { name: 'NotFoundError', message: expect.stringContaining('nope'), status: 404 } });
  });

  it('a usage error found by commander (exit 2)', async () => {
    const run = await cli(['gpus', '--cont', '2', '--json']);
    expect(run.code).toBe(2);
    expect(one(run.stderr).error).toEqual({ name: 'UsageError', message: expect.stringContaining("unknown option '--cont'") });
  });

  it('a usage error found by the CLI, and a bad value found by the library (exit 2)', async () => {
    const timeout = await cli(['jobs', 'run', 'echo', '--timeout', '5', '--emulator', '--json']);
    expect(timeout.code).toBe(2);
    expect(one(timeout.stderr).error).toEqual({ name: 'UsageError', message: '--timeout needs --sync or --wait' });
    const gpu = await cli(['pods', 'deploy', '--gpu', 'RTX 4090', '--image', 'img', '--emulator', '--json']);
    expect(gpu.code).toBe(2);
    expect(one(gpu.stderr).error).toMatchObject({ name: 'ValidationError', message: expect.stringMatching(/^invalid --gpu "RTX 4090": .*`runpod-gql gpus`/) });
  });

  it('no capacity (exit 4)', async () => {
    const run = await cli(['pods', 'deploy', '--emulator', '--gpu', 'NVIDIA H100 80GB HBM3', '--image', 'img', '--count', '8', '--json']);
    expect(run.code).toBe(4);
    expect(one(run.stderr).error.name).toBe('CapacityUnavailableError');
  });

  it('carries requestId when the error has one', () => {
    expect(JSON.parse(errorJson('ServerError', 'boom', { status: 503, requestId: 'req_123' }))).toEqual({ error: { name: 'ServerError', message: 'boom', status: 503, requestId: 'req_123' } });
    expect(JSON.parse(errorJson('ServerError', 'boom', { status: 503, requestId: 42 }))).toEqual({ error: { name: 'ServerError', message: 'boom', status: 503 } });
  });
});

describe('hints, defaults and times', () => {
  it('the --gpu hint names the command that lists GPU ids, not a library call', async () => {
    const run = await cli(['pods', 'deploy', '--gpu', 'RTX 4090', '--image', 'img', '--emulator']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('`runpod-gql gpus` gives the ids');
    expect(run.stderr).not.toMatch(/gpuTypes\.list|catalog\.gpus/);
  });

  it('--timeout help shows its default', async () => {
    expect((await cli(['pods', 'wait', '--help'])).stdout).toMatch(/--timeout <seconds>\s+give up after this long \(default: 600\)/);
    expect((await cli(['jobs', 'run', '--help'])).stdout).toMatch(/--timeout <seconds>[\s\S]*\(default:\s+600 with\s+--wait; with\s+--sync,\s+60\)/);
  });

  it('seconds become whole milliseconds (--timeout 1.1 is 1100 ms)', async () => {
    const run = await cli(['jobs', 'run', 'sleep', '--input', '{"ms":600000}', '--wait', '--timeout', '1.1', '--emulator']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/JobTimedOutError: .*\b1100 ms deadline/);
  });
});

describe('--debug and --verbose', () => {
  it('--debug logs each attempt on stderr (stdout stays the output), with no key', async () => {
    const run = await cli(['gpus', '--emulator', '--json', '--debug']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toBeInstanceOf(Array);
    expect(run.stderr).toMatch(/^runpod-gql: POST \S+\/graphql \(GpuTypes, attempt 1\) → HTTP 200 in \d+ ms$/m);
    expect(run.stderr).not.toContain('rpa_');
    const quiet = await cli(['gpus', '--emulator', '--json']);
    expect(quiet.stderr).toBe('');
  });
});

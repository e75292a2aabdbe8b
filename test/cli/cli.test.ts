import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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
    expect(run.stderr).toContain('no API key: set RUNPOD_API_KEY, pass --api-key KEY, or try --emulator');
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
    expect((await cli(['pods', 'deploy', '--emulator', '--image', 'x'])).stderr).toContain('--gpu TYPE');
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
      const env = { RUNPOD_API_KEY: key!, RUNPOD_GRAPHQL_URL: `${url}/graphql`, RUNPOD_REST_URL: `${url}/v1`, RUNPOD_SERVERLESS_URL: `${url}/queue/v2` };

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

      const jobId = (await cli(['jobs', 'run', 'stream', '--input', '{"chunks":["x","y"],"intervalMs":50}'], env)).stdout.trim();
      const streamed = await cli(['jobs', 'stream', 'stream', jobId], env);
      expect(streamed.stdout.trim().split('\n')).toEqual(['x', 'y']);
      expect(JSON.parse((await cli(['jobs', 'status', 'stream', jobId], env)).stdout)).toMatchObject({ status: 'COMPLETED' });
      const sleeper = (await cli(['jobs', 'run', 'sleep', '--input', '{"ms":60000}'], env)).stdout.trim();
      expect(JSON.parse((await cli(['jobs', 'cancel', 'sleep', sleeper], env)).stdout)).toMatchObject({ status: 'CANCELLED' });
    } finally {
      server.kill('SIGTERM');
    }
    const code = await new Promise((resolve) => server.on('exit', (c) => resolve(c)));
    expect(code).toBe(0);
  }, 60_000);
});

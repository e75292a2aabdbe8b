import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { emulatorBehindProxy } from '../logging-proxy.js';

// The built CLI, as a child process, honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY (undici's
// EnvHttpProxyAgent). The emulator and a logging forward proxy both run on 127.0.0.1.
const root = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'rpa_cli_proxy_env_key';
const rig = emulatorBehindProxy(KEY);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string>): Promise<Run> {
  const base = {
    PATH: process.env.PATH ?? '',
    HOME: '/nonexistent',
    RUNPOD_API_KEY: KEY,
    RUNPOD_GRAPHQL_URL: rig.server.graphqlUrl,
    RUNPOD_REST_URL: rig.server.restUrl,
    RUNPOD_SERVERLESS_URL: rig.server.serverlessUrl,
  };
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['dist/cli/main.js', ...args], { cwd: root, timeout: 30_000, env: { ...base, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
}

const emulatorHost = () => new URL(rig.server.url).host;

describe('the CLI and the proxy variables', () => {
  it('HTTP_PROXY: every request of the command goes through the proxy', async () => {
    rig.proxy.seen.length = 0;
    const run = await cli(['pods', 'list', '--json'], { HTTP_PROXY: rig.proxy.url });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
    expect(rig.proxy.seen.length).toBeGreaterThanOrEqual(1);
    // Tunnels to the emulator only.
    expect(new Set(rig.proxy.seen)).toEqual(new Set([`CONNECT ${emulatorHost()}`]));
  });

  it('lower-case http_proxy is honoured too; serverless calls go through it', async () => {
    rig.proxy.seen.length = 0;
    const run = await cli(['jobs', 'run', 'echo', '--sync', '--input', '{"via":"proxy"}', '--json'], { http_proxy: rig.proxy.url });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'COMPLETED', output: { via: 'proxy' } });
    expect(new Set(rig.proxy.seen)).toEqual(new Set([`CONNECT ${emulatorHost()}`]));
  });

  it('NO_PROXY=127.0.0.1: the proxy sees nothing, and the command still works', async () => {
    rig.proxy.seen.length = 0;
    const run = await cli(['pods', 'list', '--json'], { HTTP_PROXY: rig.proxy.url, NO_PROXY: '127.0.0.1' });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
    expect(rig.proxy.seen).toEqual([]);
  });

  it('no proxy variable: the proxy sees nothing', async () => {
    rig.proxy.seen.length = 0;
    const run = await cli(['pods', 'list', '--json'], {});
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(rig.proxy.seen).toEqual([]);
  });

  it('HTTPS_PROXY alone does not apply to http:// URLs (as curl and npm read it)', async () => {
    rig.proxy.seen.length = 0;
    const run = await cli(['pods', 'list', '--json'], { HTTPS_PROXY: rig.proxy.url });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(rig.proxy.seen).toEqual([]);
  });

  it('a proxy variable that is not an http(s) URL is a usage error (exit 2) naming it, its value never echoed', async () => {
    rig.proxy.seen.length = 0;
    const secretish = 'user:hunter2-proxy-pass@';
    const run = await cli(['pods', 'list'], { HTTPS_PROXY: `socks5://${secretish}127.0.0.1:1` });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('HTTPS_PROXY');
    expect(run.stderr).not.toContain('hunter2');
    expect(run.stdout).toBe('');
    expect(rig.proxy.seen).toEqual([]);
  });
});

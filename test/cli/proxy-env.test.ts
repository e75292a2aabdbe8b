import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';

// The built CLI, as a child process, honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY (undici's
// EnvHttpProxyAgent). The emulator and a logging forward proxy both run on 127.0.0.1.
const root = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'rpa_cli_proxy_env_key';
let server: ListeningEmulator;
let proxy: Server;
let proxyUrl: string;
/** What the proxy saw: `CONNECT host:port` per tunnel (or `METHOD url`, refused). */
const seen: string[] = [];

beforeAll(async () => {
  server = await listen(createEmulator({ apiKeys: [KEY] }), { port: 0, host: '127.0.0.1' });
  // A request in absolute form is logged and refused: undici's agent tunnels, even to http:// URLs.
  proxy = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(405).end();
  });
  // Tunnels (what undici's proxy agent opens), logged, to loopback only.
  proxy.on('connect', (req, client, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    if (host !== '127.0.0.1') return void client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    const upstream = connect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await server?.close();
});

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
    RUNPOD_GRAPHQL_URL: server.graphqlUrl,
    RUNPOD_REST_URL: server.restUrl,
    RUNPOD_SERVERLESS_URL: server.serverlessUrl,
  };
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['dist/cli/main.js', ...args], { cwd: root, timeout: 30_000, env: { ...base, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
}

const emulatorHost = () => new URL(server.url).host;

describe('the CLI and the proxy variables', () => {
  it('HTTP_PROXY: every request of the command goes through the proxy', async () => {
    seen.length = 0;
    const run = await cli(['pods', 'list', '--json'], { HTTP_PROXY: proxyUrl });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    // Tunnels to the emulator only.
    expect(new Set(seen)).toEqual(new Set([`CONNECT ${emulatorHost()}`]));
  });

  it('lower-case http_proxy is honoured too; serverless calls go through it', async () => {
    seen.length = 0;
    const run = await cli(['jobs', 'run', 'echo', '--sync', '--input', '{"via":"proxy"}', '--json'], { http_proxy: proxyUrl });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'COMPLETED', output: { via: 'proxy' } });
    expect(new Set(seen)).toEqual(new Set([`CONNECT ${emulatorHost()}`]));
  });

  it('NO_PROXY=127.0.0.1: the proxy sees nothing, and the command still works', async () => {
    seen.length = 0;
    const run = await cli(['pods', 'list', '--json'], { HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
    expect(seen).toEqual([]);
  });

  it('no proxy variable: the proxy sees nothing', async () => {
    seen.length = 0;
    const run = await cli(['pods', 'list', '--json'], {});
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(seen).toEqual([]);
  });

  it('HTTPS_PROXY alone does not apply to http:// URLs (as curl and npm read it)', async () => {
    seen.length = 0;
    const run = await cli(['pods', 'list', '--json'], { HTTPS_PROXY: proxyUrl });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(seen).toEqual([]);
  });

  it('a proxy variable that is not an http(s) URL is a usage error (exit 2) naming it, its value never echoed', async () => {
    seen.length = 0;
    const secretish = 'user:hunter2-proxy-pass@';
    const run = await cli(['pods', 'list'], { HTTPS_PROXY: `socks5://${secretish}127.0.0.1:1` });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('HTTPS_PROXY');
    expect(run.stderr).not.toContain('hunter2');
    expect(run.stdout).toBe('');
    expect(seen).toEqual([]);
  });
});

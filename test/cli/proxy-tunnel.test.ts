import { execFile } from 'node:child_process';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, createRunpodClient } from '../../src/index.js';
import { proxyFromEnv } from '../../src/cli/proxy.js';

// A proxy that accepts every TCP connection and closes it as soon as the CONNECT arrives. undici 7
// alone reconnects to it in a tight loop (tens of thousands of connections in seconds, the request
// never settling); the CLI's agent ends each try, and the client's bounded retries end the call.
const root = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'rpa_cli_proxy_tunnel_key_0123456789';

interface DroppingProxy {
  url: string;
  /** TCP connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

const open: Server[] = [];
afterEach(async () => {
  for (const server of open.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function droppingProxy(): Promise<DroppingProxy> {
  const sockets = new Set<Socket>();
  const proxy = { url: '', connections: 0, close: async () => {} };
  const server = createServer((socket) => {
    proxy.connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(server);
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

describe('a proxy that drops every tunnel', () => {
  it('the client ends with a ConnectionError (nothing sent) after 1 + maxRetries tunnels, not a reconnect loop', async () => {
    const proxy = await droppingProxy();
    const setup = (await proxyFromEnv({ HTTP_PROXY: proxy.url }))!;
    try {
      // RunPod's address is never reached: the proxy is asked for a tunnel to it, and drops it.
      const rp = createRunpodClient({ apiKey: KEY, graphqlUrl: 'http://127.0.0.1:59999/graphql', restUrl: 'http://127.0.0.1:59999/v1', maxRetries: 2, fetchOptions: setup.fetchOptions });
      const err = await rp.pods.list().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConnectionError);
      expect((err as ConnectionError).notSent).toBe(true);
      expect((err as Error).message).toContain('before opening a tunnel (CONNECT)');
      expect((err as Error).message).not.toContain(KEY);
      expect(proxy.connections).toBe(3);
    } finally {
      await setup.close();
    }
  });

  it('the built CLI exits 3 with the ConnectionError, after a handful of connections', async () => {
    const proxy = await droppingProxy();
    const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const env = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', RUNPOD_API_KEY: KEY, HTTPS_PROXY: proxy.url };
      // The default (https) RunPod URLs: only the proxy is ever connected to.
      const child = execFile(process.execPath, ['dist/cli/main.js', 'pods', 'list', '--json'], { cwd: root, timeout: 60_000, env }, (err, _stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
      );
      child.stdin?.end();
    });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stderr)).toMatchObject({ error: { name: 'ConnectionError' } });
    expect(run.stderr).toContain('before opening a tunnel');
    // One call, its two retries (before the fix: thousands per second until the time-out).
    expect(proxy.connections).toBeLessThanOrEqual(6);
  });
});

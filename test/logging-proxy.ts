import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../src/emulator/index.js';
import { listen } from '../src/emulator/node.js';

/** A forward proxy on 127.0.0.1 that logs what it is asked, for the proxy tests. */
export interface LoggingProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** One line per request: `CONNECT host:port` per tunnel, `METHOD url` for anything else (refused, 405). */
  seen: string[];
  close(): Promise<void>;
}

/** Opens CONNECT tunnels to loopback only (403 elsewhere); undici's proxy agents tunnel even to http:// URLs. */
export async function startLoggingProxy(): Promise<LoggingProxy> {
  const seen: string[] = [];
  const proxy = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(405).end();
  });
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
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

/** The emulator (accepting `key`) and a logging proxy, both on 127.0.0.1, for one test file or block: read after beforeAll. */
export function emulatorBehindProxy(key: string): { server: ListeningEmulator; proxy: LoggingProxy } {
  const rig = {} as { server: ListeningEmulator; proxy: LoggingProxy };
  beforeAll(async () => {
    rig.server = await listen(createEmulator({ apiKeys: [key] }), { port: 0, host: '127.0.0.1' });
    rig.proxy = await startLoggingProxy();
  });
  afterAll(async () => {
    await rig.proxy?.close();
    await rig.server?.close();
  });
  return rig;
}

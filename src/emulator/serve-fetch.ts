// The one Node listener for fetch handlers (the emulator's and the gateway's). Internal: no entry
// re-exports it, so no published declaration names @hono/node-server's (and so Node's) types.
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';

/**
 * Serves a fetch handler on `host:port` (0 picks a free port) and resolves once it listens; rejects
 * when the port is taken or invalid. Shared by the emulator's and the gateway's listeners.
 */
export async function serveFetch(fetch: (request: Request, env: unknown) => Response | Promise<Response>, port: number, host: string): Promise<{ server: ReturnType<typeof createAdaptorServer>; url: string }> {
  const server = createAdaptorServer({ fetch, hostname: host });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    try {
      // A client fan-out opens thousands of connections at once (undici's fetch does not cap them):
      // with Node's default backlog of 511 the kernel reset some, which production never does.
      server.listen({ port, host, backlog: 4096 }, () => {
        server.off('error', reject);
        resolve();
      });
    } catch (err) {
      // An out-of-range port throws synchronously.
      reject(err);
    }
  });
  const { port: boundPort } = server.address() as AddressInfo;
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}` };
}

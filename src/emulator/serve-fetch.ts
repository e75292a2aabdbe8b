// The one Node listener for fetch handlers (the emulator's and the gateway's). Internal: no entry
// re-exports it, so no published declaration names @hono/node-server's (and so Node's) types.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';

/**
 * Serves a fetch handler on `host:port` (0 picks a free port) and resolves once it listens; rejects
 * when the port is taken or invalid. Shared by the emulator's and the gateway's listeners.
 */
export async function serveFetch(
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
  port: number,
  host: string,
  maxHeaderSize?: number,
): Promise<{ server: ReturnType<typeof createAdaptorServer>; url: string }> {
  // `maxHeaderSize`: a handler whose own limit on the request line is larger than Node's 16 KB
  // (the gateway's GET takes 102,400 bytes of query string) must get to answer it.
  const server = createAdaptorServer({ fetch, hostname: host, ...(maxHeaderSize !== undefined && { serverOptions: { maxHeaderSize } }) });
  // Idle connections are kept 65 s, as production's front ends keep them for a minute or more, not
  // Node's 5 s: a client whose timers run late on a busy machine (a fan-out pausing for a 429)
  // reused sockets the server had just closed, and a POST it wrote there failed with "other side
  // closed" (108 of 10,000 /run in the bench's four-process fan-out).
  Object.assign(server as Server, { keepAliveTimeout: 65_000, headersTimeout: 66_000 });
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

// The `runpod-gql/emulator/node` entry: serves an emulator over HTTP. The only part of the emulator
// that needs Node, kept apart so that `runpod-gql/emulator` bundles for browsers and Workers as-is.
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { Emulator, EmulatorClientOptions, ListeningEmulator } from './create-emulator.js';

export type { ListeningEmulator } from './create-emulator.js';

export interface ListenOptions {
  /** 0 picks a free port. @default 0 */
  port?: number | undefined;
  /** @default '127.0.0.1' */
  host?: string | undefined;
}

/**
 * Serves `emulator` over HTTP (Node). Rejects when the port is taken or invalid. `close()` stops the
 * server and disposes the emulator; calling it again does nothing.
 */
export async function listen(emulator: Emulator, { port = 0, host = '127.0.0.1' }: ListenOptions = {}): Promise<ListeningEmulator> {
  const { server, url } = await serveFetch((request: Request, env: unknown) => emulator.fetch(request, env), port, host);
  const defaultKey = emulator.clientOptions().apiKey;
  let closing: Promise<void> | undefined;
  return {
    url,
    graphqlUrl: `${url}/graphql`,
    restUrl: emulator.clientOptionsAt(url).restUrl,
    restV2Url: `${url}/v2`,
    serverlessUrl: emulator.clientOptionsAt(url).serverlessUrl,
    loadBalancedUrl: (endpointId) => `${url}/lb/${encodeURIComponent(endpointId)}`,
    clientOptions: (apiKey = defaultKey): EmulatorClientOptions => emulator.clientOptionsAt(url, apiKey),
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        emulator.dispose();
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close((err?: Error) => (err ? reject(err) : resolve()));
      });
      return closing;
    },
  };
}

/**
 * Serves a fetch handler on `host:port` (0 picks a free port) and resolves once it listens; rejects
 * when the port is taken or invalid. Shared by the emulator's and the gateway's listeners.
 */
export async function serveFetch(fetch: (request: Request, env: unknown) => Response | Promise<Response>, port: number, host: string): Promise<{ server: ReturnType<typeof createAdaptorServer>; url: string }> {
  const server = createAdaptorServer({ fetch, hostname: host });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    try {
      server.listen(port, host, () => {
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

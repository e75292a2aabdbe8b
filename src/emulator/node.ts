// The `runpod-gql/emulator/node` entry: serves an emulator over HTTP. The only part of the emulator
// that needs Node, kept apart so that `runpod-gql/emulator` bundles for browsers and Workers as-is.
import type { Emulator, EmulatorClientOptions, ListeningEmulator } from './create-emulator.js';
import { serveFetch } from './serve-fetch.js';

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


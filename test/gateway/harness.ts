import { createEmulator, type EmulatorOptions, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen as listenEmulator } from '../../src/emulator/node.js';
import { createGateway, type GatewayOptions } from '../../src/gateway/index.js';
import { listen, type ListeningGateway } from '../../src/gateway/node.js';
import type { FetchLike } from '../../src/transport/options.js';

export const READ_TOKEN = 'gw-read-token-0123456789abcdef';
export const WRITE_TOKEN = 'gw-write-token-0123456789abcdef';
export const UPSTREAM_KEY = 'rpa_gateway_upstream_KEY_0123456789';

/** An emulator and a gateway over loopback; `upstreamCalls` counts what the gateway sent upstream. */
export interface GatewayRig {
  readonly emulator: ListeningEmulator;
  readonly gateway: ListeningGateway;
  readonly upstreamCalls: string[];
  /** POST JSON to /graphql. */
  post(body: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export async function startRig(options: Partial<GatewayOptions> = {}, emulatorOptions: EmulatorOptions = {}): Promise<GatewayRig> {
  const emulator = await listenEmulator(createEmulator({ apiKeys: [UPSTREAM_KEY, 'rpa_caller_own_key_0123456789'], ...emulatorOptions }), { host: '127.0.0.1' });
  const upstreamCalls: string[] = [];
  const counting: FetchLike = (input, init) => {
    upstreamCalls.push(`${init?.method ?? 'GET'} ${new URL(String(input instanceof Request ? input.url : input)).pathname}`);
    return fetch(input, init);
  };
  const { apiKey: _key, ...urls } = emulator.clientOptions(UPSTREAM_KEY);
  const gateway = await listen(
    createGateway({
      tokens: `read:${READ_TOKEN},write:${WRITE_TOKEN}`,
      ...options,
      client: { ...urls, ...(options.passThroughKeys ? {} : { apiKey: UPSTREAM_KEY }), fetch: counting, maxRetries: 0, ...options.client },
    }),
  );
  return {
    emulator,
    gateway,
    upstreamCalls,
    post: (body, headers = {}) =>
      fetch(gateway.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) }),
    async close() {
      await gateway.close();
      await emulator.close();
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** An answer's text, byte for byte but for the request ids every gateway answer carries (fresh for each request). */
export const withoutRequestIds = (text: string): string => text.replace(/,"extensions":\{"requestIds":\{[^}]*\}\}/, '');

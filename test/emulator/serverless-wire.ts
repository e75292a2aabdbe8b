import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';

export const KEY_A = 'rpa_serverless_account_a';
export const KEY_B = 'rpa_serverless_account_b';

export interface WireAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** Lets every in-process request that is under way reach the point where it waits on the clock. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** An in-process emulator on the manual clock, and raw calls to its queue routes as the wire sees them. */
export function wireEmulator(options: EmulatorOptions = {}) {
  const emulator: Emulator = createEmulator({ clock: 'manual', apiKeys: [KEY_A, KEY_B], ...options });
  const { serverlessUrl, fetch } = emulator.clientOptions(KEY_A);
  const send = async (url: string, init: RequestInit & { key?: string; json?: unknown } = {}): Promise<WireAnswer> => {
    const { key = KEY_A, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    headers.set('authorization', `Bearer ${key}`);
    if (json !== undefined) headers.set('content-type', 'application/json');
    const response = await fetch!(url, { ...rest, headers, ...(json !== undefined && { body: JSON.stringify(json) }) });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: response.headers };
  };
  /** `route` is what follows the serverless base, e.g. `/echo/run`. */
  const call = (method: string, route: string, init: RequestInit & { key?: string; json?: unknown } = {}) => send(`${serverlessUrl}${route}`, { ...init, method });
  const run = async (endpointId: string, input: unknown, extra: Record<string, unknown> = {}, key = KEY_A) => {
    const answer = await call('POST', `/${endpointId}/run`, { json: { input, ...extra }, key });
    if (answer.status !== 200) throw new Error(`run answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.id as string;
  };
  return { emulator, call, send, run, serverlessUrl };
}

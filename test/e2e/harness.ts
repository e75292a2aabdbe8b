import { afterAll, beforeAll } from 'vitest';
import { createRunpodClient, type RunpodClient } from '../../src/index.js';
import { createEmulator, type Emulator, type EmulatorOptions, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';

export const KEY_A = 'rpa_e2e_account_a';
export const KEY_B = 'rpa_e2e_account_b';

/** Starts an emulator on 127.0.0.1 for the file's tests and stops it afterwards. */
export function useEmulator(options: EmulatorOptions = {}) {
  const ctx = {} as { emulator: Emulator; server: ListeningEmulator; client: (key?: string, extra?: Parameters<typeof createRunpodClient>[0]) => RunpodClient };
  beforeAll(async () => {
    ctx.emulator = createEmulator({ apiKeys: [KEY_A, KEY_B], ...options });
    ctx.server = await listen(ctx.emulator, { port: 0, host: '127.0.0.1' });
    ctx.client = (key = KEY_A, extra = {}) => createRunpodClient({ ...ctx.server.clientOptions(key), maxRetries: 2, ...extra });
  });
  afterAll(async () => {
    await ctx.server?.close();
  });
  return ctx;
}

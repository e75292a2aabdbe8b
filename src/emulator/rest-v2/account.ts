import { Hono } from 'hono';
import type { EmulatorEnv } from './context.js';
import { readContractBody } from './contract.js';
import { accountOf, stateOf, type RestV2Deps } from './context.js';

export function accountRoutes(_deps: RestV2Deps): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();
  app.get('/account/ssh-keys', (c) => c.json({ keys: [...stateOf(accountOf(c)).sshKeys] }));
  app.put('/account/ssh-keys', async (c) => {
    const { keys } = await readContractBody<{ keys: string[] }>(c.req, 'UpdateSshKeysRequest');
    const state = stateOf(accountOf(c));
    state.sshKeys = [...new Set(keys)];
    return c.json({ keys: [...state.sshKeys] });
  });
  return app;
}

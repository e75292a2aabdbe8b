import { Hono } from 'hono';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Account } from '../platform.js';
import type { EmulatorEnv } from './context.js';
import { readContractBody } from './contract.js';
import { accountOf, idParam, iso, stateOf, type EmulatedSecret, type RestV2Deps, type V2Context } from './context.js';
import { problem } from './problem.js';

const view = (s: EmulatedSecret) => ({ id: s.id, name: s.name, description: s.description, createdAt: iso(s.createdAt), valueLastUpdatedAt: s.valueUpdatedAt === null ? null : iso(s.valueUpdatedAt) });

// `{{ RUNPOD_SECRET_<name> }}`, with or without the spaces; a name as the contract's pattern allows.
const REFERENCE = /\{\{\s*RUNPOD_SECRET_([A-Za-z_][A-Za-z0-9_.\-/]*)\s*\}\}/g;

/** A pod's env as its container sees it: each secret reference replaced by the secret's value (an unknown one stays). */
export function containerEnv(account: Account, env: Readonly<Record<string, string>>): Record<string, string> {
  const byName = new Map([...stateOf(account).secrets.values()].map((s) => [s.name, s.value]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.replace(REFERENCE, (ref, name: string) => byName.get(name) ?? ref)]));
}

export function secretRoutes(deps: RestV2Deps): Hono<EmulatorEnv> {
  const { platform } = deps;
  const app = new Hono<EmulatorEnv>();
  const secrets = (c: V2Context) => stateOf(accountOf(c)).secrets;
  const find = (c: V2Context) => {
    const id = idParam(c);
    const secret = secrets(c).get(id);
    if (!secret) throw notFound('secret', id);
    return secret;
  };

  app.get('/account/secrets', (c) => {
    const name = c.req.query('name');
    return c.json({ secrets: [...secrets(c).values()].filter((s) => name === undefined || s.name === name).map(view) });
  });
  app.post('/account/secrets', async (c) => {
    const body = await readContractBody<{ name: string; value: string; description?: string }>(c.req, 'CreateSecretRequest');
    // The platform reserves its own prefix (case-insensitive).
    if (/^runpod/i.test(body.name)) throw problem(400, 'Secret names starting with RUNPOD are reserved.');
    if ([...secrets(c).values()].some((s) => s.name === body.name)) throw problem(409, `A secret named ${body.name} already exists.`);
    const now = platform.clock.now();
    const secret: EmulatedSecret = { id: newId(10), name: body.name, description: body.description || null, value: body.value, createdAt: now, valueUpdatedAt: now };
    secrets(c).set(secret.id, secret);
    return c.json(view(secret), 201);
  });
  app.get('/account/secrets/:id', (c) => c.json(view(find(c))));
  app.patch('/account/secrets/:id', async (c) => {
    const secret = find(c);
    const body = await readContractBody<{ value?: string; description?: string }>(c.req, 'UpdateSecretRequest');
    if (body.value !== undefined) {
      secret.value = body.value;
      secret.valueUpdatedAt = platform.clock.now();
    }
    if (body.description !== undefined) secret.description = body.description || null;
    return c.json(view(secret));
  });
  app.delete('/account/secrets/:id', (c) => {
    secrets(c).delete(find(c).id);
    return c.body(null, 204);
  });
  return app;
}

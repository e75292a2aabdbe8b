import { Hono } from 'hono';
import { newId } from '../ids.js';
import type { EmulatorEnv } from './context.js';
import { accountRoutes } from './account.js';
import { billingRoutes } from './billing.js';
import { buildRoutes } from './builds.js';
import { catalogRoutes } from './catalog.js';
import { clusterRoutes } from './clusters.js';
import { methodsAt } from './contract.js';
import { POD_CREATE_MAX_BYTES, type RestV2Deps } from './context.js';
import { execRoutes } from './exec.js';
import { networkVolumeRoutes } from './network-volumes.js';
import { podRoutes } from './pods.js';
import { errorToProblem, problemResponse } from './problem.js';
import { RestRateLimiter } from './rate-limit.js';
import { registryRoutes } from './registries.js';
import { secretRoutes } from './secrets.js';
import { serverlessRoutes } from './serverless.js';
import { templateRoutes } from './templates.js';

export type { RestV2Deps, WorkerInfo } from './context.js';
export { ExecTable, type ExecCommand, type ExecContext, type ExecResult } from './exec.js';

export { nextBuildChangeAt, startBuild, type BuildOutcome, type EmulatorBuildSpec } from './builds.js';

export interface RestV2Options {
  /** Requests per minute per account before 429. */
  ratePerMinute: number;
}

/** REST v2 (`/v2/...` of the contract), mounted by the emulator under its `/v2`. */
export function restV2Routes(deps: RestV2Deps, options: RestV2Options): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();
  const limiter = new RestRateLimiter(deps.platform.clock, options.ratePerMinute);

  app.use('*', async (c, next) => {
    c.header('x-request-id', newId(20));
    if (c.req.method === 'POST' && c.req.path.endsWith('/pods')) {
      // Measured before the key is looked at, as the platform does.
      const size = (await c.req.raw.clone().arrayBuffer()).byteLength;
      if (size > POD_CREATE_MAX_BYTES) return problemResponse(c, 413, `Request body of ${size} bytes exceeds the ${POD_CREATE_MAX_BYTES} byte limit.`);
    }
    const key = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1]?.trim();
    const account = deps.platform.accountByKey(key);
    if (!account) return problemResponse(c, 401, 'Missing or invalid API key.', undefined, { 'www-authenticate': 'Bearer' });
    c.set('account', account);
    const { exceeded, headers } = limiter.take(account.id);
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    if (exceeded) {
      return problemResponse(c, 429, `Rate limit exceeded for the ${exceeded.window} window; retry in ${exceeded.retryAfterSeconds} s.`, undefined, { 'retry-after': String(exceeded.retryAfterSeconds) });
    }
    return next();
  });

  for (const routes of [accountRoutes, secretRoutes, podRoutes, execRoutes, clusterRoutes, serverlessRoutes, buildRoutes, templateRoutes, networkVolumeRoutes, registryRoutes, catalogRoutes, billingRoutes]) {
    app.route('/', routes(deps));
  }
  app.all('*', (c) => {
    const allowed = methodsAt(c.req.path);
    if (allowed.length > 0) return problemResponse(c, 405, `${c.req.method} is not allowed on ${c.req.path}.`, undefined, { allow: allowed.join(', ') });
    return problemResponse(c, 404, `No route ${c.req.method} ${c.req.path}.`);
  });
  app.onError((err, c) => errorToProblem(c, err));
  return app;
}

/** The answer every REST v1 route gets since the platform retired it. */
export function restV1Retired(c: Parameters<typeof problemResponse>[0]): Response {
  return problemResponse(c, 410, 'REST v1 has been retired; use REST v2 under /v2.');
}


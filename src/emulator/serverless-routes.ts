import { Hono, type Context } from 'hono';
import { EmulatorHttpError, notFound } from './errors.js';
import type { Account, Platform } from './platform.js';
import type { ServerlessQueue } from './queue.js';
import { jobBodySchema } from './rest-schemas.js';
import { readBody, type EmulatorEnv } from './rest-routes.js';

const RUN_LIMIT = 10 * 1024 * 1024;
const RUNSYNC_LIMIT = 20 * 1024 * 1024;

export function queueRoutes(queue: ServerlessQueue): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();
  const endpointOf = (c: Context<EmulatorEnv>) => {
    const id = c.req.param('endpointId')!;
    const endpoint = c.get('account').endpoints.get(id);
    if (!endpoint) throw notFound('endpoint', id);
    return endpoint;
  };
  const checkSize = (c: Context<EmulatorEnv>, limit: number) => {
    const length = Number(c.req.header('content-length') ?? 0);
    if (length > limit) throw new EmulatorHttpError(413, `request body is ${length} bytes; the limit is ${limit}`);
  };

  app.post('/:endpointId/run', async (c) => {
    checkSize(c, RUN_LIMIT);
    const endpoint = endpointOf(c);
    const job = queue.submit(c.get('account'), endpoint, await readBody(c, jobBodySchema), false);
    return c.json({ id: job.id, status: job.status });
  });
  app.post('/:endpointId/runsync', async (c) => {
    checkSize(c, RUNSYNC_LIMIT);
    const endpoint = endpointOf(c);
    const waitText = c.req.query('wait');
    const wait = waitText === undefined ? 90_000 : Number(waitText);
    if (!Number.isInteger(wait) || wait < 1000 || wait > 300_000) throw new EmulatorHttpError(400, 'wait must be an integer from 1000 to 300000');
    const job = queue.submit(c.get('account'), endpoint, await readBody(c, jobBodySchema), true);
    await queue.waitFor(job, wait);
    return c.json(queue.view(job));
  });
  app.get('/:endpointId/status/:jobId', (c) => c.json(queue.view(queue.get(endpointOf(c), c.req.param('jobId')))));
  app.get('/:endpointId/stream/:jobId', async (c) => c.json(await queue.drain(queue.get(endpointOf(c), c.req.param('jobId')))));
  app.post('/:endpointId/cancel/:jobId', (c) => {
    const endpoint = endpointOf(c);
    const job = queue.get(endpoint, c.req.param('jobId'));
    queue.cancel(c.get('account'), endpoint, job);
    return c.json({ id: job.id, status: job.status });
  });
  app.post('/:endpointId/retry/:jobId', (c) => {
    const endpoint = endpointOf(c);
    const job = queue.get(endpoint, c.req.param('jobId'));
    queue.retry(c.get('account'), endpoint, job);
    return c.json({ id: job.id, status: job.status });
  });
  app.get('/:endpointId/health', (c) => c.json(queue.health(endpointOf(c))));
  app.post('/:endpointId/purge-queue', (c) => c.json({ removed: queue.purge(endpointOf(c)), status: 'completed' }));
  return app;
}

/** A route handler of a load-balanced endpoint: return a Response, or anything JSON. */
export type LoadBalancedRoute = (request: Request, ctx: { params: Record<string, string>; account: Account | undefined }) => unknown;

export interface LoadBalancedDefinition {
  id: string;
  /** `'GET /ping'`, `'POST /v1/generate'`: method and path under the endpoint. */
  routes: Record<string, LoadBalancedRoute>;
  /** How long the first worker takes to start, on the emulator clock. @default 3000 */
  coldStartMs?: number;
  /** Idle time after which workers are gone and the next request starts cold again. @default 60000 */
  idleTimeoutMs?: number;
  /** Require a known API key. @default true */
  requireAuth?: boolean;
}

interface LoadBalancedState {
  definition: LoadBalancedDefinition;
  readyAt?: number;
  lastRequestAt?: number;
}

export class LoadBalancedEndpoints {
  private readonly endpoints = new Map<string, LoadBalancedState>();

  constructor(private readonly platform: Platform) {}

  define(definition: LoadBalancedDefinition): void {
    this.endpoints.set(definition.id, { definition });
  }

  /** When the earliest cold start still under way ends, so an advancing clock can stop there. */
  nextReadyAt(now: number): number | undefined {
    let next: number | undefined;
    for (const { readyAt } of this.endpoints.values()) if (readyAt !== undefined && readyAt > now && (next === undefined || readyAt < next)) next = readyAt;
    return next;
  }

  async handle(c: Context<EmulatorEnv>): Promise<Response> {
    const id = c.req.param('endpointId')!;
    const state = this.endpoints.get(id);
    if (!state) return c.json({ error: `endpoint ${id} not found`, status: 404 }, 404);
    const key = (c.req.header('authorization') ?? '').replace(/^Bearer\s+/i, '');
    const account = this.platform.accountByKey(key);
    if (state.definition.requireAuth !== false && !account) return c.json({ error: 'Unauthorized', status: 401 }, 401);

    const now = this.platform.clock.now();
    const idle = state.definition.idleTimeoutMs ?? 60_000;
    if (state.lastRequestAt !== undefined && now - state.lastRequestAt > idle && state.readyAt !== undefined && state.readyAt <= now) state.readyAt = undefined;
    state.lastRequestAt = now;
    state.readyAt ??= now + (state.definition.coldStartMs ?? 3_000);
    if (now < state.readyAt) return c.json({ error: 'no workers available', status: 503 }, 503, { 'retry-after': '1' });

    const path = c.req.path.replace(`/lb/${id}`, '') || '/';
    for (const [spec, route] of Object.entries(state.definition.routes)) {
      const [method = 'GET', pattern = '/'] = spec.split(' ');
      const names: string[] = [];
      const regex = new RegExp(`^${pattern.replace(/:(\w+)/g, (_m, name: string) => (names.push(name), '([^/]+)'))}$`);
      const match = regex.exec(path);
      if (!match || method.toUpperCase() !== c.req.method) continue;
      const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1] ?? '')]));
      const result = await route(c.req.raw, { params, account });
      return result instanceof Response ? result : c.json(result as object);
    }
    return c.json({ error: `no route ${c.req.method} ${path}`, status: 404 }, 404);
  }
}

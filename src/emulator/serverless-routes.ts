import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { LOAD_BALANCED_BODY_LIMIT_BYTES } from '../serverless/load-balanced.js';
import type { EmulatorClock } from './clock.js';
import { badRequest, EmulatorHttpError, notFound } from './errors.js';
import { readWithin } from './http-guards.js';
import { newId } from './ids.js';
import type { Account, EmulatedEndpoint, Platform } from './platform.js';
import type { JobSubmission, ServerlessQueue } from './queue.js';
import { describeIssues } from './rest-schemas.js';
import type { EmulatorEnv } from './rest-v2/context.js';
import type { ServerlessLimiter, ServerlessLimitRoute } from './serverless-limits.js';

const RUN_LIMIT = 10 * 1024 * 1024;
const RUNSYNC_LIMIT = 20 * 1024 * 1024;
/** Deeper input cannot be answered back as JSON; refused before a job exists. */
export const MAX_INPUT_DEPTH = 512;
const SECOND = 1000;
const DAY = 86_400 * SECOND;

type C = Context<EmulatorEnv>;

const httpUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

const ms = (min: number, max: number) => z.number().int().min(min, `must be between ${min} and ${max} ms`).max(max, `must be between ${min} and ${max} ms`);

const jobBodySchema = z.object({
  input: z.unknown().refine((v) => v !== undefined, 'input is required'),
  webhook: httpUrl.optional(),
  policy: z
    .object({
      executionTimeout: ms(5 * SECOND, 7 * DAY).optional(),
      lowPriority: z.boolean().optional(),
      ttl: ms(10 * SECOND, 7 * DAY).optional(),
    })
    .optional(),
  s3Config: z.object({ accessId: z.string(), accessSecret: z.string(), bucketName: z.string(), endpointUrl: z.string() }).optional(),
});

/** True when `value` nests arrays or objects deeper than `max`, found without recursion. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

const tooLarge = (limit: number) => new EmulatorHttpError(413, `request body is larger than ${limit} bytes`);

/** Reads the body counting the bytes that arrive, so a chunked upload meets the same limit. */
async function readLimitedText(c: C, limit: number): Promise<string> {
  const declared = Number(c.req.header('content-length') ?? 0);
  if (declared > limit) throw tooLarge(limit);
  const raw = c.req.raw;
  if (raw.bodyUsed || !raw.body) {
    // Something before this route already buffered the body; Hono keeps that copy.
    const buffered = await c.req.arrayBuffer();
    if (buffered.byteLength > limit) throw tooLarge(limit);
    return new TextDecoder().decode(buffered);
  }
  const bytes = await readWithin(raw.body, limit);
  if (!bytes) throw tooLarge(limit);
  return new TextDecoder().decode(bytes);
}

async function readJobBody(c: C, limit: number): Promise<JobSubmission> {
  const text = await readLimitedText(c, limit);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest('request body is not valid JSON');
  }
  const parsed = jobBodySchema.safeParse(json);
  if (!parsed.success) throw badRequest(describeIssues(parsed.error));
  if (nestsDeeperThan(parsed.data.input, MAX_INPUT_DEPTH)) throw badRequest(`input: nested more than ${MAX_INPUT_DEPTH} levels deep`);
  return parsed.data;
}

/** `?wait=` in milliseconds, within [min, max]. */
function waitParam(c: C, fallback: number, min: number, max: number): number {
  const text = c.req.query('wait');
  if (text === undefined) return fallback;
  const wait = Number(text);
  if (text.trim() === '' || !Number.isInteger(wait) || wait < min || wait > max) throw badRequest(`wait is invalid; must be between ${min} and ${max}`);
  return wait;
}

/**
 * The queue routes of one endpoint, `/:endpointId/run` and the rest, wherever they are mounted.
 * Each route group is limited per account and endpoint, as the platform does.
 */
export function queueRoutes(queue: ServerlessQueue, limiter: ServerlessLimiter, _clock?: EmulatorClock): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();
  const endpointOf = (c: C): EmulatedEndpoint => {
    const id = c.req.param('endpointId')!;
    // The account's own endpoint, or a handler's public endpoint under its name (any account may call it).
    const endpoint = queue.endpointFor(c.get('account'), id);
    if (!endpoint) throw notFound('endpoint', id);
    return endpoint;
  };

  type Handler = (c: C, account: Account, endpoint: EmulatedEndpoint) => Response | Promise<Response>;
  const limited =
    (route: ServerlessLimitRoute, handler: Handler) =>
    async (c: C): Promise<Response> => {
      const account = c.get('account');
      const endpoint = endpointOf(c);
      const release = limiter.acquire(`${account.id}/${endpoint.id}`, route);
      if (!release) return c.json({ error: `Too Many Requests: the ${route} limit of endpoint ${endpoint.id} is reached`, status: 429 }, 429);
      try {
        return await handler(c, account, endpoint);
      } finally {
        release();
      }
    };

  const submit = async (c: C, account: Account, endpoint: EmulatedEndpoint, limit: number, sync: boolean) => {
    const body = await readJobBody(c, limit);
    if (limiter.isQueueFull(queue.queuedCount(account, endpoint), endpoint.workersMax)) {
      throw new EmulatorHttpError(429, `Too Many Requests: the queue of endpoint ${endpoint.id} is full`);
    }
    const job = queue.submit(account, endpoint, body, sync);
    // What `/run` answers: the job as submitted, before any worker can take it.
    return { job, submitted: { id: job.id, status: job.status } };
  };

  app.post(
    '/:endpointId/run',
    limited('run', async (c, account, endpoint) => {
      const { submitted } = await submit(c, account, endpoint, RUN_LIMIT, false);
      return c.json(submitted);
    }),
  );
  app.post(
    '/:endpointId/runsync',
    limited('runsync', async (c, account, endpoint) => {
      const wait = waitParam(c, 90_000, 1000, 300_000);
      const { job } = await submit(c, account, endpoint, RUNSYNC_LIMIT, true);
      await queue.waitFor(job, wait, c.req.raw.signal);
      return c.json(queue.view(job));
    }),
  );
  const status = limited('status', (c, account, endpoint) => c.json(queue.view(queue.get(account, endpoint, c.req.param('jobId')!))));
  app.get('/:endpointId/status/:jobId', status);
  app.post('/:endpointId/status/:jobId', status);
  const statusSync = limited('status', async (c, account, endpoint) => {
    const wait = waitParam(c, 90_000, 0, 300_000);
    const job = queue.get(account, endpoint, c.req.param('jobId')!);
    await queue.waitFor(job, wait, c.req.raw.signal);
    return c.json(queue.view(job));
  });
  app.get('/:endpointId/status-sync/:jobId', statusSync);
  app.post('/:endpointId/status-sync/:jobId', statusSync);
  const stream = limited('stream', async (c, account, endpoint) => {
    const job = queue.get(account, endpoint, c.req.param('jobId')!);
    const hold = c.req.query('wait') === undefined ? undefined : waitParam(c, 0, 0, 300_000);
    return c.json(await queue.drain(job, hold, c.req.raw.signal));
  });
  app.get('/:endpointId/stream/:jobId', stream);
  app.post('/:endpointId/stream/:jobId', stream);
  app.post(
    '/:endpointId/cancel/:jobId',
    limited('cancel', (c, account, endpoint) => {
      const job = queue.get(account, endpoint, c.req.param('jobId')!);
      queue.cancel(account, endpoint, job);
      return c.json({ id: job.id, status: job.status });
    }),
  );
  app.post('/:endpointId/retry/:jobId', (c) => {
    const account = c.get('account');
    const endpoint = endpointOf(c);
    const job = queue.get(account, endpoint, c.req.param('jobId'));
    queue.retry(account, endpoint, job);
    return c.json({ id: job.id, status: job.status });
  });
  app.get('/:endpointId/health', (c) => c.json(queue.health(c.get('account'), endpointOf(c))));
  app.post(
    '/:endpointId/purge-queue',
    limited('purge-queue', (c, account, endpoint) => c.json({ removed: queue.purge(account, endpoint), status: 'completed' })),
  );
  return app;
}

/** What a load-balanced route gets besides the request. Time passes on the emulator's clock. */
export interface LoadBalancedRouteContext {
  params: Record<string, string>;
  account: Account | undefined;
  /** The worker serving the request, also sent back as `X-Runpod-Worker-Id`. */
  workerId: string;
  /** Fires when the platform gives up on the request (524). */
  signal: AbortSignal;
  sleep(ms: number): Promise<void>;
}

/** A route handler of a load-balanced endpoint: return a Response, or anything JSON. */
export type LoadBalancedRoute = (request: Request, ctx: LoadBalancedRouteContext) => unknown;

export interface LoadBalancedDefinition {
  id: string;
  /** `'GET /ping'`, `'POST /v1/generate'`: method and path under the endpoint. */
  routes: Record<string, LoadBalancedRoute>;
  /** How long the workers take to start, on the emulator clock. Past 2 minutes a request gets "no workers available". @default 3000 */
  coldStartMs?: number;
  /** Idle time after which workers are gone and the next request starts cold again. @default 60000 */
  idleTimeoutMs?: number;
  /** Require a known API key. @default true */
  requireAuth?: boolean;
  /** Workers serving requests in turn once warm. @default 1 */
  workers?: number;
}

interface LoadBalancedState {
  definition: LoadBalancedDefinition;
  workerIds: string[];
  nextWorker: number;
  readyAt?: number;
  lastRequestAt?: number;
}

/** How long the platform holds a request while no worker is ready. */
export const LB_COLD_HOLD_MS = 120_000;
/** How long a request may be processed before the platform answers 524. */
export const LB_PROCESSING_LIMIT_MS = 330_000;
const WORKER_HEADER = 'x-runpod-worker-id';

export class LoadBalancedEndpoints {
  private readonly endpoints = new Map<string, LoadBalancedState>();
  private readonly timers = new Set<AbortController>();

  constructor(private readonly platform: Platform) {}

  define(definition: LoadBalancedDefinition): void {
    const workerIds = Array.from({ length: Math.max(1, definition.workers ?? 1) }, () => newId(14));
    this.endpoints.set(definition.id, { definition, workerIds, nextWorker: 0 });
  }

  /** Ends every hold and processing timer. */
  dispose(): void {
    for (const timer of [...this.timers]) timer.abort();
    this.timers.clear();
  }

  /** Sleeps on the clock; resolves true when the time passed, false when disposed or cancelled. */
  private async sleep(ms: number, timer = new AbortController()): Promise<boolean> {
    this.timers.add(timer);
    try {
      await this.platform.clock.sleep(ms, timer.signal);
      return true;
    } catch {
      return false;
    } finally {
      this.timers.delete(timer);
    }
  }

  /** The worker asked for by `X-Runpod-Worker-Id` (`<id>`, `strict <id>`, `strict-resume <id>`), or the next in turn. */
  private pickWorker(state: LoadBalancedState, pin: string | undefined): string | undefined {
    const match = pin ? /^\s*(?:(strict(?:-resume)?)\s+)?(\S+)\s*$/i.exec(pin) : null;
    if (match) {
      const id = match[2]!;
      if (state.workerIds.includes(id)) return id;
      if (match[1]) return undefined;
    }
    const id = state.workerIds[state.nextWorker % state.workerIds.length]!;
    state.nextWorker += 1;
    return id;
  }

  /** When the earliest cold start still under way ends, so an advancing clock can stop there. */
  nextReadyAt(now: number): number | undefined {
    let next: number | undefined;
    for (const { readyAt } of this.endpoints.values()) if (readyAt !== undefined && readyAt > now && (next === undefined || readyAt < next)) next = readyAt;
    return next;
  }

  async handle(c: C): Promise<Response> {
    const id = c.req.param('endpointId')!;
    const state = this.endpoints.get(id);
    if (!state) return c.json({ error: `endpoint ${id} not found`, status: 404 }, 404);
    // "Up to 30 MB each way", before the key is looked at. The body limit before every route has
    // read the body, and its Content-Length now says its true size.
    if (Number(c.req.header('content-length') ?? 0) > LOAD_BALANCED_BODY_LIMIT_BYTES) {
      return c.json({ error: `request body is larger than ${LOAD_BALANCED_BODY_LIMIT_BYTES} bytes`, status: 413 }, 413);
    }
    const key = (c.req.header('authorization') ?? '').replace(/^Bearer\s+/i, '');
    const account = this.platform.accountByKey(key);
    if (state.definition.requireAuth !== false && !account) return c.json({ error: 'Unauthorized', status: 401 }, 401);

    const clock = this.platform.clock;
    const now = clock.now();
    const idle = state.definition.idleTimeoutMs ?? 60_000;
    // Workers go idle counting from the last request or from when they became ready, whichever is later.
    if (state.readyAt !== undefined && state.readyAt <= now && now - Math.max(state.lastRequestAt ?? 0, state.readyAt) > idle) state.readyAt = undefined;
    state.lastRequestAt = now;
    state.readyAt ??= now + (state.definition.coldStartMs ?? 3_000);
    // Held until the answer: the caller hanging up (even before this) or dispose() ends the hold and the route's work.
    const hold = this.platform.lifetime.hold(c.req.raw.signal);
    try {
      return await this.serve(c, id, state, account, hold.signal);
    } finally {
      hold.release();
    }
  }

  private async serve(c: C, id: string, state: LoadBalancedState, account: Account | undefined, held: AbortSignal): Promise<Response> {
    const clock = this.platform.clock;
    const now = clock.now();
    if (now < state.readyAt!) {
      await this.sleep(Math.min(state.readyAt! - now, LB_COLD_HOLD_MS), linkedTimer(held));
      if (held.aborted) return ended(c);
      if (clock.now() < state.readyAt!) return c.json({ error: 'no workers available' }, 400);
      state.lastRequestAt = clock.now();
    }

    const workerId = this.pickWorker(state, c.req.header(WORKER_HEADER));
    if (!workerId) return c.json({ error: `worker ${c.req.header(WORKER_HEADER)?.trim()} is not available` }, 400);

    const mounted = c.req.path.indexOf(`/lb/${id}`);
    const marker = mounted >= 0 ? `/lb/${id}` : `/${id}`;
    const at = mounted >= 0 ? mounted : c.req.path.indexOf(marker);
    const path = (at >= 0 ? c.req.path.slice(at + marker.length) : c.req.path) || '/';
    for (const [spec, route] of Object.entries(state.definition.routes)) {
      const [method = 'GET', pattern = '/'] = spec.split(' ');
      const names: string[] = [];
      const regex = new RegExp(`^${pattern.replace(/:(\w+)/g, (_m, name: string) => (names.push(name), '([^/]+)'))}$`);
      const match = regex.exec(path);
      if (!match || method.toUpperCase() !== c.req.method) continue;
      const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1] ?? '')]));
      const gaveUp = new AbortController();
      const processing = linkedTimer(held);
      const routeCtx: LoadBalancedRouteContext = { params, account, workerId, signal: gaveUp.signal, sleep: (ms) => clock.sleep(ms, gaveUp.signal) };
      const running = Promise.resolve().then(() => route(c.req.raw, routeCtx));
      let outcome: { value: unknown } | undefined;
      try {
        outcome = await Promise.race([running.then((value) => ({ value })), this.sleep(LB_PROCESSING_LIMIT_MS, processing).then(() => undefined)]);
      } finally {
        processing.abort();
      }
      if (!outcome) {
        gaveUp.abort();
        running.catch(() => undefined);
        if (held.aborted) return ended(c);
        return c.json({ error: 'A timeout occurred: the worker took longer than the processing limit', status: 524 }, 524 as 500, { [WORKER_HEADER]: workerId });
      }
      const result = outcome.value;
      if (result instanceof Response) {
        const headers = new Headers(result.headers);
        headers.set(WORKER_HEADER, workerId);
        return new Response(result.body, { status: result.status, statusText: result.statusText, headers });
      }
      return c.json(result as object, 200, { [WORKER_HEADER]: workerId });
    }
    return c.json({ error: `no route ${c.req.method} ${path}`, status: 404 }, 404, { [WORKER_HEADER]: workerId });
  }
}

/** A timer that `signal` ends too, whether it fires later or already has. */
function linkedTimer(signal: AbortSignal): AbortController {
  const timer = new AbortController();
  if (signal.aborted) timer.abort();
  else signal.addEventListener('abort', () => timer.abort(), { once: true, signal: timer.signal });
  return timer;
}

/** What a request held past `dispose()` (or past its caller) gets: nobody may be there to read it. */
const ended = (c: C) => c.json({ error: 'the emulator was disposed, or the caller hung up', status: 503 }, 503);

const PRODUCTION_LB_HOST = /^([a-z0-9][a-z0-9-]*)\.api\.runpod\.ai$/i;

/**
 * In-process only: a request to a load-balanced endpoint's production address
 * (`https://{id}.api.runpod.ai/…`) is served by the emulator's `/lb/{id}/…`.
 */
export function toEmulatedLoadBalanced(request: Request, base: string): Request {
  const url = new URL(request.url);
  const match = PRODUCTION_LB_HOST.exec(url.hostname);
  if (!match) return request;
  const target = `${base}/lb/${match[1]}${url.pathname === '/' ? '' : url.pathname}${url.search}`;
  const init: RequestInit & { duplex?: 'half' } = { method: request.method, headers: request.headers, signal: request.signal, redirect: request.redirect };
  if (request.body) {
    init.body = request.body;
    init.duplex = 'half';
  }
  return new Request(target, init);
}

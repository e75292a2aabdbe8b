import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { GpuTypeSpec, HostSpec } from './catalog.js';
import { createClock, type EmulatorClock } from './clock.js';
import { EmulatorHttpError } from './errors.js';
import { bodyLimit, DEFAULT_MAX_BODY_BYTES, emulatorCors } from './http-guards.js';
import { FaultInjector, type Fault, type FaultRule } from './faults.js';
import { createGraphQLExecutor } from './graphql-handler.js';
import { ENDPOINT_DEFAULTS, Platform, type Account } from './platform.js';
import { BUILT_IN_HANDLERS, ServerlessQueue, type JobHandler } from './queue.js';
import { restRoutes, type EmulatorEnv } from './rest-routes.js';
import { LoadBalancedEndpoints, queueRoutes, type LoadBalancedDefinition } from './serverless-routes.js';

/** The key every emulator accepts unless told otherwise. */
export const EMULATOR_API_KEY = 'rpa_emulator_default_key';

/** Base URL used when the emulator is called in-process through `emulator.fetch`. */
export const IN_PROCESS_BASE = 'http://emulator.invalid';

const DROP_MARKER = 'x-runpod-emulator-drop';

export interface EmulatorOptions {
  /** API keys, one account each. @default [EMULATOR_API_KEY] */
  apiKeys?: string[] | undefined;
  /** `'manual'` stops time until `clock.advance()`; `'real'` follows the wall clock. @default 'real' */
  clock?: 'real' | 'manual' | undefined;
  /** With the real clock: emulator milliseconds per wall-clock millisecond. @default 1 */
  timeScale?: number | undefined;
  gpuTypes?: GpuTypeSpec[] | undefined;
  hosts?: HostSpec[] | undefined;
  /** How long a pod takes to start, on the emulator clock. @default 2000 */
  podStartupMs?: number | undefined;
  /** Time a job spends IN_QUEUE before a worker takes it. @default 0 */
  queueDelayMs?: number | undefined;
  /** How long `/stream` holds when nothing is ready. @default 10000 */
  streamHoldMs?: number | undefined;
  /**
   * Origins whose pages may call the emulator (CORS): a list, or `'*'` for any.
   * @default loopback origins only (`http://localhost:*`, `http://127.x.x.x:*`, `http://[::1]:*`)
   */
  corsOrigins?: '*' | readonly string[] | undefined;
  /** Largest request body accepted, in bytes, counted as it arrives. @default 33554432 (32 MiB) */
  maxBodyBytes?: number | undefined;
}

/** Options for `createRunpodClient` that point it at this emulator. */
export interface EmulatorClientOptions {
  apiKey: string;
  graphqlUrl: string;
  restUrl: string;
  serverlessUrl: string;
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
}

export interface ListeningEmulator {
  readonly url: string;
  readonly graphqlUrl: string;
  readonly restUrl: string;
  readonly serverlessUrl: string;
  /** The address of a load-balanced endpoint defined with `emulator.loadBalanced.define`. */
  loadBalancedUrl(endpointId: string): string;
  clientOptions(apiKey?: string): EmulatorClientOptions;
  close(): Promise<void>;
}

export interface Emulator {
  /** A fetch-standard handler: give it to `createRunpodClient({ fetch })` and no network is used. */
  fetch(request: Request, env?: unknown): Promise<Response>;
  /** Serves the emulator on 127.0.0.1 (Node). Port 0 picks a free port. */
  listen(options?: { port?: number; host?: string }): Promise<ListeningEmulator>;
  /** Options for `createRunpodClient` that use `emulator.fetch` in-process. */
  clientOptions(apiKey?: string): EmulatorClientOptions;
  loadBalancedUrl(endpointId: string): string;
  readonly clock: EmulatorClock;
  readonly faults: {
    inject(rule: FaultRule): { hits: () => number };
    clear(): void;
    pending(): FaultRule[];
  };
  readonly accounts: {
    /** Adds an account for `apiKey` (its own pods, volumes, endpoints and bills). */
    add(apiKey: string): void;
  };
  readonly handlers: {
    /** Registers a serverless handler; an endpoint named `name` (or whose template image is `…/name`) runs it. */
    register(name: string, handler: JobHandler): void;
  };
  readonly loadBalanced: {
    define(definition: LoadBalancedDefinition): void;
  };
  /** What tests observe: pods, files on each disk, and network volumes, across accounts. */
  readonly inspect: {
    pod(podId: string): { desiredStatus: string; gpuCount: number; hostId: string; costPerHr: number; lastStatusChange: string } | undefined;
    podCount(apiKey?: string): number;
    files(podId: string): { containerDisk: Record<string, string>; volume: Record<string, string> };
    writeFile(podId: string, path: string, content: string): void;
    networkVolumeFiles(networkVolumeId: string): Record<string, string>;
    freeGpus(hostId: string): number;
  };
}

const DEFAULT_ENDPOINTS = Object.keys(BUILT_IN_HANDLERS);

function faultResponse(c: Context<EmulatorEnv>, fault: Fault): Response | undefined {
  switch (fault.type) {
    case 'status': {
      const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
      const body = fault.body ?? { error: `injected HTTP ${fault.status}`, status: fault.status };
      return c.json(body as object, fault.status as 500, headers);
    }
    case 'html':
      return c.html('<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>', (fault.status ?? 502) as 502);
    case 'malformed-json':
      return c.body('{"data": {"pod": {"id": ', 200, { 'content-type': 'application/json' });
    case 'drop':
      return c.body(null, 500, { [DROP_MARKER]: '1' });
    default:
      return undefined;
  }
}

/**
 * A local stand-in for the platform: GraphQL over the project's own schema.graphql, the REST v1
 * routes, queue-based and load-balanced serverless endpoints, one shared state, a clock and faults.
 */
export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const clock = createClock(options.clock ?? 'real', undefined, options.timeScale);
  const platform = new Platform({ clock, gpuTypes: options.gpuTypes, hosts: options.hosts, podStartupMs: options.podStartupMs });
  const queue = new ServerlessQueue({ clock, queueDelayMs: options.queueDelayMs, streamHoldMs: options.streamHoldMs });
  const faults = new FaultInjector();
  const loadBalanced = new LoadBalancedEndpoints(platform);
  const runGraphQL = createGraphQLExecutor(platform);

  const addAccount = (apiKey: string): Account => {
    const known = platform.accountByKey(apiKey);
    if (known) return known;
    const account = platform.addAccount(apiKey);
    // Every account starts with the built-in workers as ready-made endpoints: /v2/echo, /v2/sleep, …
    for (const name of DEFAULT_ENDPOINTS) {
      account.endpoints.set(name, { ...ENDPOINT_DEFAULTS, gpuTypeIds: [...ENDPOINT_DEFAULTS.gpuTypeIds], id: name, name, templateId: `builtin-${name}`, createdAt: clock.now(), handler: name });
    }
    return account;
  };
  for (const key of options.apiKeys ?? [EMULATOR_API_KEY]) addAccount(key);

  const app = new Hono<EmulatorEnv>();
  app.use('*', emulatorCors(options.corsOrigins));
  app.use('*', bodyLimit(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));

  app.use('*', async (c, next) => {
    if (!faults.active || c.req.method === 'OPTIONS') return next();
    let operationName: string | undefined;
    if (c.req.path.endsWith('/graphql')) {
      const body = (await c.req.json().catch(() => undefined)) as { operationName?: unknown } | undefined;
      operationName = typeof body?.operationName === 'string' ? body.operationName : undefined;
    }
    const fault = faults.take(c.req.method, c.req.path, operationName);
    if (!fault) return next();
    if (fault.type === 'latency') {
      await new Promise((resolve) => setTimeout(resolve, fault.ms));
      return next();
    }
    if (fault.type === 'error-after-create') {
      await next();
      const graphql = c.req.path.endsWith('/graphql');
      const body = graphql
        ? { errors: [{ message: 'Something went wrong. Please try again later.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }], data: null }
        : { error: 'create pod: internal error while deploying', status: 500 };
      c.res = new Response(JSON.stringify(body), { status: 500, headers: { 'content-type': 'application/json' } });
      return;
    }
    return faultResponse(c, fault);
  });

  const bearer: MiddlewareHandler<EmulatorEnv> = async (c, next) => {
    const key = (c.req.header('authorization') ?? '').replace(/^Bearer\s+/i, '');
    const account = platform.accountByKey(key);
    if (!account) return c.json({ error: 'Unauthorized: missing or unknown API key', status: 401 }, 401);
    c.set('account', account);
    return next();
  };

  app.post('/graphql', async (c) => {
    const account = platform.accountByKey(c.req.query('api_key'));
    if (!account) return c.json({ errors: [{ message: 'Unauthorized: missing or unknown api_key', extensions: { code: 'UNAUTHENTICATED' } }] }, 401);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ errors: [{ message: 'request body is not valid JSON' }] }, 400);
    }
    const answer = await runGraphQL(account, body);
    return c.json(answer.body, answer.status as 200);
  });

  app.use('/v1/*', bearer);
  app.route('/v1', restRoutes(platform, () => new Set(queue.handlers.keys())));
  app.use('/v2/*', bearer);
  app.route('/v2', queueRoutes(queue));
  app.all('/lb/:endpointId/*', (c) => loadBalanced.handle(c));
  app.all('/lb/:endpointId', (c) => loadBalanced.handle(c));

  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}`, status: 404 }, 404));
  app.onError((err, c) => {
    if (err instanceof EmulatorHttpError) return c.json({ error: err.message, status: err.status }, err.status as 400);
    return c.json({ error: `emulator error: ${err instanceof Error ? err.message : String(err)}`, status: 500 }, 500);
  });

  async function fetchHandler(request: Request, env?: unknown): Promise<Response> {
    const response = await app.fetch(request, env as object | undefined);
    if (!response.headers.has(DROP_MARKER)) return response;
    const socket = (env as { incoming?: { socket?: { destroy(): void } } } | undefined)?.incoming?.socket;
    if (socket) {
      socket.destroy();
      return response;
    }
    throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
  }

  const optionsFor = (base: string, apiKey: string, fetch?: EmulatorClientOptions['fetch']): EmulatorClientOptions => ({
    apiKey,
    graphqlUrl: `${base}/graphql`,
    restUrl: `${base}/v1`,
    serverlessUrl: `${base}/v2`,
    ...(fetch && { fetch }),
  });
  const defaultKey = options.apiKeys?.[0] ?? EMULATOR_API_KEY;
  const inProcessFetch = (input: string | URL | Request, init?: RequestInit) => fetchHandler(new Request(input, init));

  const accountOfPod = (podId: string): Account => {
    for (const account of platform.accounts.values()) if (account.pods.has(podId)) return account;
    throw new EmulatorHttpError(404, `pod ${podId} not found`);
  };

  return {
    fetch: fetchHandler,
    clientOptions: (apiKey = defaultKey) => optionsFor(IN_PROCESS_BASE, apiKey, inProcessFetch),
    loadBalancedUrl: (endpointId) => `${IN_PROCESS_BASE}/lb/${encodeURIComponent(endpointId)}`,
    async listen({ port = 0, host = '127.0.0.1' } = {}) {
      // Imported here so that the rest of the emulator runs on any fetch runtime.
      const { serve } = await import('@hono/node-server');
      const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
        const s = serve({ fetch: (req, env) => fetchHandler(req, env), port, hostname: host }, () => resolve(s));
      });
      const address = server.address();
      const boundPort = typeof address === 'object' && address ? address.port : port;
      const url = `http://${host}:${boundPort}`;
      return {
        url,
        graphqlUrl: `${url}/graphql`,
        restUrl: `${url}/v1`,
        serverlessUrl: `${url}/v2`,
        loadBalancedUrl: (endpointId) => `${url}/lb/${encodeURIComponent(endpointId)}`,
        clientOptions: (apiKey = defaultKey) => optionsFor(url, apiKey),
        close: () =>
          new Promise<void>((resolve, reject) => {
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close((err?: Error) => (err ? reject(err) : resolve()));
          }),
      };
    },
    clock,
    faults: { inject: (rule) => faults.inject(rule), clear: () => faults.clear(), pending: () => faults.pending() },
    accounts: { add: (apiKey) => void addAccount(apiKey) },
    handlers: { register: (name, handler) => void queue.handlers.set(name, handler) },
    loadBalanced: { define: (definition) => loadBalanced.define(definition) },
    inspect: {
      pod(podId) {
        for (const account of platform.accounts.values()) {
          const pod = platform.getPod(account, podId);
          if (pod) return { desiredStatus: pod.desiredStatus, gpuCount: pod.gpuCount, hostId: pod.hostId, costPerHr: platform.podCostPerHr(pod), lastStatusChange: pod.lastStatusChange };
        }
        return undefined;
      },
      podCount(apiKey) {
        const accounts = apiKey ? [platform.accountByKey(apiKey)].filter((a): a is Account => !!a) : [...platform.accounts.values()];
        return accounts.reduce((n, a) => n + a.pods.size, 0);
      },
      files: (podId) => platform.files(accountOfPod(podId), podId),
      writeFile: (podId, path, content) => platform.writeFile(accountOfPod(podId), podId, path, content),
      networkVolumeFiles(networkVolumeId) {
        for (const account of platform.accounts.values()) {
          const volume = account.networkVolumes.get(networkVolumeId);
          if (volume) return Object.fromEntries(volume.files);
        }
        throw new EmulatorHttpError(404, `network volume ${networkVolumeId} not found`);
      },
      freeGpus: (hostId) => platform.freeGpus(hostId),
    },
  };
}

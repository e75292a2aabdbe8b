import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { untilAborted } from '../transport/abort.js';
import type { GpuTypeSpec, HostSpec } from './catalog.js';
import { createEmulatorClock, type EmulatorClock } from './clock.js';
import { EmulatorHttpError } from './errors.js';
import { answerAfterCreate, FaultInjector, isAfterCreate, type Fault, type FaultRule } from './faults.js';
import { bearerKey, FixedWindowLimiter } from './graphql-access.js';
import { bodyLimit, decodablePath, DEFAULT_MAX_BODY_BYTES, emulatorCors, hostCheck } from './http-guards.js';
import { createGraphQLExecutor } from './graphql-handler.js';
import { Platform, type Account } from './platform.js';
import { openaiEchoHandler, openaiRoutes } from './openai-routes.js';
import { ServerlessQueue, type JobHandler, type WebhookFetch } from './queue.js';
import { restRoutes } from './rest-routes.js';
import type { EmulatorEnv } from './rest-v2/context.js';
import { ExecTable, nextBuildChangeAt, restV1Retired, restV2Routes, startBuild, type EmulatorBuildSpec, type ExecCommand } from './rest-v2/index.js';
import { problemBody, problemResponse } from './rest-v2/problem.js';
import { buildEndpoint } from './rest-v2/serverless.js';
import { ServerlessLimiter, type ServerlessLimits } from './serverless-limits.js';
import { LoadBalancedEndpoints, queueRoutes, toEmulatedLoadBalanced, type LoadBalancedDefinition } from './serverless-routes.js';

/** The key every emulator accepts unless told otherwise. */
export const EMULATOR_API_KEY = 'rpa_emulator_default_key';

/** Base URL used when the emulator is called in-process through `emulator.fetch`. */
export const IN_PROCESS_BASE = 'http://emulator.invalid';

const DROP_MARKER = 'x-runpod-emulator-drop';
const isRestV2 = (path: string) => path === '/v2' || path.startsWith('/v2/');

export interface EmulatorOptions {
  /** API keys, one account each. @default [EMULATOR_API_KEY] */
  apiKeys?: string[] | undefined;
  /**
   * `'real'` follows the wall clock. `'manual'` stops time until `clock.advance(ms)` or
   * `clock.run(promise)`. `'auto'` is a manual clock that jumps to the next thing due whenever the
   * code under test waits, so waits finish at once without real time passing. @default 'real'
   */
  clock?: 'real' | 'manual' | 'auto' | undefined;
  /** With the real clock: emulator milliseconds per wall-clock millisecond. @default 1 */
  timeScale?: number | undefined;
  gpuTypes?: GpuTypeSpec[] | undefined;
  hosts?: HostSpec[] | undefined;
  /** How long a pod takes to start, on the emulator clock. @default 2000 */
  podStartupMs?: number | undefined;
  /**
   * The platform's hand-off time: a job is IN_QUEUE at least this long before a worker may take
   * it, on top of any wait for a free worker. @default 0
   */
  queueDelayMs?: number | undefined;
  /** A new worker's cold start (INITIALIZING, then IDLE) when its endpoint's `flashboot` is OFF. @default 500 */
  coldStartMs?: number | undefined;
  /** A new worker's cold start with `flashboot` FLASHBOOT or PRIORITY_FLASHBOOT. @default 100 */
  flashbootColdStartMs?: number | undefined;
  /** How long `/stream` holds when nothing is ready. @default 10000 */
  streamHoldMs?: number | undefined;
  /**
   * Finished jobs whose result is kept (30 min after `/run`, 1 min after `/runsync`): past this
   * count the oldest result goes first, answered 404 as if expired, so an emulator that serves for
   * weeks holds a bounded memory. @default 10000
   */
  maxRetainedResults?: number | undefined;
  /** Serverless rate limits and the queue-full answer, as the platform enforces them; `false` lifts them all. @default the platform's limits */
  serverlessLimits?: false | ServerlessLimits | undefined;
  /** Sends the webhooks of finished jobs. @default globalThis.fetch */
  webhookFetch?: WebhookFetch | undefined;
  /**
   * GraphQL rate limit per API key: beyond `requests` per `intervalMs` (wall-clock time), HTTP 429
   * with Retry-After. @default no limit
   */
  graphqlRateLimit?: { requests: number; intervalMs: number } | undefined;
  /** REST v2 requests per minute per account before 429; the hour and day windows scale with it. @default 6000 */
  restRateLimitPerMinute?: number | undefined;
  /**
   * Keep serving the retired REST v1 under `/v1` (for the legacy client's tests); `restUrl` then
   * points there. Without it, every `/v1` route answers 410 Gone, as production does. @default false
   */
  legacyRestV1?: boolean | undefined;
  /**
   * Origins whose pages may call the emulator (CORS): a list, or `'*'` for any.
   * @default loopback origins only (`http://localhost:*`, `http://127.x.x.x:*`, `http://[::1]:*`)
   */
  corsOrigins?: '*' | readonly string[] | undefined;
  /**
   * Host names answered besides the loopback ones, or `'*'` for any: a request whose Host is
   * another name gets 403, against DNS rebinding. Add the name a served emulator is reached by
   * (`emulator` in a container network, a Worker's host). @default loopback names only (`localhost`, `127.x.x.x`, `[::1]`) and the in-process `emulator.invalid`
   */
  allowedHosts?: '*' | readonly string[] | undefined;
  /** Largest request body accepted, in bytes, counted as it arrives. @default 33554432 (32 MiB) */
  maxBodyBytes?: number | undefined;
  /**
   * Retire GraphQL as production will in early 2027: every `/graphql` request answers 410 Gone,
   * before its key is checked. The body of production's 410 is not published, so it can be a
   * problem document (the default), a GraphQL `errors` answer, or empty. @default false
   */
  graphqlRetired?: boolean | { body?: 'problem' | 'graphql' | 'empty' | undefined } | undefined;
}

/** Options for `createRunpodClient` that point it at this emulator. */
export interface EmulatorClientOptions {
  apiKey: string;
  graphqlUrl: string;
  restUrl: string;
  serverlessUrl: string;
  /** Template of a load-balanced endpoint's address, with `{endpointId}` in it. */
  loadBalancedUrl: string;
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
}

/** An emulator served over HTTP by `listen()` from `runpod-gql/emulator/node`. */
export interface ListeningEmulator {
  readonly url: string;
  readonly graphqlUrl: string;
  /** REST v2 (`{url}/v2`), or v1 (`{url}/v1`) with `legacyRestV1`. */
  readonly restUrl: string;
  /** REST v2, whatever `legacyRestV1` says. */
  readonly restV2Url: string;
  /** The queue-based endpoints: `{url}/queue/v2`, standing for `https://api.runpod.ai/v2`. */
  readonly serverlessUrl: string;
  /** The address of a load-balanced endpoint defined with `emulator.loadBalanced.define`. */
  loadBalancedUrl(endpointId: string): string;
  clientOptions(apiKey?: string): EmulatorClientOptions;
  /** Stops serving and disposes the emulator. Calling it again does nothing. */
  close(): Promise<void>;
}

/** A queue-based endpoint made with `emulator.endpoints.create`. */
export interface EmulatorEndpointSpec {
  /** The handler its workers run: built in (`echo`, `sleep`, `fail`, `stream`) or registered. */
  handler: string;
  /** The account that owns it. @default the emulator's first key */
  apiKey?: string | undefined;
  /** @default the handler's name */
  name?: string | undefined;
  /** Between `min` and `max` workers; an idle one goes after `idleTimeout` seconds. @default { min: 0, max: 3, idleTimeout: 5 } */
  workers?: { min?: number | undefined; max?: number | undefined; idleTimeout?: number | undefined } | undefined;
  /** @default { type: 'QUEUE_DELAY', queueDelay: 4 } */
  scaling?: { type: 'QUEUE_DELAY'; queueDelay: number } | { type: 'REQUEST_COUNT'; requestCount: number } | undefined;
  /** Shortens cold starts to the emulator's `flashbootColdStartMs`. @default 'OFF' */
  flashboot?: 'OFF' | 'FLASHBOOT' | 'PRIORITY_FLASHBOOT' | undefined;
  /** This endpoint's cold start, whatever the emulator's options and `flashboot` say. */
  coldStartMs?: number | undefined;
  /** A job's execution timeout unless its policy says otherwise. @default 600000 */
  executionTimeoutMs?: number | undefined;
}

export interface Emulator {
  /**
   * The emulator as a fetch-standard handler (a `Request` in, a `Response` out), e.g. a Worker's
   * `fetch`. To point a client at it in-process, use `createRunpodClient(emulator.clientOptions())`.
   */
  fetch(request: Request, env?: unknown): Promise<Response>;
  /** Ends every timer the emulator started (job steps, holds); later calls are no-ops. */
  dispose(): void;
  /** Options for `createRunpodClient` that use `emulator.fetch` in-process. */
  clientOptions(apiKey?: string): EmulatorClientOptions;
  loadBalancedUrl(endpointId: string): string;
  /**
   * Options for `createRunpodClient` that reach this emulator served at `baseUrl` (what
   * `listen()` from `runpod-gql/emulator/node` uses).
   */
  clientOptionsAt(baseUrl: string, apiKey?: string): EmulatorClientOptions;
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
    /**
     * Registers a serverless handler. Any account can call it by name as a public endpoint
     * (`rp.endpoint(name)`), and an endpoint created with that name, or with an image `…/name`, runs it.
     */
    register(name: string, handler: JobHandler): void;
  };
  readonly endpoints: {
    /**
     * Creates a queue-based endpoint owned by an account, whose workers run `handler`, as
     * `POST /v2/serverless` would; returns its id. Its `workers.min` workers start at once.
     */
    create(spec: EmulatorEndpointSpec): string;
  };
  readonly loadBalanced: {
    define(definition: LoadBalancedDefinition): void;
  };
  /**
   * What `POST /v2/pods/{id}/exec` runs: a common set by default (`nvidia-smi`, `ls`, `cat`, `sh -c`,
   * `bash -c`, `echo`, `env`, `df`, `nproc`, … listed in the emulator's README), answering from the pod's own facts.
   */
  readonly exec: {
    /** Defines (or replaces) the program `name` (argv[0]) in every pod; an undefined one exits 127. */
    define(name: string, command: ExecCommand): void;
  };
  readonly builds: {
    /**
     * Starts a build of an endpoint's image, as a push to its linked repository would; returns its
     * id. It is PENDING, BUILDING, UPLOADING and TESTING for `stepMs` each on the emulator clock,
     * then `outcome` (FAILED ends after BUILDING, CANCELLED after PENDING). `rest.endpoints.builds(id)` lists it.
     */
    start(spec: EmulatorBuildSpec): string;
  };
  /** Retires GraphQL from now on (every `/graphql` request answers 410 Gone), e.g. in the middle of a test. */
  retireGraphql(body?: 'problem' | 'graphql' | 'empty'): void;
  /** What tests observe: pods, files on each disk, and network volumes, across accounts. */
  readonly inspect: {
    pod(podId: string): { desiredStatus: string; gpuCount: number; hostId: string; costPerHr: number; lastStatusChange: string } | undefined;
    podCount(apiKey?: string): number;
    files(podId: string): { containerDisk: Record<string, string>; volume: Record<string, string> };
    writeFile(podId: string, path: string, content: string): void;
    networkVolumeFiles(networkVolumeId: string): Record<string, string>;
    freeGpus(hostId: string): number;
    /**
     * What the emulator holds now, for tests of its bounds: requests and streams held open, clock
     * sleeps not yet ended, and jobs kept (unfinished, or finished with their result not yet expired).
     */
    held(): { requests: number; sleeps: number; jobs: number };
    /**
     * What the emulator keeps now, structure by structure, for tests that a long run leaves nothing
     * behind once its results expire: see {@link EmulatorRetained} and the emulator README's
     * "Memory is bounded by time and by count".
     */
    retained(): EmulatorRetained;
  };
}

/** What `emulator.inspect.retained()` counts. Each is bounded by time, by count, or by what the caller keeps (pods, endpoints). */
export interface EmulatorRetained {
  /** Jobs kept: unfinished, or finished with a result not yet expired (at most `maxRetainedResults` finished). */
  jobs: number;
  /** Inputs kept among them: only a job that may still run (unfinished, FAILED or TIMED_OUT, which `/retry` runs again) keeps its input. */
  jobInputs: number;
  /** Finished results among them. */
  finished: number;
  /** Endpoints with jobs waiting for a worker. */
  waitingQueues: number;
  /** Requests held on a job (`/runsync`, `/status-sync`, `/stream`). */
  jobListeners: number;
  /** Queue timers: job steps, time-outs, webhook retries, the sweep of expired results. */
  timers: number;
  /** Worker pools (one per account and endpoint used), their workers (at most `workers.max` each) and their wake-up timers. */
  workerPools: number;
  workers: number;
  workerTimers: number;
  /** Clock sleeps not yet ended. */
  sleeps: number;
  /** Requests and streams held open (latency faults, long-polls, log streams, load-balanced holds). */
  holds: number;
  /** Fault rules not yet used up. */
  faultRules: number;
  /** Serverless rate buckets: one per account, endpoint and route group used. */
  rateBuckets: number;
  accounts: number;
  pods: number;
  /** Log lines of the pods that exist (at most 5,000 a pod). */
  podLogLines: number;
  /** Log streams following new lines. */
  logListeners: number;
  /** Pod and volume billing segments (closed ones past 10,000 an account are folded by the hour). */
  billingSegments: number;
  /** Serverless bill rows: one per account, endpoint, GPU type and hour of use. */
  endpointCharges: number;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function faultResponse(c: Context<EmulatorEnv>, fault: Fault): Response | undefined {
  switch (fault.type) {
    case 'status': {
      const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
      // REST v2 speaks RFC 9457 problems; the other surfaces their own error shapes.
      if (isRestV2(c.req.path)) return problemResponse(c, fault.status, `injected HTTP ${fault.status}`, undefined, headers, fault.body);
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
 * A local stand-in for the platform: GraphQL over the project's own schema.graphql, REST v2
 * (REST v1 answering 410 unless `legacyRestV1`), queue-based and load-balanced serverless
 * endpoints, one shared state, a clock and faults.
 */
export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const clock = createEmulatorClock(options.clock ?? 'real', options.timeScale);
  const platform = new Platform({ clock, gpuTypes: options.gpuTypes, hosts: options.hosts, podStartupMs: options.podStartupMs });
  const queue = new ServerlessQueue({
    clock,
    queueDelayMs: options.queueDelayMs,
    streamHoldMs: options.streamHoldMs,
    webhookFetch: options.webhookFetch,
    lifetime: platform.lifetime,
    maxRetainedResults: options.maxRetainedResults,
    workers: { coldStartMs: options.coldStartMs, flashbootColdStartMs: options.flashbootColdStartMs },
  });
  queue.handlers.set('openai-echo', openaiEchoHandler(clock));
  const limiter = new ServerlessLimiter(clock, options.serverlessLimits);
  const faults = new FaultInjector();
  const loadBalanced = new LoadBalancedEndpoints(platform);
  // GraphQL's templates, endpoints, volumes, registry credentials and SSH keys go through the REST v2
  // routes in process (set below, once they are built): one store, one set of rules for both.
  let restV2App: Hono<EmulatorEnv> | undefined;
  const runGraphQL = createGraphQLExecutor(platform, async (account, method, path, body) => {
    const response = await restV2App!.request(path, {
      method,
      headers: { authorization: `Bearer ${account.apiKey}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
  });
  const graphqlRateLimit = options.graphqlRateLimit ? new FixedWindowLimiter(options.graphqlRateLimit) : undefined;
  clock.watch(() => loadBalanced.nextReadyAt(clock.now()));
  // A build moves on at times nobody sleeps until: a client polling it sees the next state.
  clock.watch(() => nextBuildChangeAt(platform));
  // What `dispose()` ends; other parts register their own timers here.
  const disposers: Array<() => void> = [() => queue.dispose(), () => loadBalanced.dispose(), () => clock.dispose()];
  // A pod's container comes up at a time nobody sleeps until: tell the clock, so `run()` and the auto mode stop there.
  clock.watch(() => {
    let next: number | undefined;
    for (const account of platform.accounts.values()) {
      for (const pod of account.pods.values()) {
        const up = pod.lastStartedAt + platform.podStartupMs;
        if (pod.desiredStatus === 'RUNNING' && up > clock.now() && (next === undefined || up < next)) next = up;
      }
    }
    return next;
  });

  // An account starts with nothing of its own; the handlers are public endpoints, reachable by name.
  const addAccount = (apiKey: string): Account => platform.accountByKey(apiKey) ?? platform.addAccount(apiKey);
  for (const key of options.apiKeys ?? [EMULATOR_API_KEY]) addAccount(key);

  // Once disposed, nothing new starts: a request that arrives, or that a latency fault held until
  // then, is answered 503 at once (a job submitted then would wait for workers that no longer run).
  const refuseWhenDisposed: MiddlewareHandler<EmulatorEnv> = (c, next) =>
    platform.lifetime.disposed ? Promise.resolve(c.json({ error: 'the emulator was disposed', status: 503 }, 503)) : next();
  const app = new Hono<EmulatorEnv>();
  app.use('*', refuseWhenDisposed);
  app.use('*', hostCheck(options.allowedHosts, new URL(IN_PROCESS_BASE).hostname));
  app.use('*', emulatorCors(options.corsOrigins));
  app.use('*', bodyLimit(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));
  app.use(
    '*',
    decodablePath((c, message) => (isRestV2(new URL(c.req.raw.url).pathname) ? problemResponse(c, 400, message) : c.json({ error: message, status: 400 }, 400))),
  );

  // Latency is real time (it stands for the network): `dispose()` ends the waits still pending,
  // and the requests they held are answered 503 (refuseWhenDisposed). A caller who gives up
  // meanwhile gets its abort at once (fetchHandler); the request still arrives when the latency has passed.
  const latency = (ms: number) =>
    new Promise<void>((resolve) => {
      const hold = platform.lifetime.hold(undefined);
      const end = () => {
        clearTimeout(timer);
        hold.release();
        resolve();
      };
      const timer = setTimeout(end, ms);
      if (hold.signal.aborted) end();
      else hold.signal.addEventListener('abort', end, { once: true });
    });
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
      await latency(fault.ms);
      return refuseWhenDisposed(c, next);
    }
    if (isAfterCreate(fault)) {
      await next();
      const surface = c.req.path.endsWith('/graphql') ? 'graphql' : isRestV2(c.req.path) ? 'rest-v2' : 'rest-v1';
      const answer = await answerAfterCreate(fault, surface, c.res, () => new Response(null, { status: 500, headers: { [DROP_MARKER]: '1' } }), latency);
      c.res = undefined;
      c.res = answer;
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

  let graphqlRetiredBody: 'problem' | 'graphql' | 'empty' | undefined =
    options.graphqlRetired === true ? 'problem' : options.graphqlRetired ? (options.graphqlRetired.body ?? 'problem') : undefined;
  // Before the key is checked, as REST v1's retirement: a retired API knows no accounts.
  app.all('/graphql', async (c, next) => {
    switch (graphqlRetiredBody) {
      case undefined:
        return next();
      case 'graphql':
        return c.json({ errors: [{ message: 'The GraphQL API has been retired; use REST v2.', extensions: { code: 'GONE' } }] }, 410);
      case 'empty':
        return c.body(null, 410);
      default:
        return problemResponse(c, 410, 'The GraphQL API has been retired; use REST v2 under /v2.');
    }
  });

  app.post('/graphql', async (c) => {
    // As the platform: `?api_key=` (the spec's form) or `Authorization: Bearer` (its own clients').
    const apiKey = c.req.query('api_key');
    const authorization = c.req.header('authorization');
    const account = platform.accountByKey(apiKey ?? bearerKey(authorization));
    const unauthorized = () => c.json({ errors: [{ message: 'Unauthorized: missing or unknown API key', extensions: { code: 'UNAUTHENTICATED' } }] }, 401);
    // With no key at all, the platform still serves the catalog (GPU types, data centres: src/graphql/README.md, "Public queries"); a wrong key is refused whatever it asks.
    if (!account && (apiKey !== undefined || authorization !== undefined || !runGraphQL.isPublicRead(await c.req.json().catch(() => undefined)))) return unauthorized();
    const retryAfterSeconds = graphqlRateLimit?.take(account?.apiKey ?? '(no key)');
    if (retryAfterSeconds !== undefined) {
      return c.json({ errors: [{ message: 'Too many requests', extensions: { code: 'RATE_LIMITED' } }] }, 429, { 'retry-after': String(retryAfterSeconds) });
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ errors: [{ message: 'request body is not valid JSON' }] }, 400);
    }
    const answer = await runGraphQL(account, body);
    return c.json(answer.body, answer.status as 200);
  });

  const handlerNames = () => new Set(queue.handlers.keys());
  if (options.legacyRestV1) {
    app.use('/v1/*', bearer);
    app.route('/v1', restRoutes(platform, handlerNames));
  } else {
    app.all('/v1', restV1Retired);
    app.all('/v1/*', restV1Retired);
  }
  app.use('/queue/v2/*', bearer);
  app.route('/queue/v2', openaiRoutes(queue, limiter));
  app.route('/queue/v2', queueRoutes(queue, limiter, clock));
  const exec = new ExecTable();
  restV2App = restV2Routes(
    {
      platform,
      handlerNames,
      // `/health` reads the same pool.
      workers: (account, endpoint) => queue.workers.workers(account, endpoint),
      endpointChanged: (account, endpoint) => queue.workers.refresh(account, endpoint),
      endpointDeleted: (account, endpointId) => {
        queue.endpointDeleted(account, endpointId);
        limiter.forget(`${account.id}/${endpointId}`);
      },
      queueBase: (origin) => `${origin}/queue/v2`,
      loadBalancedBase: (origin, endpointId) => `${origin}/lb/${encodeURIComponent(endpointId)}`,
      exec,
    },
    { ratePerMinute: options.restRateLimitPerMinute ?? 6_000 },
  );
  app.route('/v2', restV2App);
  app.all('/lb/:endpointId/*', (c) => loadBalanced.handle(c));
  app.all('/lb/:endpointId', (c) => loadBalanced.handle(c));

  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}`, status: 404 }, 404));
  app.onError((err, c) => {
    if (err instanceof EmulatorHttpError) return c.json({ error: err.message, status: err.status }, err.status as 400);
    return c.json({ error: `emulator error: ${err instanceof Error ? err.message : String(err)}`, status: 500 }, 500);
  });

  async function fetchHandler(request: Request, env?: unknown): Promise<Response> {
    // As `fetch` does: an aborted request rejects with the signal's reason, whatever holds it
    // (a long-poll, a latency fault, a cold start), so a client's deadline works in-process.
    const response = await untilAborted(Promise.resolve(app.fetch(request, env as object | undefined)), request.signal, abortReason);
    clock.poke();
    if (!response.headers.has(DROP_MARKER)) return response;
    const socket = (env as { incoming?: { socket?: { destroy(): void } } } | undefined)?.incoming?.socket;
    if (socket) {
      socket.destroy();
      return response;
    }
    throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
  }

  const restPath = options.legacyRestV1 ? '/v1' : '/v2';
  const optionsFor = (base: string, apiKey: string, fetch?: EmulatorClientOptions['fetch']): EmulatorClientOptions => ({
    apiKey,
    graphqlUrl: `${base}/graphql`,
    restUrl: `${base}${restPath}`,
    serverlessUrl: `${base}/queue/v2`,
    loadBalancedUrl: `${base}/lb/{endpointId}`,
    ...(fetch && { fetch }),
  });
  const defaultKey = options.apiKeys?.[0] ?? EMULATOR_API_KEY;
  // A Request passed alone is served as it is: a copy would register one more entry in the
  // runtime's request FinalizationRegistry (undici), whose table keeps the size it grew to.
  const inProcessFetch = (input: string | URL | Request, init?: RequestInit) =>
    fetchHandler(toEmulatedLoadBalanced(input instanceof Request && init === undefined ? input : new Request(input, init), IN_PROCESS_BASE));

  const accountOfPod = (podId: string): Account => {
    for (const account of platform.accounts.values()) if (account.pods.has(podId)) return account;
    throw new EmulatorHttpError(404, `pod ${podId} not found`);
  };

  return {
    fetch: fetchHandler,
    clientOptions: (apiKey = defaultKey) => optionsFor(IN_PROCESS_BASE, apiKey, inProcessFetch),
    loadBalancedUrl: (endpointId) => `${IN_PROCESS_BASE}/lb/${encodeURIComponent(endpointId)}`,
    dispose() {
      for (const dispose of disposers.splice(0)) dispose();
    },
    clientOptionsAt: (baseUrl, apiKey = defaultKey) => optionsFor(baseUrl.replace(/\/+$/, ''), apiKey),
    clock,
    faults: { inject: (rule) => faults.inject(rule), clear: () => faults.clear(), pending: () => faults.pending() },
    accounts: { add: (apiKey) => void addAccount(apiKey) },
    handlers: {
      register(name, handler) {
        queue.handlers.set(name, handler);
      },
    },
    endpoints: {
      create(spec) {
        if (!queue.handlers.has(spec.handler)) throw new Error(`emulator.endpoints.create: no handler named ${JSON.stringify(spec.handler)}; register it first`);
        const account = platform.accountByKey(spec.apiKey ?? defaultKey);
        if (!account) throw new Error('emulator.endpoints.create: no account has that API key; add it with emulator.accounts.add');
        const min = spec.workers?.min ?? 0;
        const max = spec.workers?.max ?? 3;
        if (!(Number.isInteger(min) && Number.isInteger(max) && min >= 0 && min <= max)) throw new Error('emulator.endpoints.create: workers.min and workers.max must be whole numbers with 0 ≤ min ≤ max');
        const idleTimeout = spec.workers?.idleTimeout ?? 5;
        if (!(Number.isInteger(idleTimeout) && idleTimeout >= 1 && idleTimeout <= 3600)) throw new Error('emulator.endpoints.create: workers.idleTimeout must be a whole number of seconds from 1 to 3600');
        const scaling = spec.scaling ?? { type: 'QUEUE_DELAY', queueDelay: 4 };
        const scalingOk = scaling.type === 'QUEUE_DELAY' ? Number.isFinite(scaling.queueDelay) && scaling.queueDelay >= 0.5 : scaling.type === 'REQUEST_COUNT' && Number.isInteger(scaling.requestCount) && scaling.requestCount >= 1;
        if (!scalingOk) throw new Error('emulator.endpoints.create: scaling must be { type: "QUEUE_DELAY", queueDelay ≥ 0.5 } or { type: "REQUEST_COUNT", requestCount ≥ 1 (whole) }');
        if (spec.coldStartMs !== undefined && !(Number.isFinite(spec.coldStartMs) && spec.coldStartMs >= 0)) throw new Error('emulator.endpoints.create: coldStartMs must be a number ≥ 0');
        const endpoint = buildEndpoint(platform, handlerNames(), account, {
          name: spec.name ?? spec.handler,
          type: 'QUEUE',
          image: `emulator/${spec.handler}:latest`,
          scaling,
          workers: { min, max, idleTimeout },
          flashboot: spec.flashboot ?? 'OFF',
          timeout: spec.executionTimeoutMs ?? 600_000,
        });
        endpoint.handler = spec.handler;
        if (spec.coldStartMs !== undefined) endpoint.coldStartMs = spec.coldStartMs;
        account.endpoints.set(endpoint.id, endpoint);
        queue.workers.refresh(account, endpoint);
        return endpoint.id;
      },
    },
    loadBalanced: { define: (definition) => loadBalanced.define(definition) },
    exec: { define: (name, command) => exec.define(name, command) },
    builds: {
      start(spec) {
        const account = platform.accountByKey(spec.apiKey ?? defaultKey);
        if (!account) throw new Error('emulator.builds.start: no account has that API key; add it with emulator.accounts.add');
        const endpoint = account.endpoints.get(spec.endpointId);
        if (!endpoint) throw new Error(`emulator.builds.start: the account owns no endpoint ${JSON.stringify(spec.endpointId)}`);
        return startBuild(clock, endpoint, spec);
      },
    },
    retireGraphql(body = 'problem') {
      graphqlRetiredBody = body;
    },
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
      held: () => ({ requests: platform.lifetime.heldCount, sleeps: clock.pendingSleeps, jobs: queue.size }),
      retained: () => ({
        ...queue.retained(),
        sleeps: clock.pendingSleeps,
        holds: platform.lifetime.heldCount,
        faultRules: faults.size,
        rateBuckets: limiter.size,
        ...platform.retained(),
      }),
    },
  };
}

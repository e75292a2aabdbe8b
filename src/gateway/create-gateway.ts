// The gateway: RunPod's GraphQL schema over GraphQL-over-HTTP, as one pipeline of named stages
// (pipeline.ts) over one resolved configuration (config.ts). This file assembles them; each stage
// owns its concern in `stages/`.
import { createRunpodClient, type RunpodClient } from '../client.js';
import { AuthenticationError, ValidationError } from '../errors.js';
import { createLog, DEFAULT_LOG_LEVEL } from '../transport/logger.js';
import type { RunpodClientOptions } from '../transport/options.js';
import type { PacingStore } from '../transport/pacing.js';
import { redactText, registerSecret } from '../transport/redact.js';
import type { TransportChangeEvent } from '../transport/transport-choice.js';
import { RequestIds, thrownAnswer, type GatewayAnswer } from './answers.js';
import { resolveGatewayConfig, resolveReloadable, type GatewaySettings, type GatewayUpstream } from './config.js';
import type { GatewayContext } from './context.js';
import { createCorsPolicy, parseCorsHeaders, parseCorsOrigins } from './cors.js';
import { createFairness, observingFetch } from './fairness.js';
import { attachHostPolicy, createHostPolicy } from './host-check.js';
import type { GatewayLimits } from './limits.js';
import { createNoSourceFilter } from './no-source.js';
import { createPassThroughPool } from './pass-through.js';
import { loadPersisted } from './persisted.js';
import { notify, runStages, type GatewayObserver, type Outcome, type Stage } from './pipeline.js';
import { negotiate, Refusal } from './protocol.js';
import { TokenBuckets } from './rate.js';
import { noScrub, scrubberOf, type Scrub } from './scrub.js';
import { scrubberFor, writeAnswer } from './stages/answer.js';
import { authStage } from './stages/auth.js';
import { callerLimitsStage } from './stages/caller-limits.js';
import { createDocumentPreparer, documentStage } from './stages/document.js';
import { createExecuteBudget } from './budget.js';
import { executeStage } from './stages/execute.js';
import { hostStage } from './stages/host.js';
import { probesStage, type OperatorRoutes } from './stages/probes.js';
import { responseCacheStage } from './stages/response-cache.js';
import { scopeStage } from './stages/scope.js';
import { variablesStage } from './stages/variables.js';
import type { GatewayToken } from './tokens.js';
import { createUpstreamHealth } from './upstream-health.js';

export type { GatewayUpstream } from './config.js';

/** Options of {@link createGateway}. */
export interface GatewayOptions {
  /**
   * The upstream client's options: `apiKey`, `restUrl`, `graphqlUrl`, `fetch`, `pacingStore`, …
   * (`apiKey` defaults to `RUNPOD_API_KEY`). In pass-through mode `apiKey` must not be set.
   */
  client?: Omit<RunpodClientOptions, 'podsTransport' | 'graphqlTransport'> | undefined;
  /** @default 'rest' */
  upstream?: GatewayUpstream | undefined;
  /**
   * Callers' tokens: `scope:token` entries, comma-separated, or a list.
   * @default process.env.RUNPOD_GATEWAY_TOKENS, where `process` exists
   */
  tokens?: string | readonly GatewayToken[] | undefined;
  /**
   * Serve callers without a token when none is configured. Only for a gateway bound to loopback
   * (the Node listener refuses any other address). @default false
   */
  allowAnonymous?: boolean | undefined;
  /**
   * Each caller's own RunPod key (`?api_key=` or `Authorization: Bearer`) is used upstream; the
   * gateway holds no key and needs no tokens. @default false
   */
  passThroughKeys?: boolean | undefined;
  /**
   * Origins whose pages may call the gateway (`scheme://host[:port]`; a trailing `/` is dropped; `*`
   * is refused). Pages on the address `listen` bound always may; the gateway never takes its own
   * origin from a request. A refused origin is logged once, at warn. @default none
   */
  corsOrigins?: readonly string[] | undefined;
  /**
   * Request headers a page may send beyond the ones the package's client sends (which every
   * preflight allows: `authorization, content-type, accept, x-request-id, user-agent, x-team-id`):
   * the names in the client's `headers` option. @default none
   */
  corsHeaders?: readonly string[] | undefined;
  /**
   * Host names answered besides loopback names and the listen host (a proxy's public name), or
   * `'*'` for any. A request whose `Host` or absolute-form target names another is refused (403),
   * against DNS rebinding. @default none
   */
  allowedHosts?: '*' | readonly string[] | undefined;
  /**
   * The scheme pages reach the `allowedHosts` names with (a proxy in front terminates TLS): a page
   * on `https://NAME` calling `https://NAME/graphql` through the proxy is same-origin. Loopback
   * names are same-origin over http and https. @default 'https'
   */
  publicScheme?: 'https' | 'http' | undefined;
  /**
   * Take each request's id from its `X-Request-Id` (a proxy in front sets it) instead of making
   * one: only when every request comes through that proxy. @default false
   */
  trustRequestId?: boolean | undefined;
  /** Document id → text. With it, only these documents run, asked for by id or by SHA-256 hash. */
  persisted?: Readonly<Record<string, string>> | undefined;
  /**
   * Lossy: answer a nullable field REST v2 has no source for with null and no error (each such
   * field logged once), for callers that cannot take a partial answer. @default false
   */
  nullForNoSource?: boolean | undefined;
  limits?: GatewayLimits | undefined;
  /**
   * Where per-caller rates are kept: share one store (for example the Redis one that is also the
   * client's `pacingStore`) between gateways so a caller's rate holds across all of them.
   * @default the gateway's own memory
   */
  rateStore?: PacingStore | undefined;
  /**
   * Watch every request without taking part in it (an access log, metrics): told when one
   * arrives, of each upstream answer, and once its response is written. @default none
   */
  observers?: readonly GatewayObserver[] | undefined;
  /**
   * What else `/readyz` reflects (a shared store away, …): each answers undefined while all is
   * well, else `{ ready, reason }`. Not ready: 503 with the reason; ready but degraded: 200 that
   * names it. @default none
   */
  conditions?: readonly GatewayCondition[] | undefined;
  /**
   * The operator's own paths (a metrics endpoint), answered to GET as the probes are: whatever the
   * Host, with no token. Serve nothing secret there. @default none
   */
  routes?: OperatorRoutes | undefined;
}

/** One condition `/readyz` reflects: undefined while all is well. */
export type GatewayCondition = () => { readonly ready: boolean; readonly reason: string } | undefined;

/** What a reload replaces (see {@link Gateway.reload}); what it leaves out stays. */
export interface GatewayReload {
  /** The callers' tokens, as the `tokens` option takes them. */
  tokens?: string | readonly GatewayToken[] | undefined;
  /** The persisted documents, as the `persisted` option takes them. */
  persisted?: Readonly<Record<string, string>> | undefined;
}

/** A GraphQL-over-HTTP gateway as a fetch handler: serve it with any fetch runtime, or with `listen` from `runpod-gql/gateway/node`. */
export interface Gateway {
  /**
   * Answers `/graphql`, `/healthz` and `/readyz`. Never rejects. `info.clientAddress` (the peer's
   * IP, which the Node listener passes) is what refused pass-through keys are counted by.
   */
  fetch(request: Request, info?: GatewayRequestInfo): Promise<Response>;
  /** Resolves once persisted documents are indexed; `/readyz` answers 200 from then on. */
  readonly ready: Promise<void>;
  /** True when no token is configured and anonymous callers are served. */
  readonly anonymous: boolean;
  /**
   * Replaces the tokens and persisted documents between two requests; a document already running
   * keeps what it started with. Checks everything first: a wrong reload rejects with a
   * ValidationError naming the option, and the gateway keeps its settings.
   */
  reload?(update: GatewayReload): Promise<void>;
  /**
   * Stops being ready (`/readyz` 503 at once) and resolves once no request is being answered; the
   * listener then stops (see `runpod-gql/gateway/node`). Requests that still arrive are served.
   */
  drain?(): Promise<void>;
  /** Requests being answered now (past the probes). */
  readonly inFlight?: number;
  /** What `/readyz` answers: undefined when ready; else not ready (503) or degraded (200), with the reason. */
  readiness?(): { readonly ready: boolean; readonly reason: string } | undefined;
}

/** What the server knows of a request beyond the request itself. */
export interface GatewayRequestInfo {
  /** The peer's address. Without it, every caller counts as one address. */
  readonly clientAddress?: string | undefined;
}


/**
 * Creates the gateway: RunPod's GraphQL schema (`schema.graphql`) over GraphQL-over-HTTP, executed
 * through a client that holds the key (or, in pass-through mode, each caller's own key). Throws a
 * ValidationError when it would serve nobody safely: no token and no `allowAnonymous`, no upstream
 * key outside pass-through mode, or a wrong option.
 */
export function createGateway(options: GatewayOptions = {}): Required<Gateway> {
  const config = resolveGatewayConfig(options);
  const { limits, passThrough } = config;
  // Notes to the operator (a refused page origin, the upstream switching) go to the client's logger.
  const log = createLog(options.client?.logLevel ?? DEFAULT_LOG_LEVEL, options.client?.logger, redactText);
  const cors = createCorsPolicy(parseCorsOrigins(options.corsOrigins ?? []), parseCorsHeaders(options.corsHeaders ?? []), log);
  // Every persisted document is parsed and checked against the schema and the limits now: the
  // gateway refuses to start on one that no caller could ever run, naming it.
  const noSource = config.nullForNoSource ? createNoSourceFilter(log) : undefined;
  const preparer = createDocumentPreparer(() => settings.current.limits);
  const settings: { current: typeof config; persisted: GatewaySettings['persisted'] } = { current: config, persisted: undefined };
  const persisted = config.persisted === undefined ? undefined : loadPersisted(config.persisted, preparer.problem);
  settings.persisted = persisted;
  const ownFetch = options.client?.fetch ?? undefined;
  if (ownFetch !== undefined && typeof ownFetch !== 'function') throw new ValidationError('client.fetch', 'must be a function');
  // Each upstream answer is reported to the document it was made for (fairness.ts).
  const clientOptions: RunpodClientOptions = {
    ...options.client,
    fetch: observingFetch(ownFetch),
    graphqlTransport: config.upstream,
    onTransportChange: options.client?.onTransportChange ?? transportNote(log),
  };
  let active = 0;
  let draining = false;
  const drained: Array<() => void> = [];
  const gateway: Required<Gateway> = {
    fetch: handle,
    ready: persisted?.hashed ?? Promise.resolve(),
    anonymous: config.anonymous,
    reload,
    drain() {
      draining = true;
      return active === 0 ? Promise.resolve() : new Promise((resolve) => drained.push(resolve));
    },
    get inFlight() {
      return active;
    },
    readiness: () => readiness(),
  };
  const hosts = createHostPolicy(options.allowedHosts, options.publicScheme);
  attachHostPolicy(gateway, hosts);
  // Tokens are scrubbed from every error as API keys are, for as long as the gateway lives.
  for (const token of config.tokens.keys()) registerSecret(token, gateway);

  let serverClient: RunpodClient | undefined;
  /** The gateway's own secrets (its key and tokens): every answer is scrubbed of these. */
  let ownScrub: Scrub = noScrub;
  let upstreamKey: string | undefined;
  if (passThrough) {
    if (options.client?.apiKey !== undefined) throw new ValidationError('client.apiKey', 'must not be set with passThroughKeys: the gateway holds no key of its own');
  } else {
    serverClient = createRunpodClient(clientOptions);
    const probe = clientOptions.apiKey ?? (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.RUNPOD_API_KEY;
    if (!probe) throw new ValidationError('apiKey', 'the gateway needs the upstream key: set RUNPOD_API_KEY, or use pass-through keys');
    upstreamKey = probe;
    ownScrub = scrubberOf([probe, ...config.tokens.keys()]);
  }
  const health = passThrough ? undefined : createUpstreamHealth(log, async () => {
    // The cheapest read that needs the key: RunPod answers it 401 while it refuses the key.
    try {
      const result = await serverClient!.graphql.execute('{ myself { pods { id } } }');
      return !result.errors?.some((e) => e.originalError instanceof AuthenticationError);
    } catch (err) {
      return err instanceof AuthenticationError ? false : undefined;
    }
  });
  const conditions = options.conditions ?? [];
  /** Undefined when ready, else the reason `/readyz` answers 503 with; or a degraded note, 200. */
  const readiness = (): { ready: boolean; reason: string } | undefined => {
    if (draining) return { ready: false, reason: 'draining' };
    if (!isReady) return { ready: false, reason: 'starting' };
    const refused = health?.readiness();
    if (refused) return { ready: false, reason: refused };
    let degraded: { ready: boolean; reason: string } | undefined;
    for (const condition of conditions) {
      let state;
      try {
        state = condition();
      } catch {
        continue;
      }
      if (state && !state.ready) return state;
      degraded ??= state;
    }
    return degraded;
  };
  const passThroughClients = createPassThroughPool(clientOptions);
  const refusedKeys = passThrough && limits.refusedKeys !== false ? new TokenBuckets(limits.refusedKeys.requests, limits.refusedKeys.intervalMs) : undefined;
  const fairness = createFairness(limits, options.rateStore, refusedKeys);
  const observers = options.observers ?? [];
  let isReady = false;
  void gateway.ready.then(() => (isReady = true), () => {});

  // The pipeline, in its one order (see pipeline.ts and the README's "A request, in order").
  const stages: readonly Stage[] = [
    probesStage(readiness, options.routes),
    hostStage(hosts, cors),
    authStage({ settings, serverClient, ownScrub: () => ownScrub, passThroughClients, checkAddress: (address) => fairness.checkAddress(address) }),
    callerLimitsStage(fairness),
    documentStage(settings, preparer, () => (isReady ? undefined : gateway.ready)),
    scopeStage(),
    variablesStage(),
    responseCacheStage(),
    executeStage({
      settings,
      start: fairness.start,
      noSource,
      budget: createExecuteBudget(limits, options.client?.rateLimits),
      onUpstream(context, status) {
        if (context.caller?.kind !== 'pass-through') health?.observe(status);
        notify(observers, (o) => o.onUpstream?.(context, status));
      },
    }),
  ];

  async function handle(request: Request, info?: GatewayRequestInfo): Promise<Response> {
    const ids = new RequestIds(options.trustRequestId === true ? request.headers.get('x-request-id') : undefined);
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return new Response(JSON.stringify({ errors: [{ message: 'bad request URL' }], extensions: { requestIds: ids } }), {
        status: 400,
        headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', vary: 'Origin', 'x-request-id': ids.gateway },
      });
    }
    const context: GatewayContext = {
      request,
      url,
      address: info?.clientAddress ?? '',
      ids,
      startedAt: performance.now(),
      media: negotiate(request.headers.get('accept')) ?? 'application/json',
      secretInputs: [],
      upstream: { calls: 0, statuses: [] },
    };
    notify(observers, (o) => o.onRequest?.(context));
    const probe = url.pathname === '/healthz' || url.pathname === '/readyz' || (options.routes !== undefined && Object.hasOwn(options.routes, url.pathname));
    if (!probe) active++;
    let outcome: Outcome;
    try {
      outcome = await runStages(stages, context, (err) => refusal(context, err));
    } finally {
      if (!probe && --active === 0 && draining) for (const resolve of drained.splice(0)) resolve();
    }
    let response: Response;
    let answered: GatewayAnswer | undefined;
    if (outcome instanceof Response) response = outcome;
    else {
      answered = outcome;
      response = writeAnswer(context, outcome, scrubberFor(context, ownScrub));
    }
    notify(observers, (o) => o.onResponse?.(context, response, answered));
    return response;
  }

  /** The answer to what a stage threw: its Refusal, or the failure's own answer. */
  function refusal(context: GatewayContext, err: unknown): Outcome {
    if (err instanceof Refusal) {
      if (err.status === 429) context.refusedFor ??= err.code;
      return { status: err.status, body: { errors: [{ message: err.message, extensions: { code: err.code } }] }, headers: err.headers };
    }
    context.ids.addFrom(undefined, err);
    return thrownAnswer(err, passThrough);
  }

  async function reload(update: GatewayReload): Promise<void> {
    const before = settings.current;
    const next = resolveReloadable({
      tokens: update.tokens ?? (before.tokens.size === 0 ? '' : [...before.tokens].map(([token, entry]) => ({ ...entry, token }))),
      persisted: update.persisted ?? before.persisted,
      passThroughKeys: passThrough,
    });
    if (!passThrough && !before.anonymous && next.tokens.size === 0) throw new ValidationError('tokens', 'the reload lists no token: the gateway keeps its tokens (an anonymous gateway needs a restart with --allow-anonymous)');
    if (before.anonymous && next.tokens.size > 0) throw new ValidationError('tokens', 'an anonymous gateway cannot take tokens by a reload: restart it with them');
    const index = next.persisted === undefined ? undefined : next.persisted === before.persisted ? settings.persisted : loadPersisted(next.persisted, preparer.problem);
    await (index as { hashed?: Promise<void> } | undefined)?.hashed;
    for (const token of next.tokens.keys()) registerSecret(token, gateway);
    if (!passThrough) ownScrub = scrubberOf([upstreamKey, ...next.tokens.keys()]);
    settings.current = { ...before, ...next };
    settings.persisted = index;
  }

  return gateway;
}

/**
 * The gateway's note when its client leaves RunPod's GraphQL for REST v2 (`--upstream auto` and a
 * 410), in the operator's terms, instead of the client's advice to a library caller.
 */
function transportNote(log: ReturnType<typeof createLog>) {
  let told = false;
  return (event: TransportChangeEvent): void => {
    if (event.reason !== 'retired' || told) return;
    told = true;
    log.warn('gateway: RunPod\'s GraphQL answered 410 Gone: from now on every document runs in process over REST v2 (--upstream auto). Start the gateway with --upstream rest to skip GraphQL from the start');
  };
}


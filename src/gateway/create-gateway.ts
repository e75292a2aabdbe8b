// The gateway: RunPod's GraphQL schema over GraphQL-over-HTTP, as one pipeline of named stages
// (pipeline.ts) over one resolved configuration (config.ts). This file assembles them; each stage
// owns its concern in `stages/`.
import { createRunpodClient, type RunpodClient } from '../client.js';
import { AuthenticationError, ValidationError } from '../errors.js';
import { createLog, DEFAULT_LOG_LEVEL } from '../transport/logger.js';
import type { RunpodClientOptions } from '../transport/options.js';
import { redactText, registerSecret } from '../transport/redact.js';
import type { TransportChangeEvent } from '../transport/transport-choice.js';
import { RequestIds, thrownAnswer, type GatewayAnswer } from './answers.js';
import { resolveGatewayConfig, resolveReloadable, type GatewaySettings } from './config.js';
import type { Caller, GatewayContext } from './context.js';
import { createCorsPolicy, parseCorsHeaders, parseCorsOrigins } from './cors.js';
import { createFairness, observingFetch } from './fairness.js';
import { hangUpOf } from './hang-up.js';
import { attachHostPolicy, createHostPolicy } from './host-check.js';
import { createNoSourceFilter } from './no-source.js';
import { createPassThroughPool } from './pass-through.js';
import { loadPersisted } from './persisted.js';
import { notify, runStages, type GatewayObserver, type Outcome, type Stage } from './pipeline.js';
import { attachQueryLimit, negotiate, Refusal } from './protocol.js';
import { TokenBuckets } from './rate.js';
import { createResponseCache } from './response-cache.js';
import { noScrub, scrubberOf, type Scrub } from './scrub.js';
import type { GatewayOptions } from './options.js';
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

export type { GatewayCondition, GatewayOptions, GatewayUpstream } from './options.js';

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


function envCatalogKey(): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env?.RUNPOD_CATALOG_KEY || undefined;
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
  attachQueryLimit(gateway, limits.maxBodyBytes);
  // Tokens are scrubbed from every error as API keys are, for as long as the gateway lives.
  for (const token of config.tokens.keys()) registerSecret(token, gateway);

  let serverClient: RunpodClient | undefined;
  /** The gateway's own secrets (its key and tokens): every answer is scrubbed of these. */
  let ownScrub: Scrub = noScrub;
  let upstreamKey: string | undefined;
  const keyless = options.keyless !== false;
  /** Pass-through mode: the client keyless catalog reads are made with, when the operator gave a key. */
  let catalogClient: RunpodClient | undefined;
  if (passThrough) {
    if (options.client?.apiKey !== undefined) throw new ValidationError('client.apiKey', 'must not be set with passThroughKeys: the gateway holds no key of its own');
    const given = keyless ? (options.catalogKey ?? envCatalogKey()) : undefined;
    const catalogKey = given === '' ? undefined : given;
    if (catalogKey !== undefined) {
      if (typeof catalogKey !== 'string' || catalogKey.trim() === '') throw new ValidationError('catalogKey', 'must be a RunPod API key');
      catalogClient = createRunpodClient({ ...clientOptions, apiKey: catalogKey });
      ownScrub = scrubberOf([catalogKey]);
    }
  } else {
    if (options.catalogKey) throw new ValidationError('catalogKey', "is for passThroughKeys: otherwise keyless catalog reads are made with the gateway's own key");
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
  const cache = options.cache === false ? undefined : createResponseCache(options.cache ?? {}, options.onCache);
  /** The keyless caller (the auth stage's third way): the catalog only, with the gateway's or the catalog key. */
  const upstreamOfPublic = passThrough ? catalogClient : serverClient;
  const publicCaller = (context: GatewayContext, unauthenticated: Refusal): Caller | undefined =>
    keyless && upstreamOfPublic ? { kind: 'public', name: 'public', scope: 'catalog', credential: undefined, client: () => upstreamOfPublic, address: context.address, scrub: ownScrub, unauthenticated } : undefined;
  const refusedKeys = passThrough && limits.refusedKeys !== false ? new TokenBuckets(limits.refusedKeys.requests, limits.refusedKeys.intervalMs) : undefined;
  const fairness = createFairness(limits, options.rateStore, refusedKeys);
  const observers = options.observers ?? [];
  // No closure per request for observers that are not there (the access log and metrics are off by default in process).
  const observed = observers.length > 0;
  let isReady = false;
  void gateway.ready.then(() => (isReady = true), () => {});

  // The pipeline, in its one order (see pipeline.ts and the README's "A request, in order").
  const stages: readonly Stage[] = [
    probesStage(readiness, options.routes),
    hostStage(hosts, cors),
    authStage({ settings, serverClient, ownScrub: () => ownScrub, passThroughClients, checkAddress: (address) => fairness.checkAddress(address), publicCaller }),
    callerLimitsStage(fairness),
    documentStage(settings, preparer, () => (isReady ? undefined : gateway.ready)),
    scopeStage(),
    variablesStage(),
    responseCacheStage({ cache, limits: fairness, scrubberFor: (context) => scrubberFor(context, ownScrub), passThrough: () => settings.current.passThrough, waitMs: () => settings.current.limits.deadlineMs }),
    executeStage({
      settings,
      start: fairness.start,
      noSource,
      budget: createExecuteBudget(limits, options.client?.rateLimits),
      onUpstream(context, status) {
        if (context.caller?.kind !== 'pass-through') health?.observe(status);
        if (observed) notify(observers, (o) => o.onUpstream?.(context, status));
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
      hangUp: hangUpOf(request, info),
      startedAt: performance.now(),
      media: negotiate(request.headers.get('accept')) ?? 'application/json',
      upstream: { calls: 0, statuses: [] },
    };
    if (observed) notify(observers, (o) => o.onRequest?.(context));
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
    if (observed) notify(observers, (o) => o.onResponse?.(context, response, answered));
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


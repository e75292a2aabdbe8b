import { getOperationAST, getVariableValues, GraphQLError, parse, validate, type ExecutionResult } from 'graphql';
import { createRunpodClient, type RunpodClient } from '../client.js';
import { ValidationError } from '../errors.js';
import { buildExecutableSchema, DocumentCache, isDocument, type PreparedDocument } from '../graphql/executable-schema.js';
import { createLog, DEFAULT_LOG_LEVEL } from '../transport/logger.js';
import type { RunpodClientOptions } from '../transport/options.js';
import type { PacingStore } from '../transport/pacing.js';
import { redactText, registerSecret } from '../transport/redact.js';
import type { TransportChangeEvent } from '../transport/transport-choice.js';
import { RequestIds, resultAnswer, stoppedAnswer, thrownAnswer, type GatewayAnswer, type GatewayBody } from './answers.js';
import { createCorsPolicy, parseCorsHeaders, parseCorsOrigins } from './cors.js';
import { createFairness, observingFetch, type Turn } from './fairness.js';
import { fieldsBeyondScope, readsOnlyCatalog } from './field-scopes.js';
import { createNoSourceFilter } from './no-source.js';
import { attachHostPolicy, createHostPolicy } from './host-check.js';
import { checkShape, resolveLimits, type GatewayLimits } from './limits.js';
import { checkPassThroughKey, createPassThroughPool } from './pass-through.js';
import { loadPersisted } from './persisted.js';
import {
  GRAPHQL_RESPONSE,
  negotiate,
  paramsFromPost,
  paramsFromSearch,
  Refusal,
  type GatewayErrorEntry,
  type GraphQLParams,
} from './protocol.js';
import { TokenBuckets } from './rate.js';
import { createResponseCache, type CacheEvent, type ResponseCacheOptions, type RunOutcome } from './response-cache.js';
import { noScrub, scrubberOf, type Scrub } from './scrub.js';
import { bearerOf, tokenTable, type GatewayScope, type GatewayToken } from './tokens.js';

/** Which API the gateway's upstream client uses (the client's `graphqlTransport`). */
export type GatewayUpstream = 'auto' | 'rest' | 'graphql';

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
   * Answer a request without a credential when its document reads catalog fields only (what RunPod
   * answers without a key: GPU types, prices, data centres), with the gateway's own key, or in
   * pass-through mode with `catalogKey`. Any other keyless document is 401. @default true
   */
  keyless?: boolean | undefined;
  /**
   * Pass-through mode: the RunPod key keyless catalog reads are made with (best a key of its own).
   * Without it, pass-through mode answers every keyless request 401.
   * @default process.env.RUNPOD_CATALOG_KEY, where `process` exists
   */
  catalogKey?: string | undefined;
  /**
   * Coalescing and the response cache (response-cache.ts): identical reads in flight share one
   * upstream run; catalog reads are kept for every caller, account reads per caller only; a
   * mutation clears its account's. `false` turns both off. @default on, in this process's memory
   */
  cache?: false | ResponseCacheOptions | undefined;
  /** Told how each read the cache stage saw was answered (`hit`, `miss`, `coalesced`), for metrics and logs. */
  onCache?: ((event: CacheEvent) => void) | undefined;
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
}

/** What the server knows of a request beyond the request itself. */
export interface GatewayRequestInfo {
  /** The peer's address. Without it, every caller counts as one address. */
  readonly clientAddress?: string | undefined;
}


function envTokens(): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env?.RUNPOD_GATEWAY_TOKENS || undefined;
}

function envCatalogKey(): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env?.RUNPOD_CATALOG_KEY || undefined;
}

/**
 * One caller, authenticated: what it may do, the credential its rate is kept under, its upstream
 * client, its address, and the scrubber of its answers.
 */
interface Caller {
  readonly scope: GatewayScope;
  readonly credential: string | undefined;
  readonly client: () => RunpodClient;
  readonly address: string;
  readonly scrub: Scrub;
  readonly onRefusedKey?: (() => void) | undefined;
  /** A caller without a credential: the 401 it is answered for anything but a catalog read. */
  readonly keyless?: Refusal | undefined;
  /** Who the cache keeps this caller's account reads for: its token, its key, or a name. */
  readonly cacheId: string;
  /** Whose account it reads (the upstream key's owner): a mutation clears that account's cached reads. */
  readonly account: string;
}

/** The scrubber of each request's answer (see `answer`), set once its caller is known. */
const scrubbers = new WeakMap<Request, Scrub>();

/**
 * Creates the gateway: RunPod's GraphQL schema (`schema.graphql`) over GraphQL-over-HTTP, executed
 * through a client that holds the key (or, in pass-through mode, each caller's own key). Throws a
 * ValidationError when it would serve nobody safely: no token and no `allowAnonymous`, no upstream
 * key outside pass-through mode, or a wrong option.
 */
export function createGateway(options: GatewayOptions = {}): Gateway {
  const upstream = options.upstream ?? 'rest';
  if (upstream !== 'auto' && upstream !== 'rest' && upstream !== 'graphql') throw new ValidationError('upstream', "must be 'auto', 'rest' or 'graphql'");
  const passThrough = options.passThroughKeys === true;
  const limits = resolveLimits(options.limits);
  // Notes to the operator (a refused page origin, the upstream switching) go to the client's logger.
  const log = createLog(options.client?.logLevel ?? DEFAULT_LOG_LEVEL, options.client?.logger, redactText);
  const cors = createCorsPolicy(parseCorsOrigins(options.corsOrigins ?? []), parseCorsHeaders(options.corsHeaders ?? []), log);
  const tokenSource = options.tokens ?? envTokens();
  const tokens = passThrough || tokenSource === undefined ? new Map<string, GatewayScope>() : tokenTable(tokenSource);
  const anonymous = !passThrough && tokens.size === 0;
  if (anonymous && options.allowAnonymous !== true) {
    throw new ValidationError('tokens', 'no gateway token is configured: set RUNPOD_GATEWAY_TOKENS (read:TOKEN,write:TOKEN), or serve anonymous callers on loopback with --allow-anonymous');
  }
  // Every persisted document is parsed and checked against the schema and the limits now: the
  // gateway refuses to start on one that no caller could ever run, naming it.
  const noSource = options.nullForNoSource === true ? createNoSourceFilter(log) : undefined;
  const documents = new DocumentCache();
  const persisted = options.persisted === undefined ? undefined : loadPersisted(options.persisted, persistedProblem);
  const ownFetch = options.client?.fetch ?? undefined;
  if (ownFetch !== undefined && typeof ownFetch !== 'function') throw new ValidationError('client.fetch', 'must be a function');
  // Each upstream answer is reported to the document it was made for (fairness.ts).
  const clientOptions: RunpodClientOptions = {
    ...options.client,
    fetch: observingFetch(ownFetch),
    graphqlTransport: upstream,
    onTransportChange: options.client?.onTransportChange ?? transportNote(log),
  };
  const gateway: Gateway = { fetch: handle, ready: persisted?.hashed ?? Promise.resolve(), anonymous };
  const hosts = createHostPolicy(options.allowedHosts);
  attachHostPolicy(gateway, hosts);
  // Tokens are scrubbed from every error as API keys are, for as long as the gateway lives.
  for (const token of tokens.keys()) registerSecret(token, gateway);

  let serverClient: RunpodClient | undefined;
  /** The gateway's own secrets (its key and tokens): every answer is scrubbed of these. */
  let ownScrub: Scrub = noScrub;
  const keyless = options.keyless !== false;
  /** Pass-through mode: the client keyless catalog reads are made with, when the operator gave a key. */
  let catalogClient: RunpodClient | undefined;
  let catalogKey: string | undefined;
  if (passThrough) {
    if (options.client?.apiKey !== undefined) throw new ValidationError('client.apiKey', 'must not be set with passThroughKeys: the gateway holds no key of its own');
    const given = keyless ? (options.catalogKey ?? envCatalogKey()) : undefined;
    catalogKey = given === '' ? undefined : given;
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
    ownScrub = scrubberOf([probe, ...tokens.keys()]);
  }
  const passThroughClients = createPassThroughPool(clientOptions, catalogKey === undefined ? [] : [catalogKey]);
  const cache = options.cache === false ? undefined : createResponseCache(options.cache ?? {}, options.onCache);
  const refusedKeys = passThrough && limits.refusedKeys !== false ? new TokenBuckets(limits.refusedKeys.requests, limits.refusedKeys.intervalMs) : undefined;
  const fairness = createFairness(limits, options.rateStore, refusedKeys);
  let isReady = false;
  void gateway.ready.then(() => (isReady = true), () => {});

  /**
   * Parsed with a token cap, then checked for shape (depth, aliases) before it is validated:
   * validation grows faster than the text, so the limits are met before it runs. Cached per text.
   */
  function prepare(text: string): PreparedDocument {
    const cached = documents.get(text);
    if (cached) return cached;
    let prepared: PreparedDocument;
    try {
      const document = parse(text, { noLocation: true, maxTokens: limits.maxTokens });
      for (const d of document.definitions) if (d.kind === 'OperationDefinition') checkShape(document, d, limits);
      const errors = validate(buildExecutableSchema(), document);
      prepared = errors.length > 0 ? errors.map((e) => new GraphQLError(e.message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) : document;
    } catch (err) {
      if (err instanceof Refusal) throw err;
      prepared = [new GraphQLError((err as Error).message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })];
    }
    documents.set(text, prepared);
    return prepared;
  }

  /** Why a persisted document cannot run (its parse, shape or validation errors), or undefined. */
  function persistedProblem(text: string): string | undefined {
    try {
      const prepared = prepare(text);
      return isDocument(prepared) ? undefined : prepared.map((e) => e.message).join('; ');
    } catch (err) {
      return (err as Error).message;
    }
  }

  function authenticate(request: Request, url: URL, address: string): Caller {
    const bearer = bearerOf(request);
    if (passThrough) {
      const key = url.searchParams.get('api_key') || bearer;
      if (!key) {
        const refused = new Refusal(401, 'a RunPod API key is required (?api_key= or Authorization: Bearer)', 'UNAUTHENTICATED', { 'www-authenticate': 'Bearer' });
        // Keyless: catalog reads only, with the operator's catalog key (the auth stage's third way).
        if (!catalogClient) throw refused;
        return { scope: 'catalog', keyless: refused, credential: undefined, client: () => catalogClient!, address, scrub: ownScrub, cacheId: '', account: 'catalog' };
      }
      // An address RunPod has refused too many keys from is not relayed again for a while.
      fairness.checkAddress(address);
      checkPassThroughKey(key);
      const entry = passThroughClients.get(key);
      // The caller's own key, scrubbed from its own answer only (it never enters shared state).
      scrubbers.set(request, entry.scrub);
      return { scope: 'write', credential: key, client: () => entry.client, address, scrub: entry.scrub, onRefusedKey: () => passThroughClients.drop(key), cacheId: key, account: key };
    }
    if (anonymous) return { scope: 'write', credential: undefined, client: () => serverClient!, address, scrub: ownScrub, cacheId: 'anonymous', account: 'server' };
    if (!bearer) {
      const refused = new Refusal(401, 'a gateway token is required: Authorization: Bearer <token>', 'UNAUTHENTICATED', { 'www-authenticate': 'Bearer' });
      if (!keyless) throw refused;
      return { scope: 'catalog', keyless: refused, credential: undefined, client: () => serverClient!, address, scrub: ownScrub, cacheId: '', account: 'server' };
    }
    const scope = tokens.get(bearer);
    if (!scope) throw new Refusal(401, 'the gateway token is not known', 'UNAUTHENTICATED', { 'www-authenticate': 'Bearer error="invalid_token"' });
    return { scope, credential: bearer, client: () => serverClient!, address, scrub: ownScrub, cacheId: bearer, account: 'server' };
  }

  /** The document text to run: a persisted one by id, or the request's own text where that is allowed. */
  function documentText(params: GraphQLParams): string {
    if (persisted) {
      if (params.documentId === undefined) throw new Refusal(400, 'this gateway runs persisted documents only: send { "documentId": "<id>" }', 'PERSISTED_QUERY_ONLY');
      const text = persisted.lookup(params.documentId);
      if (text === undefined) throw new Refusal(400, 'no persisted document has this id', 'PERSISTED_QUERY_NOT_FOUND');
      return text;
    }
    if (params.query !== undefined) return params.query;
    if (params.documentId !== undefined) throw new Refusal(400, 'this gateway has no persisted documents: send the document text in `query`', 'PERSISTED_QUERY_NOT_SUPPORTED');
    throw new Refusal(400, 'a GraphQL request needs `query`', 'BAD_REQUEST');
  }

  async function handle(request: Request, info?: GatewayRequestInfo): Promise<Response> {
    const ids = new RequestIds();
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return answer(request, ids, undefined, { status: 400, body: { errors: [{ message: 'bad request URL' }] } });
    }
    // Probes reveal nothing, and a load balancer's name them by the pod's address.
    if (url.pathname === '/healthz') return plain(200, 'ok');
    if (url.pathname === '/readyz') return isReady ? plain(200, 'ready') : plain(503, 'starting');
    if (ownScrub !== noScrub) scrubbers.set(request, ownScrub);
    const wrongHost = hosts.refuse(request, url);
    if (wrongHost) return refusal(request, undefined, wrongHost, ids);
    if (url.pathname !== '/graphql') return plain(404, 'not found: the gateway serves /graphql, /healthz and /readyz');

    const origin = request.headers.get('origin');
    const allowedOrigin = cors.allowed(origin, hosts.isOwnOrigin);
    if (origin !== null && allowedOrigin === undefined) cors.refused(origin);
    if (request.method === 'OPTIONS') return cors.preflight(request, allowedOrigin);
    const media = negotiate(request.headers.get('accept'));
    try {
      if (origin !== null && allowedOrigin === undefined) throw new Refusal(403, 'this origin may not call the gateway: the gateway allows it with --cors-origin', 'ORIGIN_DENIED');
      if (request.method !== 'GET' && request.method !== 'POST') throw new Refusal(405, 'the gateway accepts GET and POST', 'METHOD_NOT_ALLOWED', { allow: 'GET, POST, OPTIONS' });
      if (!media) throw new Refusal(406, `the gateway answers ${GRAPHQL_RESPONSE} or application/json`, 'NOT_ACCEPTABLE');
      if (!isReady) await gateway.ready;
      const caller = authenticate(request, url, info?.clientAddress ?? '');
      // A keyless caller's turn is taken only when its read goes upstream (a cached one costs none):
      // every keyless caller shares one rate, so a public page's viewers never use it up by looking.
      const taken = caller.keyless ? undefined : fairness.takeRate(caller.credential);
      if (taken) await taken;
      return await run(request, url, caller, media, allowedOrigin, ids, (operation) =>
        fairness.start({ credential: caller.credential, upstream: caller.client(), address: caller.address, onRefusedKey: caller.onRefusedKey }, operation, request.signal),
      );
    } catch (err) {
      return refusal(request, allowedOrigin, err, ids);
    }
  }

  async function run(
    request: Request,
    url: URL,
    caller: Caller,
    media: string,
    origin: string | undefined,
    ids: RequestIds,
    start: (operation: 'query' | 'mutation') => Turn,
  ): Promise<Response> {
    let params: GraphQLParams;
    if (request.method === 'GET') {
      if (url.search.length > limits.maxBodyBytes) throw new Refusal(414, `the query string is over the gateway's limit of ${limits.maxBodyBytes} bytes`, 'BODY_TOO_LARGE');
      params = paramsFromSearch(url.searchParams);
    } else {
      params = await paramsFromPost(request, limits.maxBodyBytes);
    }
    const text = documentText(params);
    // Documents that do not parse, validate or take their variables: 400 with either media type,
    // as RunPod's GraphQL answers them (the spec's SHOULD of 200 for JSON is for legacy servers
    // whose callers read no status; callers of RunPod's GraphQL read it). Never sent upstream.
    const invalid = (errors: readonly GatewayErrorEntry[]) => answer(request, ids, origin, { status: 400, body: { errors } }, media);
    const prepared = prepare(text);
    if (!isDocument(prepared)) return invalid(prepared.map((e) => ({ message: e.message, extensions: e.extensions })));
    const operation = getOperationAST(prepared, params.operationName);
    if (!operation) return invalid([{ message: params.operationName ? `no operation named "${params.operationName}"` : 'the document has several operations: name one in `operationName`', extensions: { code: 'BAD_REQUEST' } }]);
    if (operation.operation === 'subscription') throw new Refusal(400, 'subscriptions are not served', 'BAD_REQUEST');
    const catalogRead = readsOnlyCatalog(buildExecutableSchema(), prepared, operation);
    if (caller.keyless && !catalogRead) throw caller.keyless;
    if (operation.operation === 'mutation') {
      if (request.method === 'GET') throw new Refusal(405, 'mutations need POST', 'METHOD_NOT_ALLOWED', { allow: 'POST' });
      if (caller.scope !== 'write') throw new Refusal(403, `this token may run queries only (scope ${caller.scope})`, 'FORBIDDEN');
    }
    // Field by field, from the field map: a page's read token never reads Pod.env.
    const beyond = fieldsBeyondScope(buildExecutableSchema(), prepared, operation, caller.scope);
    if (beyond.length > 0) {
      throw new Refusal(403, `this token (scope ${caller.scope}) may not read ${beyond.join(', ')}: leave ${beyond.length > 1 ? 'them' : 'it'} out, or use a token of a wider scope`, 'FORBIDDEN');
    }
    const coerced = getVariableValues(buildExecutableSchema(), operation.variableDefinitions ?? [], params.variables ?? {});
    if (coerced.errors) return invalid(coerced.errors.map((e) => ({ message: e.message, extensions: { code: 'BAD_USER_INPUT' } })));
    const kind = operation.operation;
    const ran = (done: GatewayAnswer): RunOutcome => ({ answer: done, upstream: ids.toJSON().upstream.slice(), shareable: !request.signal.aborted, scrub: scrubbers.get(request) ?? noScrub });
    const execute = async (): Promise<RunOutcome> => {
      if (caller.keyless) {
        const taken = fairness.takeRate(undefined);
        if (taken) await taken;
      }
      let result: ExecutionResult;
      // In flight from here: the caller's limit, RunPod's pause, the deadline (fairness.ts).
      const turn = start(kind);
      try {
        // The client's one executor: RunPod's GraphQL, or schema.graphql in process over REST v2.
        // Each upstream answer's id is kept for the answer's `extensions.requestIds`.
        result = await caller.client().graphql.execute(text, params.variables, {
          operationName: params.operationName,
          signal: turn.signal,
          fetchOptions: turn.fetchOptions,
          onResponse: (info) => ids.add(info.requestId),
        });
      } catch (err) {
        const stopped = turn.stopped(err);
        if (stopped?.code === 'UPSTREAM_RATE_LIMITED') return ran(stoppedAnswer({ data: undefined }, stopped));
        if (stopped) throw stopped;
        ids.addFrom(undefined, err);
        return ran(thrownAnswer(err, passThrough));
      } finally {
        turn.end();
      }
      ids.addFrom(result.errors);
      const stopped = turn.stopped();
      // What ran before the gateway stopped it stays in the answer (a create's field error names its marker).
      if (stopped) return ran(stoppedAnswer(result, stopped));
      return ran(resultAnswer(noSource ? noSource(result) : result, passThrough));
    };
    if (!cache || operation.operation !== 'query') {
      // A mutation clears its account's cached reads, before it runs and once it ran.
      const mutation = cache !== undefined && operation.operation === 'mutation';
      if (mutation) await cache.invalidate(caller.account);
      try {
        return answer(request, ids, origin, (await execute()).answer, media);
      } finally {
        if (mutation) void cache.invalidate(caller.account);
      }
    }
    // Coalesce / response cache: after the scope check, so a cached answer meets the same checks as a fresh one.
    const cached = await cache.read(
      { kind: catalogRead ? 'catalog' : 'account', caller: caller.cacheId, account: caller.account, document: text, operationName: params.operationName, variables: params.variables, waitMs: limits.deadlineMs },
      execute,
    );
    if (cached.outcome !== 'miss') for (const id of cached.upstream) ids.add(id);
    return answer(request, ids, origin, cached.answer, media);
  }

  function refusal(request: Request, origin: string | undefined, err: unknown, ids: RequestIds): Response {
    const media = negotiate(request.headers.get('accept')) ?? 'application/json';
    if (err instanceof Refusal) return answer(request, ids, origin, { status: err.status, body: { errors: [{ message: err.message, extensions: { code: err.code } }] }, headers: err.headers }, media);
    ids.addFrom(undefined, err);
    return answer(request, ids, origin, thrownAnswer(err, passThrough), media);
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

function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
}

/**
 * The one way an answer leaves the gateway, with its request ids (`extensions.requestIds`, and the
 * gateway's own as `x-request-id`). Its text is scrubbed (in every spelling the redactor knows) of
 * the gateway's key and tokens, and in pass-through mode of the caller's own key, whatever produced
 * it: never with secrets other callers brought.
 */
function answer(request: Request, ids: RequestIds, origin: string | undefined, { status, body, headers: extra }: GatewayAnswer, media = 'application/json'): Response {
  const headers: Record<string, string> = { 'content-type': `${media}; charset=utf-8`, 'cache-control': 'no-store', vary: 'Origin', 'x-request-id': ids.gateway, ...extra };
  if (origin !== undefined) {
    headers['access-control-allow-origin'] = origin;
    headers['access-control-expose-headers'] = 'retry-after, www-authenticate, x-request-id';
  }
  const written: GatewayBody = { ...body, extensions: { ...body.extensions, requestIds: ids } };
  return new Response((scrubbers.get(request) ?? noScrub)(JSON.stringify(written)), { status, headers });
}

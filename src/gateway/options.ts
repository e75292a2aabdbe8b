// The options of createGateway, below both the gateway (create-gateway.ts) and its one resolved
// configuration (config.ts), which each read them.
import type { CacheEvent, ResponseCacheOptions } from './response-cache.js';
import type { RunpodClientOptions } from '../transport/options.js';
import type { PacingStore } from '../transport/pacing.js';
import type { GatewayLimits } from './limits.js';
import type { GatewayObserver } from './pipeline.js';
import type { OperatorRoutes } from './stages/probes.js';
import type { GatewayToken } from './tokens.js';

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
  /** Told how each read the cache stage saw was answered (`hit`, `miss`, `coalesced`), for metrics. */
  onCache?: ((event: CacheEvent) => void) | undefined;
}

/** One condition `/readyz` reflects: undefined while all is well. */
export type GatewayCondition = () => { readonly ready: boolean; readonly reason: string } | undefined;

// The `runpod-gql/gateway/node` entry: serves a gateway over HTTP (Node), and the command line of
// `runpod-gql gateway`. The only part of the gateway that needs Node.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { readGatewayConfigFile, type FlagValue, type GatewayConfigFile } from './service/config-file.js';
import { serveFetch } from '../emulator/serve-fetch.js';
import { RunpodError, ValidationError } from '../errors.js';
import type { PacingStore } from '../transport/pacing.js';
import { redactText } from '../transport/redact.js';
import { parseCorsHeaders, parseCorsOrigins } from './cors.js';
import { createGateway, type Gateway, type GatewayOptions, type GatewayUpstream } from './create-gateway.js';
import { connectionHangUp, HANG_UP, type Connection } from './hang-up.js';
import { bindGatewayAddress } from './host-check.js';
import { accessLog } from './service/access-log.js';
import { createGatewayMetrics } from './service/metrics.js';
import { parseGatewayTokens, tokenTable, type GatewayToken } from './tokens.js';
import type { ResponseCacheStore } from './response-cache.js';
import { listenerHeaderBytes } from './protocol.js';

export interface GatewayListenOptions {
  /** 0 picks a free port. @default 0 */
  port?: number | undefined;
  /** @default '127.0.0.1' */
  host?: string | undefined;
}

export interface ListeningGateway {
  /** `http://HOST:PORT` */
  readonly url: string;
  /** `http://HOST:PORT/graphql` */
  readonly graphqlUrl: string;
  /**
   * Stops. With `graceMs`, drains first: `/readyz` answers 503 at once and requests are still
   * served until none is in flight, for at most `graceMs`; then the listener stops and every
   * connection is closed. Resolves with the requests cut short (0: none). Calling it again does
   * nothing more.
   */
  close(graceMs?: number): Promise<number>;
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Serves `gateway` on `host:port` (loopback by default). A gateway that serves anonymous callers
 * is refused on any other address: anyone who could reach it would spend the key.
 */
export async function listen(gateway: Gateway, { port = 0, host = '127.0.0.1' }: GatewayListenOptions = {}): Promise<ListeningGateway> {
  if (gateway.anonymous && !isLoopback(host)) {
    throw new ValidationError('host', 'a gateway without tokens (--allow-anonymous) listens on loopback only: set RUNPOD_GATEWAY_TOKENS to serve other hosts');
  }
  // The peer's address, from the socket: refused pass-through keys are counted by it. The
  // connection's close is the caller's hang-up (hang-up.ts): the request's own signal is never built.
  const { server, url } = await serveFetch(
    (request: Request, env: unknown) => {
      const connection = env as (Connection & { incoming: { socket?: { remoteAddress?: string } } }) | undefined;
      const info = { clientAddress: connection?.incoming?.socket?.remoteAddress, [HANG_UP]: connection?.outgoing ? connectionHangUp(connection) : undefined };
      return gateway.fetch(request, info);
    },
    port,
    host,
    listenerHeaderBytes(gateway),
  );
  // The address bound is the gateway's own: its host is answered, and its pages are same-origin.
  bindGatewayAddress(gateway, url);
  const http = server as unknown as { closeAllConnections?: () => void; closeIdleConnections?: () => void; close(cb: (err?: Error) => void): void };
  let closing: Promise<number> | undefined;
  return {
    url,
    graphqlUrl: `${url}/graphql`,
    close(graceMs = 0) {
      closing ??= (async () => {
        // Draining: `/readyz` answers 503 at once, and the listener keeps serving while a load
        // balancer notices; it stops once no document is in flight, or at the grace's end.
        let cut = 0;
        let finished = true;
        if (graceMs > 0 && gateway.drain) {
          const done = gateway.drain().then(() => true);
          let timer: ReturnType<typeof setTimeout> | undefined;
          const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
          finished = await Promise.race([done, late]);
          clearTimeout(timer);
          if (!finished) cut = gateway.inFlight ?? 0;
        }
        const stopped = new Promise<void>((resolve, reject) => http.close((err?: Error) => (err ? reject(err) : resolve())));
        if (graceMs > 0 && finished) {
          // The last answers are being written: each connection is closed once idle, for a moment.
          const until = performance.now() + 1000;
          let over = false;
          void stopped.then(() => (over = true), () => (over = true));
          while (!over && performance.now() < until) {
            http.closeIdleConnections?.();
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
        http.closeAllConnections?.();
        await stopped;
        return cut;
      })();
      return closing;
    },
  };
}

/** The flags of `runpod-gql gateway`, as parsed (with a config file's keys, where one is given). */
export interface GatewayFlags {
  port: number;
  host: string;
  upstream: GatewayUpstream;
  passThroughKeys: boolean;
  allowAnonymous: boolean;
  corsOrigins: string[];
  corsHeaders: string[];
  allowedHosts: string[];
  publicScheme: 'https' | 'http';
  /** Persisted-document files, merged in order. */
  persisted: string[];
  nullForNoSource: boolean;
  redis: string | undefined;
  /** Gateways sharing the Redis: each takes 1/N of the rates while Redis is away. */
  gateways: number;
  maxDepth: number | undefined;
  maxAliases: number | undefined;
  maxBodyBytes: number | undefined;
  ratePerMinute: number | undefined;
  maxTokens: number | undefined;
  maxFragments: number | undefined;
  maxSpreads: number | undefined;
  maxInFlight: number | undefined;
  queueWaitMs: number | undefined;
  maxQueued: number | undefined;
  deadlineMs: number | undefined;
  pacingWaitMs: number | undefined;
  maxRefusedKeys: number | undefined;
  /** How long documents in flight may finish after SIGTERM. */
  drainMs: number;
  trustRequestId: boolean;
  /** `json`, `text`, `off`, or `auto` (JSON unless stdout is a terminal). */
  accessLog: 'auto' | 'json' | 'text' | 'off';
  /** The config file, when `--config` names one. */
  config: string | undefined;
  /** The flags given on the command line, as parsed (a config file's keys fill the others). */
  readonly given: Readonly<Record<string, FlagValue>>;
  maxUpstreamCalls: number | undefined;
  maxPages: number | undefined;
  maxItems: number | undefined;
  maxUpstreamInFlight: number | undefined;
  catalogKey: string | undefined;
  keyless: boolean;
  cache: boolean;
  cacheTtlMs: number | undefined;
  catalogCacheTtlMs: number | undefined;
}

export const GATEWAY_USAGE = `usage: runpod-gql gateway [options]
Serves RunPod's GraphQL schema at /graphql with the key from RUNPOD_API_KEY (RUNPOD_REST_URL and
RUNPOD_GRAPHQL_URL change the upstream). Callers send Authorization: Bearer <token>, tokens from
RUNPOD_GATEWAY_TOKENS=scope:TOKEN,… or [[token]] tables of --config. Scopes: catalog (the GPU
catalog only), read (queries, but not fields that can hold secrets such as Pod.env), write (all).
  --config <file>        settings in TOML: the keys are these flags' names without --, plus
                         [[token]] tables (scope, token or token-env, name, max-in-flight,
                         queue-wait-ms, rate-per-minute); a flag overrides its key
  --port <n>             port, 0 picks a free one (default 8788)
  --host <host>          address to listen on (default 127.0.0.1)
  --upstream <api>       rest (default), auto or graphql
  --pass-through-keys    use each caller's own RunPod key upstream; hold none
  --allow-anonymous      serve callers without a token (loopback only, no tokens set)
  --cors-origin <origin> allow pages from this origin, e.g. http://localhost:5173 (repeatable;
                         none by default; * is refused: any web page could spend the key)
  --cors-header <name>   a request header pages may send beyond the client's own (repeatable)
  --allowed-host <name>  answer this Host too, e.g. a proxy's name (repeatable; loopback
                         names and --host by default); its pages are same-origin
  --public-scheme <s>    the scheme pages reach --allowed-host names with: https (default) or http
  --persisted <file>     JSON id -> document text: run only these documents (repeatable: the
                         files are merged; one id with two texts is refused)
  --null-for-no-source   lossy: answer a nullable field REST v2 has no source for with null and
                         no error (each such field logged once); off by default
  --redis <url>          share pacing, per-caller rates and cached answers with other gateways
  --gateways <n>         gateways sharing --redis: while Redis is away each takes 1/n of
                         every rate (default 1)
  --catalog-key <key>    pass-through: the RunPod key keyless catalog reads are made with
                         (or RUNPOD_CATALOG_KEY, which keeps it out of the process list)
  --no-keyless           answer every request without a credential 401 (by default a keyless
                         document of catalog fields only is answered: GPU types, prices, data centres)
  --cache-ttl-ms <n>     how long an account read is kept, for its caller only (default 2000; 0: none)
  --catalog-cache-ttl-ms <n>
                         how long a catalog read is kept, for every caller (default 30000; 0: none)
  --no-cache             neither share identical reads in flight nor keep any answer
  --max-depth <n>        deepest nesting (default 10)
  --max-aliases <n>      most aliases per operation, through every spread (default 30)
  --max-tokens <n>       longest document, in tokens (default 1000)
  --max-fragments <n>    most fragments per document (default 50)
  --max-spreads <n>      most fragment spreads per selection (default 10)
  --max-body-bytes <n>   largest request (default 102400)
  --rate-per-minute <n>  upstream calls per caller per minute (default 300)
  --max-in-flight <n>    documents per caller running at once (default 4)
  --queue-wait-ms <n>    longest a caller's document waits for one of its slots, then 429
                         (default 10000; 0 refuses at once)
  --max-queued <n>       most documents of one caller waiting for a slot (default 64)
  --deadline-ms <n>      longest a document may run, then 504 (default 30000)
  --pacing-wait-ms <n>   longest wait for RunPod's rate limit, then 503 (default 2000)
  --max-refused-keys <n> pass-through keys RunPod may refuse per address per 10 minutes,
                         then 429 (default 10)
  --max-upstream-calls <n>    upstream calls one document may make (default 1000)
  --max-pages <n>             pages one list of a document is read to (default 200)
  --max-items <n>             items the lists of one document may hold (default 50000)
  --max-upstream-in-flight <n> upstream calls of one document at once (default 8)
  --drain-ms <n>         after SIGTERM, how long documents in flight may finish (default 25000)
  --trust-request-id     take each request's id from X-Request-Id (set by your proxy)
  --access-log <form>    one line per request on stdout: auto (JSON unless a terminal), json,
                         text or off (default auto)
Signals: SIGTERM and SIGINT drain (/readyz 503 at once), then exit 0; SIGHUP re-reads --config
and the --persisted files, keeping the old settings when the new ones are wrong.
Endpoints: /graphql, /healthz, /readyz, /metrics (Prometheus).`;

/** The flags' one definition: `parseArgs` reads it, and a config file's keys are checked against it. */
const FLAG_KINDS = {
  config: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  upstream: { type: 'string' },
  'pass-through-keys': { type: 'boolean' },
  'allow-anonymous': { type: 'boolean' },
  'cors-origin': { type: 'string', multiple: true },
  'cors-header': { type: 'string', multiple: true },
  'allowed-host': { type: 'string', multiple: true },
  'public-scheme': { type: 'string' },
  persisted: { type: 'string', multiple: true },
  'null-for-no-source': { type: 'boolean' },
  redis: { type: 'string' },
  gateways: { type: 'string' },
  'max-depth': { type: 'string' },
  'max-aliases': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'rate-per-minute': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-fragments': { type: 'string' },
  'max-spreads': { type: 'string' },
  'max-in-flight': { type: 'string' },
  'queue-wait-ms': { type: 'string' },
  'max-queued': { type: 'string' },
  'deadline-ms': { type: 'string' },
  'pacing-wait-ms': { type: 'string' },
  'max-refused-keys': { type: 'string' },
  'drain-ms': { type: 'string' },
  'trust-request-id': { type: 'boolean' },
  'access-log': { type: 'string' },
  'max-upstream-calls': { type: 'string' },
  'max-pages': { type: 'string' },
  'max-items': { type: 'string' },
  'max-upstream-in-flight': { type: 'string' },
  'catalog-key': { type: 'string' },
  'no-keyless': { type: 'boolean' },
  'cache-ttl-ms': { type: 'string' },
  'catalog-cache-ttl-ms': { type: 'string' },
  'no-cache': { type: 'boolean' },
} as const satisfies Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

type FlagName = keyof typeof FLAG_KINDS;

/** Parses `runpod-gql gateway` arguments; a wrong flag is a ValidationError naming it. */
export function parseGatewayArgs(argv: readonly string[]): GatewayFlags {
  let values: Record<string, FlagValue>;
  try {
    ({ values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: FLAG_KINDS }) as { values: Record<string, FlagValue> });
  } catch (err) {
    throw new ValidationError('arguments', (err as Error).message);
  }
  return flagsOf(values, {});
}

/**
 * The flags from `given` (the command line) over `file` (a config file's keys): each value is
 * checked where it was written, and a wrong one is named as the flag or as the file's key.
 */
function flagsOf(given: Readonly<Record<string, FlagValue>>, file: Readonly<Record<string, FlagValue>>, path?: string): GatewayFlags {
  const source = (name: FlagName) => (Object.hasOwn(given, name) || !Object.hasOwn(file, name) ? `--${name}` : `${path}: ${name}`);
  const value = (name: FlagName): FlagValue | undefined => (Object.hasOwn(given, name) ? given[name] : file[name]);
  const text = (name: FlagName) => value(name) as string | undefined;
  const list = (name: FlagName) => (value(name) as string[] | undefined) ?? [];
  const flag = (name: FlagName) => (value(name) as boolean | undefined) ?? false;
  const integer = (name: FlagName, min: number): number | undefined => {
    const t = text(name);
    if (t === undefined) return undefined;
    const n = Number(t);
    if (!/^\d+$/.test(t) || !Number.isSafeInteger(n) || n < min) throw new ValidationError(source(name), `must be an integer ≥ ${min}`);
    return n;
  };
  const oneOf = <T extends string>(name: FlagName, choices: readonly T[], fallback: T): T => {
    const t = text(name) ?? fallback;
    if (!choices.includes(t as T)) throw new ValidationError(source(name), `must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`);
    return t as T;
  };
  return {
    port: integer('port', 0) ?? 8788,
    host: text('host') ?? '127.0.0.1',
    upstream: oneOf('upstream', ['auto', 'rest', 'graphql'], 'rest'),
    passThroughKeys: flag('pass-through-keys'),
    allowAnonymous: flag('allow-anonymous'),
    corsOrigins: parseCorsOrigins(list('cors-origin'), source('cors-origin')),
    corsHeaders: parseCorsHeaders(list('cors-header'), source('cors-header')),
    allowedHosts: list('allowed-host'),
    publicScheme: oneOf('public-scheme', ['https', 'http'], 'https'),
    nullForNoSource: flag('null-for-no-source'),
    persisted: list('persisted'),
    redis: text('redis'),
    gateways: integer('gateways', 1) ?? 1,
    maxDepth: integer('max-depth', 1),
    maxAliases: integer('max-aliases', 1),
    maxBodyBytes: integer('max-body-bytes', 1),
    ratePerMinute: integer('rate-per-minute', 1),
    maxTokens: integer('max-tokens', 1),
    maxFragments: integer('max-fragments', 1),
    maxSpreads: integer('max-spreads', 1),
    maxInFlight: integer('max-in-flight', 1),
    queueWaitMs: integer('queue-wait-ms', 0),
    maxQueued: integer('max-queued', 1),
    deadlineMs: integer('deadline-ms', 1),
    pacingWaitMs: integer('pacing-wait-ms', 0),
    maxRefusedKeys: integer('max-refused-keys', 1),
    maxUpstreamCalls: integer('max-upstream-calls', 1),
    maxPages: integer('max-pages', 1),
    maxItems: integer('max-items', 1),
    maxUpstreamInFlight: integer('max-upstream-in-flight', 1),
    catalogKey: text('catalog-key'),
    keyless: !flag('no-keyless'),
    cache: !flag('no-cache'),
    cacheTtlMs: integer('cache-ttl-ms', 0),
    catalogCacheTtlMs: integer('catalog-cache-ttl-ms', 0),
    drainMs: integer('drain-ms', 0) ?? DEFAULT_DRAIN_MS,
    trustRequestId: flag('trust-request-id'),
    accessLog: oneOf('access-log', ['auto', 'json', 'text', 'off'], 'auto'),
    config: given.config as string | undefined,
    given,
  };
}

/** After SIGTERM: under Kubernetes' default grace of 30 s, with room to exit. */
const DEFAULT_DRAIN_MS = 25_000;

export interface RunningGateway extends ListeningGateway {
  /**
   * Drains (`/readyz` 503 at once, documents in flight get `graceMs`, default the flags'
   * `--drain-ms`), then closes the listener and the Redis store, if any. Resolves with the
   * requests cut short.
   */
  close(graceMs?: number): Promise<number>;
  /**
   * Re-reads the config file and the persisted files, and replaces the tokens and documents
   * without dropping a request. Rejects with a ValidationError naming the flag or key when the new
   * settings are wrong: the old ones stay. Resolves with what changed that needs a restart.
   */
  reload(): Promise<string[]>;
}

const LIMIT_FLAGS: Readonly<Record<string, string>> = {
  maxDepth: '--max-depth',
  maxAliases: '--max-aliases',
  maxBodyBytes: '--max-body-bytes',
  rate: '--rate-per-minute',
  maxTokens: '--max-tokens',
  maxFragments: '--max-fragments',
  maxSpreadsPerSelection: '--max-spreads',
  maxInFlight: '--max-in-flight',
  queueWaitMs: '--queue-wait-ms',
  maxQueued: '--max-queued',
  deadlineMs: '--deadline-ms',
  pacingWaitMs: '--pacing-wait-ms',
  refusedKeys: '--max-refused-keys',
  maxUpstreamCalls: '--max-upstream-calls',
  maxPages: '--max-pages',
  maxItems: '--max-items',
  maxUpstreamInFlight: '--max-upstream-in-flight',
};

/**
 * Where each option of createGateway comes from on the command line: its refusals reach an
 * operator, who set a flag, a config key or a variable, never an option.
 */
const OPTION_SOURCES: Readonly<Record<string, string>> = {
  tokens: 'RUNPOD_GATEWAY_TOKENS',
  apiKey: 'RUNPOD_API_KEY',
  'client.apiKey': 'RUNPOD_API_KEY',
  restUrl: 'RUNPOD_REST_URL',
  graphqlUrl: 'RUNPOD_GRAPHQL_URL',
  upstream: '--upstream',
  host: '--host',
  corsOrigins: '--cors-origin',
  corsHeaders: '--cors-header',
  allowedHosts: '--allowed-host',
  publicScheme: '--public-scheme',
  persisted: '--persisted',
  ...Object.fromEntries(Object.entries(LIMIT_FLAGS).map(([option, flag]) => [`limits.${option}`, flag])),
  catalogKey: '--catalog-key (or RUNPOD_CATALOG_KEY)',
};

/** `err` renamed to the flag or variable the operator set, when it names an option. */
function operatorError(err: unknown): unknown {
  if (!(err instanceof ValidationError) || err.name !== 'ValidationError') return err;
  const [head = '', ...rest] = err.field.split('.');
  const source = OPTION_SOURCES[err.field] ?? (head === 'persisted' ? `--persisted (document ${rest.join('.')})` : undefined);
  if (source === undefined) return err;
  // `--allowed-host` takes names; the library's advice names its own option.
  const message = err.message.slice(err.field.length + 2).replace(/publicScheme: http/g, '--public-scheme http');
  return new ValidationError(source, message);
}

/** Runs `create`, renaming a ValidationError's option to the flag or variable the operator set. */
function inOperatorTerms<T>(create: () => T): T {
  try {
    return create();
  } catch (err) {
    throw operatorError(err);
  }
}

/**
 * The Redis store's module, loaded only when `--redis` asks for it: ioredis is an optional peer
 * dependency, and without it the operator is told what to install, not shown a module stack.
 */
async function loadRedisStore(): Promise<typeof import('../pacing/redis.js')> {
  try {
    return await import('../pacing/redis.js');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && /ioredis/.test(String((err as Error).message))) {
      throw new ValidationError('--redis', 'needs the ioredis package, which is not installed: run `npm i ioredis` where runpod-gql is installed, or leave out --redis to keep rates in this process');
    }
    throw err;
  }
}

/**
 * The persisted documents of `files`, merged in order. The same id in two files is accepted when
 * its text is the same (the package's documents and the app's may share one), and refused,
 * naming both files, when it is not.
 */
async function readPersistedFiles(files: readonly string[], source: (file: string) => string): Promise<Record<string, string> | undefined> {
  if (files.length === 0) return undefined;
  const merged: Record<string, string> = {};
  const from: Record<string, string> = {};
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new ValidationError(source(file), `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    let documents: unknown;
    try {
      documents = JSON.parse(text);
    } catch {
      throw new ValidationError(source(file), `${file} is not JSON`);
    }
    if (typeof documents !== 'object' || documents === null || Array.isArray(documents)) throw new ValidationError(source(file), `${file} must be a JSON object of document id to document text`);
    for (const [id, body] of Object.entries(documents as Record<string, unknown>)) {
      if (Object.hasOwn(merged, id) && merged[id] !== body) {
        throw new ValidationError(source(file), `${from[id]} and ${file} both hold document ${JSON.stringify(id.slice(0, 100))}, with different texts: keep one, or give one another id`);
      }
      merged[id] = body as string;
      from[id] = file;
    }
  }
  return merged;
}

/** What the command line resolves from its config file, environment and flags. */
interface Resolved {
  readonly flags: GatewayFlags;
  readonly file: GatewayConfigFile | undefined;
  readonly tokens: readonly GatewayToken[];
  readonly persisted: Record<string, string> | undefined;
}

/** The config file (if any), then the environment, then the flags: checked, with every refusal naming its flag, key or variable. */
async function resolveSettings(given: GatewayFlags, env: Record<string, string | undefined>): Promise<Resolved> {
  const file = given.config === undefined ? undefined : await readGatewayConfigFile(given.config, FLAG_KINDS, env);
  const flags = file ? flagsOf(given.given, file.values, file.path) : given;
  const fromEnv = env.RUNPOD_GATEWAY_TOKENS ? parseGatewayTokens(env.RUNPOD_GATEWAY_TOKENS) : [];
  const tokens = [...fromEnv, ...(file?.tokens ?? [])];
  // Checked here so that each entry is named as the operator wrote it (a variable's entry, or the file's table).
  tokenTable(tokens, (index) => (index < fromEnv.length ? `RUNPOD_GATEWAY_TOKENS entry ${index + 1}` : `${file!.path}: [[token]] ${index - fromEnv.length + 1}`));
  const persistedSource = () => (Object.hasOwn(given.given, 'persisted') || !file ? '--persisted' : `${file.path}: persisted`);
  const persisted = await readPersistedFiles(flags.persisted, persistedSource);
  return { flags, file, tokens, persisted };
}

/** The settings that take effect only on a restart, by key, to say which changed on a reload. */
const RESTART_ONLY: ReadonlyArray<keyof GatewayFlags> = ['port', 'host', 'upstream', 'passThroughKeys', 'allowAnonymous', 'corsOrigins', 'corsHeaders', 'allowedHosts', 'publicScheme', 'redis', 'gateways', 'nullForNoSource', 'maxDepth', 'maxAliases', 'maxBodyBytes', 'ratePerMinute', 'maxTokens', 'maxFragments', 'maxSpreads', 'maxInFlight', 'queueWaitMs', 'maxQueued', 'deadlineMs', 'pacingWaitMs', 'maxRefusedKeys', 'maxUpstreamCalls', 'maxPages', 'maxItems', 'maxUpstreamInFlight', 'catalogKey', 'keyless', 'cache', 'cacheTtlMs', 'catalogCacheTtlMs', 'trustRequestId', 'accessLog'];

/** The flag a restart-only setting is written as, where it is not its key in kebab case. */
const RESTART_NAMES: Partial<Record<keyof GatewayFlags, string>> = { keyless: 'no-keyless', cache: 'no-cache' };

/** How the gateway's own lines reach the operator: stderr, one line each, scrubbed. */
const note = (message: string) => console.error(`runpod-gql gateway: ${redactText(message)}`);

/**
 * Starts a gateway from parsed flags and an environment (and the config file `--config` names).
 * Refuses to start (a RunpodError) with no token unless `--allow-anonymous` on loopback, or
 * without RUNPOD_API_KEY outside pass-through.
 */
export async function startGateway(given: GatewayFlags, env: Record<string, string | undefined> = process.env): Promise<RunningGateway> {
  let resolved = await resolveSettings(given, env);
  const { flags } = resolved;
  if (flags.allowAnonymous && !isLoopback(flags.host)) {
    throw new ValidationError('--allow-anonymous', 'is accepted on a loopback address only (--host 127.0.0.1)');
  }
  if (flags.catalogKey !== undefined && !flags.passThroughKeys) {
    const source = Object.hasOwn(given.given, 'catalog-key') || !resolved.file ? '--catalog-key' : `${resolved.file.path}: catalog-key`;
    throw new ValidationError(source, 'is for --pass-through-keys: otherwise keyless catalog reads are made with the gateway\'s own key (RUNPOD_API_KEY)');
  }
  let store: (PacingStore & { close(): Promise<void>; check(): Promise<boolean>; readonly mode: 'redis' | 'local' }) | undefined;
  let cacheStore: (ResponseCacheStore & { close(): Promise<void> }) | undefined;
  if (flags.redis !== undefined) {
    const { createRedisPacingStore } = await loadRedisStore();
    store = createRedisPacingStore({
      redis: flags.redis,
      processes: flags.gateways,
      onWarning: (message) => note(`${message}${flags.gateways > 1 ? ` (each of the ${flags.gateways} gateways takes 1/${flags.gateways} of every rate meanwhile)` : ''}; /readyz says so`),
      onRecovered: () => note('Redis answers again: pacing and per-caller rates are shared again'),
    });
    // A Redis that is not there is said at once, not at the first request (the gateway still starts: rates are per process until it answers).
    await store.check();
    if (flags.cache) {
      const { createRedisResponseCacheStore } = await import('../pacing/redis-response-cache.js');
      cacheStore = createRedisResponseCacheStore({ redis: flags.redis, onWarning: (message) => console.error(redactText(message)) });
    }
  }
  const closeStores = () => Promise.all([store?.close(), cacheStore?.close()]);
  const metrics = createGatewayMetrics();
  const json = flags.accessLog === 'json' || (flags.accessLog === 'auto' && !process.stdout.isTTY);
  const observers = [metrics.observer, ...(flags.accessLog === 'off' ? [] : [accessLog((line) => process.stdout.write(`${line}\n`), json)])];
  let gateway: ReturnType<typeof createGateway> | undefined;
  const redisCondition = () => (store?.mode === 'local' ? { ready: true, reason: 'Redis unreachable: pacing and per-caller rates are per process' } : undefined);
  const options: GatewayOptions = {
    client: {
      ...(flags.passThroughKeys ? {} : { apiKey: env.RUNPOD_API_KEY }),
      restUrl: env.RUNPOD_REST_URL || undefined,
      graphqlUrl: env.RUNPOD_GRAPHQL_URL || undefined,
      pacingStore: store,
    },
    upstream: flags.upstream,
    tokens: resolved.tokens,
    allowAnonymous: flags.allowAnonymous,
    passThroughKeys: flags.passThroughKeys,
    corsOrigins: flags.corsOrigins,
    corsHeaders: flags.corsHeaders,
    allowedHosts: flags.allowedHosts.includes('*') ? '*' : flags.allowedHosts,
    publicScheme: flags.publicScheme,
    trustRequestId: flags.trustRequestId,
    nullForNoSource: flags.nullForNoSource,
    persisted: resolved.persisted,
    rateStore: store,
    observers,
    conditions: [redisCondition],
    routes: {
      '/metrics': () => {
        metrics.setCondition('redis_up', store === undefined || store.mode === 'redis');
        metrics.setCondition('upstream_key_accepted', gateway?.readiness()?.reason !== 'upstream key refused');
        return metrics.respond();
      },
    },
    keyless: flags.keyless,
    // '' rather than undefined: the gateway reads this environment, not the process's.
    catalogKey: flags.passThroughKeys ? (flags.catalogKey ?? env.RUNPOD_CATALOG_KEY ?? '') : undefined,
    cache: flags.cache ? { accountTtlMs: flags.cacheTtlMs, catalogTtlMs: flags.catalogCacheTtlMs, store: cacheStore } : false,
    limits: {
      maxDepth: flags.maxDepth,
      maxAliases: flags.maxAliases,
      maxBodyBytes: flags.maxBodyBytes,
      rate: flags.ratePerMinute === undefined ? undefined : { requests: flags.ratePerMinute, intervalMs: 60_000 },
      maxTokens: flags.maxTokens,
      maxFragments: flags.maxFragments,
      maxSpreadsPerSelection: flags.maxSpreads,
      maxInFlight: flags.maxInFlight,
      queueWaitMs: flags.queueWaitMs,
      maxQueued: flags.maxQueued,
      deadlineMs: flags.deadlineMs,
      pacingWaitMs: flags.pacingWaitMs,
      refusedKeys: flags.maxRefusedKeys === undefined ? undefined : { requests: flags.maxRefusedKeys, intervalMs: 600_000 },
      maxUpstreamCalls: flags.maxUpstreamCalls,
      maxPages: flags.maxPages,
      maxItems: flags.maxItems,
      maxUpstreamInFlight: flags.maxUpstreamInFlight,
    },
  };
  let server: ListeningGateway;
  try {
    gateway = inOperatorTerms(() => createGateway(options));
    await gateway.ready;
    server = await listen(gateway, { port: flags.port, host: flags.host }).catch((err: NodeJS.ErrnoException) => {
      if (err instanceof RunpodError) throw err;
      throw new RunpodError(`cannot serve on ${flags.host}:${flags.port}: ${err.code === 'EADDRINUSE' ? 'the port is in use' : err.message}`);
    });
  } catch (err) {
    await closeStores();
    throw err;
  }
  const running = gateway;
  return {
    url: server.url,
    graphqlUrl: server.graphqlUrl,
    close: async (graceMs = flags.drainMs) => {
      const cut = await server.close(graceMs);
      await closeStores();
      return cut;
    },
    async reload() {
      const next = await resolveSettings(given, env);
      try {
        await running.reload({ tokens: next.tokens, persisted: next.persisted });
      } catch (err) {
        throw operatorError(err);
      }
      const before = resolved.flags;
      resolved = next;
      return RESTART_ONLY.filter((key) => JSON.stringify(before[key]) !== JSON.stringify(next.flags[key])).map((key) => RESTART_NAMES[key] ?? key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));
    },
  };
}

/**
 * Starts from flags, prints exactly one line once ready, and serves until SIGINT or SIGTERM: then
 * `/readyz` turns 503, documents in flight get `--drain-ms` to finish, and it resolves (exit 0).
 * SIGHUP re-reads the config file and the persisted files; a wrong reload keeps the old settings
 * and says why. A refusal to start rejects with its RunpodError (ValidationError names the flag or variable).
 */
export async function serveGateway(flags: GatewayFlags, env: Record<string, string | undefined> = process.env): Promise<void> {
  const running = await startGateway(flags, env);
  console.log(`runpod-gql gateway: listening on ${running.graphqlUrl}`);
  let reloading = Promise.resolve();
  const reload = () => {
    reloading = reloading.then(async () => {
      try {
        const restart = await running.reload();
        note(`reloaded the tokens and persisted documents${restart.length > 0 ? `; changed, and taking effect on a restart only: ${restart.join(', ')}` : ''}`);
      } catch (err) {
        note(`reload refused, the previous settings stay: ${err instanceof RunpodError ? err.message : redactText(String(err))}`);
      }
    });
  };
  process.on('SIGHUP', reload);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      note(`${signal}: draining (/readyz answers 503); documents in flight have ${flags.drainMs} ms to finish`);
      // A second signal while draining ends it now, cutting what is still in flight.
      const now = () => {
        note('a second signal: stopping now, without waiting for the documents in flight');
        process.exit(1);
      };
      process.once('SIGINT', now);
      process.once('SIGTERM', now);
      void running.close().then(
        (cut) => {
          note(cut > 0 ? `stopped: ${cut} requests were cut at the drain deadline` : 'stopped: every document in flight was answered');
          resolve();
        },
        () => resolve(),
      );
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
  process.off('SIGHUP', reload);
}

/**
 * `runpod-gql gateway ARGS`: resolves with the exit code once stopped (2 for a refusal to start,
 * with its reason on stderr).
 */
export async function main(argv: readonly string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(GATEWAY_USAGE);
    return 0;
  }
  try {
    await serveGateway(parseGatewayArgs(argv), env);
    return 0;
  } catch (err) {
    console.error(`runpod-gql gateway: ${err instanceof RunpodError ? err.message : redactText(String(err))}`);
    return 2;
  }
}

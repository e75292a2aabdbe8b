// The `runpod-gql/gateway/node` entry: serves a gateway over HTTP (Node), and the command line of
// `runpod-gql gateway`. The only part of the gateway that needs Node.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { serveFetch } from '../emulator/serve-fetch.js';
import { RunpodError, ValidationError } from '../errors.js';
import type { PacingStore } from '../transport/pacing.js';
import { redactText } from '../transport/redact.js';
import { parseCorsHeaders, parseCorsOrigins } from './cors.js';
import { createGateway, type Gateway, type GatewayOptions, type GatewayUpstream } from './create-gateway.js';
import { bindGatewayAddress } from './host-check.js';
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
  /** Stops listening; calling it again does nothing. */
  close(): Promise<void>;
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
  // The peer's address, from the socket: refused pass-through keys are counted by it.
  const { server, url } = await serveFetch((request: Request, env: unknown) => gateway.fetch(request, { clientAddress: (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress }), port, host, listenerHeaderBytes(gateway));
  // The address bound is the gateway's own: its host is answered, and its pages are same-origin.
  bindGatewayAddress(gateway, url);
  let closing: Promise<void> | undefined;
  return {
    url,
    graphqlUrl: `${url}/graphql`,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close((err?: Error) => (err ? reject(err) : resolve()));
      });
      return closing;
    },
  };
}

/** The flags of `runpod-gql gateway`, as parsed. */
export interface GatewayFlags {
  port: number;
  host: string;
  upstream: GatewayUpstream;
  passThroughKeys: boolean;
  allowAnonymous: boolean;
  corsOrigins: string[];
  corsHeaders: string[];
  allowedHosts: string[];
  persisted: string | undefined;
  nullForNoSource: boolean;
  redis: string | undefined;
  maxDepth: number | undefined;
  maxAliases: number | undefined;
  maxBodyBytes: number | undefined;
  ratePerMinute: number | undefined;
  maxTokens: number | undefined;
  maxFragments: number | undefined;
  maxSpreads: number | undefined;
  maxInFlight: number | undefined;
  deadlineMs: number | undefined;
  pacingWaitMs: number | undefined;
  maxRefusedKeys: number | undefined;
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
RUNPOD_GATEWAY_TOKENS=read:TOKEN,write:TOKEN (read: queries only).
  --port <n>             port, 0 picks a free one (default 8788)
  --host <host>          address to listen on (default 127.0.0.1)
  --upstream <api>       rest (default), auto or graphql
  --pass-through-keys    use each caller's own RunPod key upstream; hold none
  --allow-anonymous      serve callers without a token (loopback only, no tokens set)
  --cors-origin <origin> allow pages from this origin, e.g. http://localhost:5173 (repeatable;
                         none by default; * is refused: any web page could spend the key)
  --cors-header <name>   a request header pages may send beyond the client's own (repeatable)
  --allowed-host <name>  answer this Host too, e.g. a proxy's name (repeatable; loopback
                         names and --host by default)
  --persisted <file>     JSON id -> document text: run only these documents
  --null-for-no-source   lossy: answer a nullable field REST v2 has no source for with null and
                         no error (each such field logged once); off by default
  --redis <url>          share pacing, per-caller rates and cached answers with other gateways
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
  --deadline-ms <n>      longest a document may run, then 504 (default 30000)
  --pacing-wait-ms <n>   longest wait for RunPod's rate limit, then 503 (default 2000)
  --max-refused-keys <n> pass-through keys RunPod may refuse per address per 10 minutes,
                         then 429 (default 10)
  --max-upstream-calls <n>    upstream calls one document may make (default 1000)
  --max-pages <n>             pages one list of a document is read to (default 200)
  --max-items <n>             items the lists of one document may hold (default 50000)
  --max-upstream-in-flight <n> upstream calls of one document at once (default 8)`;

function integer(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min) throw new ValidationError(`--${name}`, `must be an integer ≥ ${min}`);
  return n;
}

/** Parses `runpod-gql gateway` arguments; a wrong flag is a ValidationError naming it. */
export function parseGatewayArgs(argv: readonly string[]): GatewayFlags {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        upstream: { type: 'string' },
        'pass-through-keys': { type: 'boolean' },
        'allow-anonymous': { type: 'boolean' },
        'cors-origin': { type: 'string', multiple: true },
        'cors-header': { type: 'string', multiple: true },
        'allowed-host': { type: 'string', multiple: true },
        persisted: { type: 'string' },
        'null-for-no-source': { type: 'boolean' },
        redis: { type: 'string' },
        'max-depth': { type: 'string' },
        'max-aliases': { type: 'string' },
        'max-body-bytes': { type: 'string' },
        'rate-per-minute': { type: 'string' },
        'max-tokens': { type: 'string' },
        'max-fragments': { type: 'string' },
        'max-spreads': { type: 'string' },
        'max-in-flight': { type: 'string' },
        'deadline-ms': { type: 'string' },
        'pacing-wait-ms': { type: 'string' },
        'max-refused-keys': { type: 'string' },
        'max-upstream-calls': { type: 'string' },
        'max-pages': { type: 'string' },
        'max-items': { type: 'string' },
        'max-upstream-in-flight': { type: 'string' },
        'catalog-key': { type: 'string' },
        'no-keyless': { type: 'boolean' },
        'cache-ttl-ms': { type: 'string' },
        'catalog-cache-ttl-ms': { type: 'string' },
        'no-cache': { type: 'boolean' },
      },
    }));
  } catch (err) {
    throw new ValidationError('arguments', (err as Error).message);
  }
  const upstream = values.upstream ?? 'rest';
  if (upstream !== 'auto' && upstream !== 'rest' && upstream !== 'graphql') throw new ValidationError('--upstream', 'must be auto, rest or graphql');
  return {
    port: integer('port', values.port, 0) ?? 8788,
    host: values.host ?? '127.0.0.1',
    upstream,
    passThroughKeys: values['pass-through-keys'] ?? false,
    allowAnonymous: values['allow-anonymous'] ?? false,
    corsOrigins: parseCorsOrigins(values['cors-origin'] ?? [], '--cors-origin'),
    corsHeaders: parseCorsHeaders(values['cors-header'] ?? [], '--cors-header'),
    allowedHosts: values['allowed-host'] ?? [],
    nullForNoSource: values['null-for-no-source'] ?? false,
    persisted: values.persisted,
    redis: values.redis,
    maxDepth: integer('max-depth', values['max-depth'], 1),
    maxAliases: integer('max-aliases', values['max-aliases'], 1),
    maxBodyBytes: integer('max-body-bytes', values['max-body-bytes'], 1),
    ratePerMinute: integer('rate-per-minute', values['rate-per-minute'], 1),
    maxTokens: integer('max-tokens', values['max-tokens'], 1),
    maxFragments: integer('max-fragments', values['max-fragments'], 1),
    maxSpreads: integer('max-spreads', values['max-spreads'], 1),
    maxInFlight: integer('max-in-flight', values['max-in-flight'], 1),
    deadlineMs: integer('deadline-ms', values['deadline-ms'], 1),
    pacingWaitMs: integer('pacing-wait-ms', values['pacing-wait-ms'], 0),
    maxRefusedKeys: integer('max-refused-keys', values['max-refused-keys'], 1),
    maxUpstreamCalls: integer('max-upstream-calls', values['max-upstream-calls'], 1),
    maxPages: integer('max-pages', values['max-pages'], 1),
    maxItems: integer('max-items', values['max-items'], 1),
    maxUpstreamInFlight: integer('max-upstream-in-flight', values['max-upstream-in-flight'], 1),
    catalogKey: values['catalog-key'],
    keyless: !(values['no-keyless'] ?? false),
    cache: !(values['no-cache'] ?? false),
    cacheTtlMs: integer('cache-ttl-ms', values['cache-ttl-ms'], 0),
    catalogCacheTtlMs: integer('catalog-cache-ttl-ms', values['catalog-cache-ttl-ms'], 0),
  };
}

export interface RunningGateway extends ListeningGateway {
  /** Closes the listener and the Redis store, if any. */
  close(): Promise<void>;
}

/**
 * Where each option of createGateway comes from on the command line: its refusals reach an
 * operator, who set a flag or a variable, never an option.
 */
const OPTION_SOURCES: Readonly<Record<string, string>> = {
  tokens: 'RUNPOD_GATEWAY_TOKENS',
  apiKey: 'RUNPOD_API_KEY',
  'client.apiKey': 'RUNPOD_API_KEY',
  restUrl: 'RUNPOD_REST_URL',
  graphqlUrl: 'RUNPOD_GRAPHQL_URL',
  upstream: '--upstream',
  corsOrigins: '--cors-origin',
  corsHeaders: '--cors-header',
  persisted: '--persisted',
  'limits.maxDepth': '--max-depth',
  'limits.maxAliases': '--max-aliases',
  'limits.maxBodyBytes': '--max-body-bytes',
  'limits.rate': '--rate-per-minute',
  catalogKey: '--catalog-key (or RUNPOD_CATALOG_KEY)',
};

/** Runs `create`, renaming a ValidationError's option to the flag or variable the operator set. */
function inOperatorTerms<T>(create: () => T): T {
  try {
    return create();
  } catch (err) {
    if (!(err instanceof ValidationError) || err.name !== 'ValidationError') throw err;
    const [head = '', ...rest] = err.field.split('.');
    const source = OPTION_SOURCES[err.field] ?? (head === 'persisted' ? `--persisted (document ${rest.join('.')})` : undefined);
    if (source === undefined) throw err;
    throw new ValidationError(source, err.message.slice(err.field.length + 2));
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
 * Starts a gateway from parsed flags and an environment. Refuses to start (a RunpodError) with no
 * token unless `--allow-anonymous` on loopback, or without RUNPOD_API_KEY outside pass-through.
 */
export async function startGateway(flags: GatewayFlags, env: Record<string, string | undefined> = process.env): Promise<RunningGateway> {
  if (flags.allowAnonymous && !isLoopback(flags.host)) {
    throw new ValidationError('--allow-anonymous', 'is accepted on a loopback address only (--host 127.0.0.1)');
  }
  if (flags.catalogKey !== undefined && !flags.passThroughKeys) {
    throw new ValidationError('--catalog-key', 'is for --pass-through-keys: otherwise keyless catalog reads are made with the gateway\'s own key (RUNPOD_API_KEY)');
  }
  let persisted: Record<string, string> | undefined;
  if (flags.persisted !== undefined) {
    let text: string;
    try {
      text = await readFile(flags.persisted, 'utf8');
    } catch (err) {
      throw new ValidationError('--persisted', `cannot read the file: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    try {
      persisted = JSON.parse(text) as Record<string, string>;
    } catch {
      throw new ValidationError('--persisted', 'the file is not JSON');
    }
  }
  let store: (PacingStore & { close(): Promise<void> }) | undefined;
  let cacheStore: (ResponseCacheStore & { close(): Promise<void> }) | undefined;
  if (flags.redis !== undefined) {
    const { createRedisPacingStore } = await loadRedisStore();
    store = createRedisPacingStore({ redis: flags.redis, onWarning: (message) => console.error(`runpod-gql gateway: ${redactText(message)}`) });
    if (flags.cache) {
      const { createRedisResponseCacheStore } = await import('../pacing/redis-response-cache.js');
      cacheStore = createRedisResponseCacheStore({ redis: flags.redis, onWarning: (message) => console.error(redactText(message)) });
    }
  }
  const closeStores = () => Promise.all([store?.close(), cacheStore?.close()]);
  const options: GatewayOptions = {
    client: {
      ...(flags.passThroughKeys ? {} : { apiKey: env.RUNPOD_API_KEY }),
      restUrl: env.RUNPOD_REST_URL || undefined,
      graphqlUrl: env.RUNPOD_GRAPHQL_URL || undefined,
      pacingStore: store,
    },
    upstream: flags.upstream,
    tokens: env.RUNPOD_GATEWAY_TOKENS ?? '',
    allowAnonymous: flags.allowAnonymous,
    passThroughKeys: flags.passThroughKeys,
    corsOrigins: flags.corsOrigins,
    corsHeaders: flags.corsHeaders,
    allowedHosts: flags.allowedHosts.includes('*') ? '*' : flags.allowedHosts,
    nullForNoSource: flags.nullForNoSource,
    persisted,
    rateStore: store,
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
    const gateway = inOperatorTerms(() => createGateway(options));
    await gateway.ready;
    server = await listen(gateway, { port: flags.port, host: flags.host }).catch((err: NodeJS.ErrnoException) => {
      if (err instanceof RunpodError) throw err;
      throw new RunpodError(`cannot serve on ${flags.host}:${flags.port}: ${err.code === 'EADDRINUSE' ? 'the port is in use' : err.message}`);
    });
  } catch (err) {
    await closeStores();
    throw err;
  }
  return {
    url: server.url,
    graphqlUrl: server.graphqlUrl,
    close: async () => {
      await server.close();
      await closeStores();
    },
  };
}

/**
 * Starts from flags, prints exactly one line once ready, and serves until SIGINT or SIGTERM.
 * A refusal to start rejects with its RunpodError (ValidationError names the flag or variable).
 */
export async function serveGateway(flags: GatewayFlags, env: Record<string, string | undefined> = process.env): Promise<void> {
  const running = await startGateway(flags, env);
  console.log(`runpod-gql gateway: listening on ${running.graphqlUrl}`);
  await new Promise<void>((resolve) => {
    const stop = () => void running.close().then(resolve, resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
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

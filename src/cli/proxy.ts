// The CLI honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY (and their lower-case spellings), as gh and
// npm do. The library never reads them (its core is plain fetch, in every runtime); the CLI passes
// undici's EnvHttpProxyAgent as `fetchOptions.dispatcher`. undici is imported only when a proxy
// variable is set, so every other run starts as fast as before.
import type { Dispatcher } from 'undici';
import { UsageError } from './errors.js';

/** How long the proxy has to answer a CONNECT (its TCP connect has undici's own 10 s bound). */
export const TUNNEL_ANSWER_MS = 10_000;

/**
 * The code of a tunnel the proxy dropped before answering its CONNECT: nothing reached RunPod.
 * undici 8 names it so (ProxyConnectionError); undici 7, the last line for Node 20, does not.
 */
export const TUNNEL_DROPPED = 'UND_ERR_PRX_CONN';

/** The variables that name a proxy; NO_PROXY alone needs no agent. */
const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const;

/** What the session keeps: the options for the client, and how to let go of the agent's sockets. */
export interface ProxySetup {
  fetchOptions: { dispatcher: Dispatcher };
  close(): Promise<void>;
}

/**
 * The proxy agent for this environment, or undefined when no proxy variable is set. A value that
 * is not a URL is a usage error naming the variable, never echoing it (it may hold `user:password@`).
 */
export async function proxyFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<ProxySetup | undefined> {
  const set = PROXY_VARIABLES.filter((name) => env[name]?.trim());
  if (set.length === 0) return undefined;
  for (const name of set) {
    const value = env[name]!.trim();
    // undici reads a value without a scheme as a URL too, and fails later, per request; refuse it here.
    if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
      throw new UsageError(`configuration error: ${name} is not an http(s) proxy URL (expected e.g. http://proxy.internal:3128)`);
    }
  }
  const { EnvHttpProxyAgent, Pool } = await import('undici');
  // The pool that talks to the proxy itself. undici 7 reads a socket the proxy closes while the
  // CONNECT is unanswered as a recoverable socket error, keeps the request queued and reconnects at
  // once, for ever (nodejs/undici#3897: tens of thousands of connections in seconds). Renamed, the
  // error fails the request, and the client's bounded retries decide what happens next.
  const clientFactory = (origin: URL, options: object): Dispatcher => {
    const pool = new Pool(origin, { ...options, headersTimeout: TUNNEL_ANSWER_MS });
    const connect = pool.connect.bind(pool) as (params: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;
    (pool as { connect: typeof connect }).connect = (params) =>
      connect(params).catch((err: unknown) => {
        const code = (err as { code?: unknown } | null)?.code;
        if (code !== 'UND_ERR_SOCKET' && code !== 'UND_ERR_HEADERS_TIMEOUT') throw err;
        const why = code === 'UND_ERR_SOCKET' ? 'closed the connection' : `did not answer within ${TUNNEL_ANSWER_MS / 1000} s`;
        throw Object.assign(new Error(`the proxy ${why} before opening a tunnel (CONNECT)`), { code: TUNNEL_DROPPED });
      });
    return pool;
  };
  // The variables from `env` (undici would read process.env), in undici's order: lower case first.
  const dispatcher = new EnvHttpProxyAgent({
    httpProxy: env.http_proxy ?? env.HTTP_PROXY,
    httpsProxy: env.https_proxy ?? env.HTTPS_PROXY,
    noProxy: env.no_proxy ?? env.NO_PROXY,
    clientFactory,
  });
  // destroy, not close: nothing of the command is in flight any more, and an unread body must not keep the process up.
  return { fetchOptions: { dispatcher }, close: () => dispatcher.destroy() };
}

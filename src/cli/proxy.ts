// The CLI honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY (and their lower-case spellings), as gh and
// npm do. The library never reads them (its core is plain fetch, in every runtime); the CLI passes
// undici's EnvHttpProxyAgent as `fetchOptions.dispatcher`. undici is imported only when a proxy
// variable is set, so every other run starts as fast as before.
import type { Dispatcher } from 'undici';
import { UsageError } from './errors.js';

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
  const { EnvHttpProxyAgent } = await import('undici');
  const dispatcher = new EnvHttpProxyAgent();
  // destroy, not close: nothing of the command is in flight any more, and an unread body must not keep the process up.
  return { fetchOptions: { dispatcher }, close: () => dispatcher.destroy() };
}

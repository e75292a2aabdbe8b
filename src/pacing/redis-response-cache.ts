// Node-only: the gateway's response cache on Redis (`--redis`), so gateways that share a Redis
// share their cached answers and their runs of the same read: one gateway runs it, the others wait
// for its answer. Keys are digests (response-cache.ts); values are answers already scrubbed of the
// secrets of whoever ran them. When Redis is slow or gone, each gateway caches nothing and runs
// every read itself until Redis answers again (said once per outage).
import { Redis, type RedisOptions } from 'ioredis';
import type { CacheLookup, ResponseCacheStore } from '../gateway/response-cache.js';

/** Options of {@link createRedisResponseCacheStore}. */
export interface RedisResponseCacheStoreOptions {
  /** A `redis://` URL (the store makes its client and closes it in `close()`), or an ioredis client of yours (yours to close). */
  readonly redis: string | Redis;
  /** Prefix of every key the store writes. @default 'runpod-gql:cache:' */
  readonly prefix?: string | undefined;
  /** Longest wait for one Redis command; past it, the read runs uncached. @default 1000 */
  readonly commandTimeoutMs?: number | undefined;
  /** After a failure, how long the store asks Redis nothing (every read runs uncached). @default 1000 */
  readonly retryMs?: number | undefined;
  /** Told once when Redis fails (again after each recovery). @default console.warn */
  readonly onWarning?: ((message: string) => void) | undefined;
}

/** A {@link ResponseCacheStore} on Redis. */
export interface RedisResponseCacheStore extends ResponseCacheStore {
  /** Closes the client it made (a client passed in is yours to close). */
  close(): Promise<void>;
}

/** How long an account's generation outlives its last mutation: longer than any entry it guards. */
const GENERATION_TTL_MS = 24 * 60 * 60 * 1000;

/** KEYS: the account's generation. ARGV: the entry's key. Returns { generation, entry or false }. */
const LOOKUP = `
local g = redis.call('GET', KEYS[1]) or '0'
return {g, redis.call('GET', ARGV[1] .. '@' .. g)}
`;

type WithLookup = Redis & { runpodGqlCacheLookup(generationKey: string, key: string): Promise<[string, string | null]> };

/**
 * The gateway's response cache on Redis: pass it as `cache: { store }` to every gateway that
 * should share answers (`runpod-gql gateway --redis URL` does).
 */
export function createRedisResponseCacheStore(options: RedisResponseCacheStoreOptions): RedisResponseCacheStore {
  const prefix = options.prefix ?? 'runpod-gql:cache:';
  const commandTimeoutMs = options.commandTimeoutMs ?? 1000;
  const retryMs = options.retryMs ?? 1000;
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  const owned = typeof options.redis === 'string';
  const client =
    typeof options.redis === 'string'
      ? new Redis(options.redis, {
          commandTimeout: commandTimeoutMs,
          connectTimeout: Math.max(commandTimeoutMs, 2000),
          maxRetriesPerRequest: 1,
          retryStrategy: (times: number) => Math.min(times * 100, 1000),
        } satisfies RedisOptions)
      : options.redis;
  if (owned) client.on('error', () => undefined);
  // ioredis sends EVALSHA, and EVAL when the server does not know the script yet.
  client.defineCommand('runpodGqlCacheLookup', { numberOfKeys: 1, lua: LOOKUP });
  const redis = client as WithLookup;
  /** Until when the store asks Redis nothing, after a failure (performance.now()). */
  let downUntil = 0;
  let down = false;
  let closed = false;

  /** Runs a command unless Redis failed a moment ago; a failure is said once and answered `fallback`. */
  async function ask<T>(command: () => Promise<T>, fallback: T): Promise<T> {
    if (closed || performance.now() < downUntil) return fallback;
    try {
      const answer = await command();
      if (down) down = false;
      return answer;
    } catch (err) {
      downUntil = performance.now() + retryMs;
      if (!down && !closed) {
        down = true;
        warn(`runpod-gql gateway: Redis response cache unavailable (${String((err as Error)?.message ?? err).slice(0, 200)}); every read runs uncached until Redis answers again`);
      }
      return fallback;
    }
  }

  const entryName = (key: string) => `${prefix}${key}`;
  return {
    async lookup(key, generationKey): Promise<CacheLookup> {
      if (generationKey === undefined) return { value: (await ask(() => redis.get(`${entryName(key)}@0`), null)) ?? undefined, generation: '0' };
      const [generation, value] = await ask(() => redis.runpodGqlCacheLookup(`${prefix}${generationKey}`, entryName(key)), ['0', null] as [string, string | null]);
      return { value: value ?? undefined, generation: String(generation) };
    },
    async store(key, generation, value, ttlMs) {
      await ask(() => redis.set(`${entryName(key)}@${generation}`, value, 'PX', ttlMs), null);
    },
    async bump(generationKey) {
      const name = `${prefix}${generationKey}`;
      await ask(() => redis.multi().incr(name).pexpire(name, GENERATION_TTL_MS).exec(), null);
    },
    // While Redis is down, every gateway claims (runs the read itself): nobody waits on a claim it cannot see.
    async claim(key, generation, ms) {
      return (await ask(() => redis.set(`${entryName(key)}@${generation}:run`, '1', 'PX', Math.max(1, Math.ceil(ms)), 'NX'), 'OK')) === 'OK';
    },
    async unclaim(key, generation) {
      await ask(() => redis.del(`${entryName(key)}@${generation}:run`), 0);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (owned) {
        await Promise.race([client.quit().catch(() => undefined), new Promise((r) => setTimeout(r, commandTimeoutMs))]);
        client.disconnect();
      }
    },
  };
}

// Node-only: pacing state shared through Redis, so that several processes (or hosts) calling the
// same endpoints with the same key stay within the limits together. Each bucket's sliding window,
// concurrency slots and pause live in Redis and change only inside small Lua scripts (atomic, on
// Redis's own clock, since the processes' monotonic clocks differ). When Redis is slow or gone,
// every bucket paces locally until it answers again.
import { createHash, randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { memoryPacingStore, type PacingBucket, type PacingGrant, type PacingLimit, type PacingStore } from '../transport/pacing.js';

/** Options of {@link createRedisPacingStore}. */
export interface RedisPacingStoreOptions {
  /**
   * The Redis to share: a `redis://` URL (the store makes its client and closes it in `close()`)
   * or an ioredis client of yours (yours to close).
   */
  readonly redis: string | Redis;
  /** Prefix of every key the store writes. @default 'runpod-gql:pacing:' */
  readonly prefix?: string | undefined;
  /**
   * How long a process's concurrency slots outlive it: a live process renews them every third of
   * this; a process that dies stops renewing, and its slots go back after at most this long.
   * @default 15000
   */
  readonly leaseMs?: number | undefined;
  /** Longest wait for one Redis command; past it, the bucket paces locally. @default 1000 */
  readonly commandTimeoutMs?: number | undefined;
  /** While pacing locally, how often to try Redis again. @default 1000 */
  readonly retryMs?: number | undefined;
  /** When every slot of a bucket is taken (by any process), how often to ask again. @default 25 */
  readonly pollMs?: number | undefined;
  /** Told once when Redis fails and pacing turns local (again after each recovery). @default console.warn */
  readonly onWarning?: ((message: string) => void) | undefined;
  /** Told once when Redis answers again after an outage (pacing is shared again). @default none */
  readonly onRecovered?: (() => void) | undefined;
  /**
   * While Redis is away, each process paces alone: with `processes` N, each takes 1/N of every
   * bucket's rate and concurrency, so N processes together stay within the limit. @default 1
   */
  readonly processes?: number | undefined;
}

/** A {@link PacingStore} on Redis, shared by every client that uses the same Redis and API key. */
export interface RedisPacingStore extends PacingStore {
  /** `redis` while Redis answers; `local` while each process paces alone. */
  readonly mode: 'redis' | 'local';
  /** Frees this process's slots in Redis, stops renewing them and closes the client it made. */
  close(): Promise<void>;
  /** Asks Redis once (PING, within the command timeout): false, and pacing turns local with its warning, when it does not answer. */
  check(): Promise<boolean>;
}

const PRELUDE = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * KEYS: window (a list of send times, newest first), held (owner → slots), leases (owner → expiry),
 * pause. ARGV: count, requests (-1: none), windowMs, concurrency (-1: none), owner, leaseMs, pollMs.
 * Returns { granted, retryInMs }.
 */
const TAKE = `${PRELUDE}
local count = tonumber(ARGV[1])
local requests = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local concurrency = tonumber(ARGV[4])
local owner = ARGV[5]
local lease = tonumber(ARGV[6])
local poll = tonumber(ARGV[7])
local paused = tonumber(redis.call('GET', KEYS[4]) or '0')
if paused > now then return {0, paused - now} end
if concurrency >= 0 then
  local dead = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
  if #dead > 0 then
    for _, o in ipairs(dead) do redis.call('HDEL', KEYS[2], o) end
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  end
  local used = 0
  for _, v in ipairs(redis.call('HVALS', KEYS[2])) do used = used + tonumber(v) end
  if used >= concurrency then return {0, poll} end
  if count > concurrency - used then count = concurrency - used end
end
local granted = count
local retry = 0
if requests >= 0 then
  local len = redis.call('LLEN', KEYS[1])
  local from = requests - count
  if from < 0 then from = 0 end
  local olds = {}
  if from < len then olds = redis.call('LRANGE', KEYS[1], from, requests - 1) end
  granted = 0
  for k = 1, count do
    local idx = requests - k
    if idx < 0 then retry = window break end
    if idx < len then
      local sent = tonumber(olds[idx - from + 1])
      if sent + window > now then retry = sent + window - now break end
    end
    granted = k
  end
  if granted > 0 then
    for i = 1, granted do redis.call('LPUSH', KEYS[1], now) end
    redis.call('LTRIM', KEYS[1], 0, requests - 1)
    redis.call('PEXPIRE', KEYS[1], math.ceil(window) + 1000)
  end
end
if granted > 0 and concurrency >= 0 then
  redis.call('HINCRBY', KEYS[2], owner, granted)
  redis.call('ZADD', KEYS[3], now + lease, owner)
  redis.call('PEXPIRE', KEYS[2], lease * 2)
  redis.call('PEXPIRE', KEYS[3], lease * 2)
end
if granted == 0 and retry <= 0 then retry = poll end
return {granted, math.ceil(retry)}
`;

/** KEYS: held. ARGV: owner, slots freed. */
const RELEASE = `
local left = redis.call('HINCRBY', KEYS[1], ARGV[1], -tonumber(ARGV[2]))
if left <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return left
`;

/** KEYS: held, leases. ARGV: owner, leaseMs, slots held (-1: keep the count, renew the lease only). */
const RENEW = `${PRELUDE}
local lease = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
if n == 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 0
end
if n > 0 then redis.call('HSET', KEYS[1], ARGV[1], n) end
redis.call('ZADD', KEYS[2], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[1], lease * 2)
redis.call('PEXPIRE', KEYS[2], lease * 2)
return 1
`;

/** KEYS: pause. ARGV: ms. */
const PAUSE = `${PRELUDE}
local ms = math.ceil(tonumber(ARGV[1]))
local untilMs = now + ms
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current < untilMs then redis.call('SET', KEYS[1], untilMs, 'PX', ms) end
return 1
`;

interface Script {
  readonly lua: string;
  readonly sha: string;
}
const script = (lua: string): Script => ({ lua, sha: createHash('sha1').update(lua).digest('hex') });
const SCRIPTS = { take: script(TAKE), release: script(RELEASE), renew: script(RENEW), pause: script(PAUSE) };

const REDIS = Symbol('redis slot');
const LOCAL = Symbol('local slot');

/** The smallest script: whether Redis answers at all (run as the others are, within the command timeout). */
const PING_LUA = "return redis.call('PING')";
const PING_SHA = createHash('sha1').update(PING_LUA).digest('hex');

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0)) throw new TypeError(`createRedisPacingStore: ${name} must be a finite number of milliseconds above 0`);
  return value;
}

/**
 * A pacing store on Redis: pass it as `pacingStore` to every client (in every process) that should
 * pace together. Keys are named by a digest of the API key, never the key, and by bucket.
 *
 * @example
 * const pacingStore = createRedisPacingStore({ redis: 'redis://127.0.0.1:6379' });
 * const rp = createRunpodClient({ pacingStore });
 * // … and when done:
 * await pacingStore.close();
 */
export function createRedisPacingStore(options: RedisPacingStoreOptions): RedisPacingStore {
  const prefix = options.prefix ?? 'runpod-gql:pacing:';
  const leaseMs = Math.ceil(positive('leaseMs', options.leaseMs, 15_000));
  const commandTimeoutMs = positive('commandTimeoutMs', options.commandTimeoutMs, 1000);
  const retryMs = positive('retryMs', options.retryMs, 1000);
  const pollMs = Math.ceil(positive('pollMs', options.pollMs, 25));
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  const processes = options.processes ?? 1;
  if (!Number.isSafeInteger(processes) || processes < 1) throw new TypeError('processes must be an integer ≥ 1');
  /** This process's share of a limit while Redis is away. */
  const localShare = (limit: PacingLimit): PacingLimit =>
    processes === 1
      ? limit
      : {
          ...limit,
          requests: Number.isFinite(limit.requests) ? Math.max(1, Math.floor(limit.requests / processes)) : limit.requests,
          concurrency: Number.isFinite(limit.concurrency) ? Math.max(1, Math.floor(limit.concurrency / processes)) : limit.concurrency,
        };
  const owned = typeof options.redis === 'string';
  const connectTimeoutMs = Math.max(commandTimeoutMs, 2000);
  const client: Redis =
    typeof options.redis === 'string'
      ? new Redis(options.redis, {
          // Bounded: a command waits at most this long, queued or sent.
          commandTimeout: commandTimeoutMs,
          connectTimeout: connectTimeoutMs,
          maxRetriesPerRequest: 1,
          // Reconnects in the background, at most a second apart, for as long as the store lives.
          retryStrategy: (times: number) => Math.min(times * 100, 1000),
        } satisfies RedisOptions)
      : options.redis;
  // The store warns once per outage; ioredis would otherwise print every failed reconnection.
  if (owned) client.on('error', () => undefined);
  /** This process's name in Redis: random, so nothing about the host is written. */
  const owner = randomBytes(8).toString('hex');
  const buckets = new Set<RedisBucket>();
  let mode: 'redis' | 'local' = 'redis';
  let probe: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  async function run(s: Script, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${commandTimeoutMs} ms`)), commandTimeoutMs);
    });
    const send = async () => {
      try {
        return await client.evalsha(s.sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!String((err as Error)?.message).includes('NOSCRIPT')) throw err;
        // First use on this server (or after a restart): EVAL loads it.
        return await client.eval(s.lua, keys.length, ...keys, ...args);
      }
    };
    try {
      return await Promise.race([send(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  function degrade(err: unknown): void {
    if (mode === 'local' || closed) return;
    mode = 'local';
    const reason = String((err as Error)?.message ?? err).slice(0, 200);
    warn(`runpod-gql: Redis pacing store unavailable (${reason}); pacing each process on its own until Redis answers again`);
    scheduleProbe();
  }

  function scheduleProbe(): void {
    if (closed) return;
    probe = setTimeout(() => void recover(), retryMs);
    probe.unref?.();
  }

  async function recover(): Promise<void> {
    probe = undefined;
    try {
      // Slots taken before the outage are written back as held (their releases may have been lost),
      // before any new turn is asked: one connection keeps commands in order.
      await Promise.all([...buckets].map((b) => b.renew(true)));
      if (buckets.size === 0) await run({ sha: PING_SHA, lua: PING_LUA }, [], []);
      if (!closed) {
        mode = 'redis';
        options.onRecovered?.();
      }
    } catch {
      scheduleProbe();
    }
  }

  const heartbeat = setInterval(() => {
    if (mode === 'redis') for (const b of buckets) void b.renew(false).catch(degrade);
  }, Math.max(1, Math.floor(leaseMs / 3)));
  heartbeat.unref?.();

  class RedisBucket implements PacingBucket {
    /** Slots this process holds in Redis. */
    private held = 0;
    /** Slots freed and not yet written (written once per tick). */
    private freed = 0;
    /** Questions under way: while any is, a renewal must not write the count. */
    private asking = 0;
    private local: PacingBucket | undefined;
    private readonly keys: readonly [string, string, string, string];
    private readonly args: readonly [number, number, number, string, number, number];
    private readonly counted: boolean;

    constructor(scope: string, key: string, readonly limit: PacingLimit) {
      // The scope is a hash tag, so one account's keys share a cluster slot.
      const base = `${prefix}{${scope}}:${key}`;
      this.keys = [`${base}:window`, `${base}:held`, `${base}:leases`, `${base}:pause`];
      this.counted = Number.isFinite(limit.concurrency);
      this.args = [
        Number.isFinite(limit.requests) ? Math.max(1, Math.floor(limit.requests)) : -1,
        Math.ceil(limit.windowMs),
        this.counted ? Math.max(1, Math.floor(limit.concurrency)) : -1,
        owner,
        leaseMs,
        pollMs,
      ];
    }

    private localBucket(): PacingBucket {
      return (this.local ??= memoryPacingStore.bucket('', '', localShare(this.limit)));
    }

    private takeLocally(count: number): PacingGrant {
      const grant = this.localBucket().take(count) as PacingGrant;
      return { granted: grant.granted, retryInMs: grant.retryInMs, lease: LOCAL };
    }

    take(count: number): PacingGrant | Promise<PacingGrant> {
      if (mode === 'local') return this.takeLocally(count);
      const [requests, windowMs, concurrency, who, lease, poll] = this.args;
      this.asking++;
      return run(SCRIPTS.take, this.keys, [count, requests, windowMs, concurrency, who, lease, poll]).then(
        (answer) => {
          this.asking--;
          const [granted, retryInMs] = answer as [number, number];
          if (this.counted) this.held += granted;
          return { granted, retryInMs, lease: REDIS };
        },
        (err: unknown) => {
          this.asking--;
          degrade(err);
          return this.takeLocally(count);
        },
      );
    }

    release(lease: unknown): void {
      if (lease === LOCAL) return this.localBucket().release(lease);
      if (!this.counted) return;
      this.held--;
      if (this.freed++ === 0) queueMicrotask(() => this.flush());
    }

    /** Writes the slots freed this tick in one command. */
    flush(): void {
      const n = this.freed;
      if (n === 0) return;
      this.freed = 0;
      // Lost when Redis is down: the renewal after recovery writes the true count.
      if (mode === 'redis') void run(SCRIPTS.release, [this.keys[1]], [owner, n]).catch(degrade);
    }

    pause(ms: number): void {
      this.localBucket().pause(ms);
      if (mode === 'redis') void run(SCRIPTS.pause, [this.keys[3]], [ms]).catch(degrade);
    }

    idle(): boolean {
      const idle = this.held === 0 && this.freed === 0 && this.asking === 0 && (this.local?.idle() ?? true);
      if (idle) buckets.delete(this);
      return idle;
    }

    /** Renews this process's lease; `exact` (or when no question is under way) also writes its count. */
    renew(exact: boolean): Promise<unknown> {
      if (!this.counted) return Promise.resolve();
      this.flush();
      const count = exact || this.asking === 0 ? this.held : -1;
      if (count === 0 && !exact) return Promise.resolve();
      return run(SCRIPTS.renew, [this.keys[1], this.keys[2]], [owner, leaseMs, count]);
    }

    /** On close: this process holds nothing any more. */
    drop(): Promise<unknown> {
      this.held = 0;
      this.freed = 0;
      return this.counted ? run(SCRIPTS.renew, [this.keys[1], this.keys[2]], [owner, leaseMs, 0]) : Promise.resolve();
    }
  }

  return {
    get mode() {
      return mode;
    },
    bucket(scope, key, limit) {
      const bucket = new RedisBucket(scope, key, limit);
      buckets.add(bucket);
      return bucket;
    },
    async check() {
      if (mode === 'local') return false;
      // Given the connect's time, not one command's: a first command on a loaded machine would
      // otherwise spend its timeout on the connect, and report an outage that is not one.
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([
          client.ping(),
          new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`Redis did not answer within ${connectTimeoutMs} ms`)), connectTimeoutMs))),
        ]);
        return true;
      } catch (err) {
        degrade(err);
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      if (probe) clearTimeout(probe);
      if (mode === 'redis') await Promise.allSettled([...buckets].map((b) => b.drop()));
      buckets.clear();
      if (owned) {
        await Promise.race([client.quit().catch(() => undefined), new Promise((r) => setTimeout(r, commandTimeoutMs))]);
        client.disconnect();
      }
    },
  };
}

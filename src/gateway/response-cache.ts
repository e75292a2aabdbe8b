// The gateway's coalescing and response cache (the stage between scope and execute). Identical
// reads in flight share one upstream execution; answers are kept for a short time: catalog reads
// (every field of scope `catalog`: no account data) for everyone, account reads per caller only,
// never across callers. A mutation clears its account's cached reads. What is kept is the answer
// as its caller would have received it before the request ids are added, already scrubbed with the
// secrets of whoever ran it, and it is scrubbed again for whoever reads it (create-gateway.ts
// `answer`). Keys name callers and documents by digests, never a credential or a document's text.
import { ValidationError } from '../errors.js';
import type { GatewayAnswer } from './answers.js';

/** Which reads an entry belongs to: the catalog (shared by every caller) or one caller's account reads. */
export type CacheKind = 'catalog' | 'account';

/**
 * How a read was answered: `hit` from the cache, `coalesced` by another identical read that was
 * in flight (in this process, or in another gateway on the same Redis), `miss` by running it.
 */
export type CacheOutcome = 'hit' | 'miss' | 'coalesced';

/** One read the cache stage saw, for metrics and the access log. */
export interface CacheEvent {
  readonly kind: CacheKind;
  readonly outcome: CacheOutcome;
}

/** The cache's settings (`createGateway`'s `cache` option). */
export interface ResponseCacheOptions {
  /**
   * How long a catalog read (a query of catalog fields only: GPU types, prices, data centres) is
   * kept, for every caller. 0 keeps none (identical reads in flight are still shared).
   * @default 30000
   */
  readonly catalogTtlMs?: number | undefined;
  /**
   * How long an account read is kept, for the same caller only (the same token, or the same
   * pass-through key). 0 keeps none (identical reads in flight are still shared). @default 2000
   */
  readonly accountTtlMs?: number | undefined;
  /** Where entries live: share one store (Redis) between gateways. @default this process's memory */
  readonly store?: ResponseCacheStore | undefined;
}

/** What a store returns for a key: the entry, if any, and the generation it was read in. */
export interface CacheLookup {
  readonly value: string | undefined;
  /** The account's generation when it was read: a value stored with it is dropped by the next mutation. */
  readonly generation: string;
}

/**
 * Where cached answers are kept. Entries of an account are written under its current generation,
 * which a mutation bumps: every entry read before is then out of reach, and expires by its TTL.
 */
export interface ResponseCacheStore {
  /** The entry of `key` in the current generation of `generationKey` (none: generation '0'). */
  lookup(key: string, generationKey: string | undefined): Promise<CacheLookup>;
  /** Keeps `value` for `ttlMs` under `key` in `generation` (the one its lookup returned). */
  store(key: string, generation: string, value: string, ttlMs: number): Promise<void>;
  /** Starts a new generation of `generationKey`: its entries so far are never read again. */
  bump(generationKey: string): Promise<void>;
  /**
   * Across processes: claims the run of `key` for `ms` (true), or says another process runs it
   * (false; its answer is then waited for, within `ms`). A store without it coalesces within each process only.
   */
  claim?(key: string, generation: string, ms: number): Promise<boolean>;
  /** Gives a claim back (the run ended, stored or not). */
  unclaim?(key: string, generation: string): Promise<void>;
}

/** Most entries the memory store keeps; the oldest go first. */
const MAX_ENTRIES = 2000;
/** Most characters the memory store keeps, all entries together (about 32 MB). */
const MAX_CHARS = 16_000_000;
/** How often a gateway looks for an answer another gateway is running (Redis). */
const POLL_MS = 25;
/** Longest wait for another gateway's run of the same read before running it here. */
const MAX_CLAIM_MS = 5_000;

/** A {@link ResponseCacheStore} in this process's memory, bounded in entries and characters. */
export function memoryResponseCacheStore(): ResponseCacheStore {
  const entries = new Map<string, { value: string; expires: number }>();
  const generations = new Map<string, number>();
  let chars = 0;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    chars -= entry.value.length;
    entries.delete(key);
  };
  return {
    async lookup(key, generationKey) {
      const generation = String(generationKey === undefined ? 0 : (generations.get(generationKey) ?? 0));
      const name = `${key}@${generation}`;
      const entry = entries.get(name);
      if (entry && entry.expires <= performance.now()) drop(name);
      return { value: entries.get(name)?.value, generation };
    },
    async store(key, generation, value, ttlMs) {
      if (value.length > MAX_CHARS / 4) return;
      const name = `${key}@${generation}`;
      drop(name);
      entries.set(name, { value, expires: performance.now() + ttlMs });
      chars += value.length;
      const now = performance.now();
      for (const [old, entry] of entries) {
        if (entries.size <= MAX_ENTRIES && chars <= MAX_CHARS) break;
        if (old !== name || entry.expires <= now) drop(old);
      }
    },
    async bump(generationKey) {
      generations.set(generationKey, (generations.get(generationKey) ?? 0) + 1);
      // Generations are counters, one per account: the map stays as large as the accounts seen.
      if (generations.size > 10 * MAX_ENTRIES) generations.delete(generations.keys().next().value!);
    },
  };
}

/** One run of a document, as the cache stage receives it from execute. */
export interface RunOutcome {
  /** The answer, before the request ids are added and before it is scrubbed for its caller. */
  readonly answer: GatewayAnswer;
  /** The ids of the upstream answers it caused. */
  readonly upstream: readonly string[];
  /**
   * False when the run did not really happen for others to share (its caller hung up): identical
   * reads waiting for it run on their own.
   */
  readonly shareable: boolean;
  /** The scrubber of the caller who ran it: what is kept, or shared with other callers, is scrubbed with it first. */
  readonly scrub: (text: string) => string;
}

/** An answer the cache stage gives back: the answer and the upstream ids it carries. */
export interface CachedAnswer {
  readonly answer: GatewayAnswer;
  readonly upstream: readonly string[];
  readonly outcome: CacheOutcome;
}

/** One read as the cache stage keys it. */
export interface CacheRead {
  readonly kind: CacheKind;
  /** The caller's credential (a token, a pass-through key), or a name ('anonymous'); unused for catalog reads. */
  readonly caller: string | undefined;
  /** Whose account the read is of (its generation): the upstream key's owner. Unused for catalog reads. */
  readonly account: string;
  readonly document: string;
  readonly operationName: string | undefined;
  readonly variables: Readonly<Record<string, unknown>> | undefined;
  /** Longest the read may wait for another gateway's identical run (the document's deadline). */
  readonly waitMs: number;
}

/** The coalescing and response cache of one gateway; see {@link createResponseCache}. */
export interface ResponseCache {
  /** Answers `read` from the cache, from an identical run in flight, or by `run` (kept when it is a clean 200). */
  read(read: CacheRead, run: () => Promise<RunOutcome>): Promise<CachedAnswer>;
  /** A mutation of `account` starts or ended: that account's cached reads are dropped. */
  invalidate(account: string): Promise<void>;
}

const hex = (bytes: ArrayBuffer): string => [...new Uint8Array(bytes, 0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** A digest of `text` (128 bits of SHA-256, as hex): what cache keys hold instead of credentials and documents. */
async function digest(text: string): Promise<string> {
  return hex(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** JSON with every object's keys in order: the same variables are the same key, however a caller wrote them. */
function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** A clean answer: 200, data, no errors (an error may be a moment's: a rate limit, RunPod down). */
const keepable = (answer: GatewayAnswer): boolean => answer.status === 200 && answer.body.data != null && !answer.body.errors?.length && !answer.headers;

interface Kept {
  readonly answer: GatewayAnswer;
  readonly upstream: readonly string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The cache stage. `onEvent` is told how each read was answered (hits and misses for metrics).
 * Everything it keeps was scrubbed with the secrets of the caller who ran it, so no key or token
 * reaches the store, in its keys (digests) or its values.
 */
export function createResponseCache(options: ResponseCacheOptions = {}, onEvent?: (event: CacheEvent) => void): ResponseCache {
  const catalogTtlMs = ttl('catalogTtlMs', options.catalogTtlMs, 30_000);
  const accountTtlMs = ttl('accountTtlMs', options.accountTtlMs, 2_000);
  const store = options.store ?? memoryResponseCacheStore();
  /** Reads running here, by key and this process's generation of their account. */
  const running = new Map<string, Promise<{ kept?: Kept; own?: RunOutcome; outcome: CacheOutcome }>>();
  /** Each account's generation in this process: a read in flight before a mutation is not joined after it. */
  const localGenerations = new Map<string, number>();
  /** Digests of credentials, so each is taken once (Web Crypto's digest is asynchronous). */
  const callerDigests = new Map<string, Promise<string>>();
  const callerDigest = (credential: string): Promise<string> => {
    let found = callerDigests.get(credential);
    if (!found) {
      if (callerDigests.size >= 1024) callerDigests.delete(callerDigests.keys().next().value!);
      found = digest(`runpod-gql:cache-caller:${credential}`);
      callerDigests.set(credential, found);
    }
    return found;
  };
  const tell = (kind: CacheKind, outcome: CacheOutcome) => {
    try {
      onEvent?.({ kind, outcome });
    } catch {
      // An observer's failure is not the caller's.
    }
  };
  const parse = (text: string): Kept | undefined => {
    try {
      const kept = JSON.parse(text) as Kept;
      return kept && typeof kept === 'object' && kept.answer && typeof kept.answer.status === 'number' ? kept : undefined;
    } catch {
      return undefined;
    }
  };

  return {
    async read(read, run) {
      const catalog = read.kind === 'catalog';
      const ttlMs = catalog ? catalogTtlMs : accountTtlMs;
      const [who, account, doc] = await Promise.all([
        catalog ? 'public' : callerDigest(read.caller ?? ''),
        catalog ? undefined : callerDigest(`account:${read.account}`),
        digest(`${read.document}\u0000${read.operationName ?? ''}\u0000${stableJson(read.variables ?? {})}`),
      ]);
      const key = `${catalog ? 'catalog' : `account:${who}`}:${doc}`;
      const generationKey = account === undefined ? undefined : `generation:${account}`;
      const local = `${key}#${account === undefined ? 0 : (localGenerations.get(account) ?? 0)}`;

      const joined = running.get(local);
      if (joined) {
        const shared = await joined.catch(() => undefined);
        if (shared?.kept) {
          tell(read.kind, shared.outcome === 'hit' ? 'hit' : 'coalesced');
          return { ...shared.kept, outcome: shared.outcome === 'hit' ? 'hit' : 'coalesced' };
        }
        // The same caller's identical read, answered with an error: the same answer for this one.
        if (!catalog && shared?.own?.shareable) {
          tell(read.kind, 'coalesced');
          return { answer: shared.own.answer, upstream: shared.own.upstream, outcome: 'coalesced' };
        }
        // Not shareable (its caller hung up, it was refused, or it failed for its own caller): run this one.
      }

      const leader = (async () => {
        const lookup = await store.lookup(key, generationKey).catch(() => ({ value: undefined, generation: '0' }));
        const found = lookup.value === undefined ? undefined : parse(lookup.value);
        if (found) return { kept: found, outcome: 'hit' as const };
        let claimed = false;
        if (store.claim) {
          const waitMs = Math.min(MAX_CLAIM_MS, read.waitMs);
          claimed = await store.claim(key, lookup.generation, waitMs).catch(() => true);
          // Another gateway runs it: its answer is waited for (stored when clean), within the wait.
          if (!claimed) {
            const until = performance.now() + waitMs;
            while (performance.now() < until) {
              await sleep(POLL_MS);
              const again = await store.lookup(key, generationKey).catch(() => undefined);
              const other = again?.value === undefined ? undefined : parse(again.value);
              if (other) return { kept: other, outcome: 'coalesced' as const };
              if (again?.generation !== lookup.generation) break;
              // The claim ended without an answer to keep: run it here.
              if (await store.claim(key, lookup.generation, waitMs).catch(() => true)) {
                claimed = true;
                break;
              }
            }
          }
        }
        try {
          const own = await run();
          if (!own.shareable || !keepable(own.answer)) return { own, outcome: 'miss' as const };
          const text = own.scrub(JSON.stringify({ answer: own.answer, upstream: own.upstream }));
          const kept = parse(text);
          if (!kept) return { own, outcome: 'miss' as const };
          if (ttlMs > 0) await store.store(key, lookup.generation, text, ttlMs).catch(() => undefined);
          return { kept, own, outcome: 'miss' as const };
        } finally {
          if (claimed) await store.unclaim?.(key, lookup.generation).catch(() => undefined);
        }
      })();
      running.set(local, leader);
      try {
        const result = await leader;
        tell(read.kind, result.outcome);
        // The caller who ran it gets its own answer; what others get went through the scrubber.
        if (result.own) return { answer: result.own.answer, upstream: result.own.upstream, outcome: result.outcome };
        return { ...result.kept!, outcome: result.outcome };
      } finally {
        if (running.get(local) === leader) running.delete(local);
      }
    },

    async invalidate(account) {
      const name = await callerDigest(`account:${account}`);
      localGenerations.set(name, (localGenerations.get(name) ?? 0) + 1);
      if (localGenerations.size > 10 * MAX_ENTRIES) localGenerations.delete(localGenerations.keys().next().value!);
      await store.bump(`generation:${name}`).catch(() => undefined);
    },
  };
}

function ttl(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new ValidationError(`cache.${name}`, 'must be a whole number of milliseconds ≥ 0');
  return value;
}

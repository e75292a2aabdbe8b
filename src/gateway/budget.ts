// The execute stage's budget: what one document may spend upstream. Its upstream calls (a count,
// checked before each is sent), the pages of each list it walks and the items it holds (checked as
// each page arrives), and how many of its calls run at once, out of a fair share of the upstream
// client's slots: callers take turns for a free slot, so one caller's queue never stands before
// another caller's one call. The budget rides in the document's fetch options (CALL_BUDGET), so
// every request the document causes meets it, through any surface.
import { AbortError, RunpodError } from '../errors.js';
import { CALL_BUDGET, type CallBudget } from '../transport/call-budget.js';
import type { FetchOptions, RateLimitSetting } from '../transport/options.js';
import { resolveRateLimit, type PaceRelease } from '../transport/pacing.js';

/** Which of the document's bounds a {@link LimitExceededError} met. */
export type DocumentLimit = 'maxUpstreamCalls' | 'maxPages' | 'maxItems';

/**
 * A document reached one of the gateway's bounds on its upstream work (calls, pages of one list,
 * items held): what it had read is answered, and the field that met the bound carries this error.
 * Nothing past the bound was sent.
 */
export class LimitExceededError extends RunpodError {
  override readonly name = 'LimitExceededError';
  /** The gateway limit (`limits` option) that was met. */
  declare readonly limit: DocumentLimit;
  /** The GraphQL answer's `extensions.code`. */
  declare readonly code: 'CALL_LIMIT' | 'PAGE_LIMIT' | 'ITEM_LIMIT';

  constructor(limit: DocumentLimit, message: string) {
    super(message);
    this.limit = limit;
    this.code = limit === 'maxUpstreamCalls' ? 'CALL_LIMIT' : limit === 'maxPages' ? 'PAGE_LIMIT' : 'ITEM_LIMIT';
  }
}

/** A document's bounds (resolved limits). */
export interface BudgetLimits {
  readonly maxUpstreamCalls: number;
  readonly maxPages: number;
  readonly maxItems: number;
  readonly maxUpstreamInFlight: number;
}

/** One call waiting for a slot. */
interface Waiter {
  readonly pool: Pool;
  readonly resolve: (release: PaceRelease) => void;
  readonly reject: (error: AbortError) => void;
  readonly signals: readonly AbortSignal[];
}

/**
 * The slots of one pacing bucket of one upstream client (REST v2's 16), shared out between callers:
 * a free slot goes to the waiting caller that holds the fewest (the first to wait among equals).
 */
class Pool {
  inUse = 0;
  /** Slots held, by caller. */
  private readonly held = new Map<string, number>();
  /** Calls waiting, by caller, in the order the callers began to wait. */
  private readonly waiting = new Map<string, Array<{ lane: Lane; waiter: Waiter }>>();

  constructor(readonly capacity: number) {}

  /** A slot now for `caller`, when one is free and nobody waits. */
  tryTake(caller: string): boolean {
    if (this.inUse >= this.capacity || this.waiting.size > 0) return false;
    this.take(caller);
    return true;
  }

  private take(caller: string): void {
    this.inUse++;
    this.held.set(caller, (this.held.get(caller) ?? 0) + 1);
  }

  give(caller: string): void {
    this.inUse--;
    const left = (this.held.get(caller) ?? 1) - 1;
    if (left > 0) this.held.set(caller, left);
    else this.held.delete(caller);
    this.dispatch();
  }

  enqueue(caller: string, lane: Lane, waiter: Waiter): void {
    const queue = this.waiting.get(caller);
    if (queue) queue.push({ lane, waiter });
    else this.waiting.set(caller, [{ lane, waiter }]);
    this.dispatch();
  }

  remove(caller: string, waiter: Waiter): boolean {
    const queue = this.waiting.get(caller);
    const at = queue?.findIndex((w) => w.waiter === waiter) ?? -1;
    if (at < 0) return false;
    queue!.splice(at, 1);
    if (queue!.length === 0) this.waiting.delete(caller);
    return true;
  }

  private dispatch(): void {
    while (this.inUse < this.capacity && this.waiting.size > 0) {
      let caller = '';
      let fewest = Infinity;
      for (const name of this.waiting.keys()) {
        const holds = this.held.get(name) ?? 0;
        if (holds < fewest) [caller, fewest] = [name, holds];
      }
      const queue = this.waiting.get(caller)!;
      const { lane, waiter } = queue.shift()!;
      if (queue.length === 0) this.waiting.delete(caller);
      this.take(caller);
      lane.granted(waiter);
    }
  }
}

/** The upstream slots of one upstream client: a pool per pacing bucket that has a concurrency cap. */
export interface FairShare {
  pool(key: string | undefined): Pool | undefined;
}

/** The fair share of one upstream client's slots, sized as its pacer's concurrency per bucket. */
export function createFairShare(rateLimits: false | Readonly<Record<string, RateLimitSetting>> | undefined): FairShare {
  const pools = new Map<string, Pool>();
  return {
    pool(key) {
      if (key === undefined || rateLimits === false) return undefined;
      let pool = pools.get(key);
      if (!pool) {
        const capacity = resolveRateLimit(key, rateLimits).concurrency;
        // Only buckets with a cap are shared out (a serverless endpoint's bucket per id is not kept).
        if (!Number.isFinite(capacity)) return undefined;
        pools.set(key, (pool = new Pool(capacity)));
      }
      return pool;
    },
  };
}

/**
 * The pool of a call whose bucket has no cap (or no pacing at all): a slot at once, always, and
 * nothing kept of who holds it (no caller ever waits here, so no turn is chosen by it).
 */
class Unbounded extends Pool {
  override tryTake(): boolean {
    return true;
  }

  override give(): void {}

  override enqueue(_caller: string, lane: Lane, waiter: Waiter): void {
    lane.granted(waiter);
  }

  override remove(): boolean {
    return false;
  }
}

const NO_POOL: Pool = new Unbounded(Infinity);

/**
 * One document's calls: how many it has made, how many hold a slot or wait in a pool (at most its
 * cap), and those past its cap, waiting here for one of its own to end. It listens once to each
 * signal its waiting calls share (a document's calls all carry its signal).
 */
class Lane {
  calls = 0;
  active = 0;
  private readonly held: Waiter[] = [];
  private readonly listening = new Map<AbortSignal, Set<Waiter>>();

  constructor(
    readonly caller: string,
    readonly cap: number,
  ) {}

  /** A slot at once, or undefined: the call waits (see {@link wait}). */
  tryTake(pool: Pool): PaceRelease | undefined {
    if (this.active >= this.cap || !pool.tryTake(this.caller)) return undefined;
    this.active++;
    return this.releaser(pool);
  }

  wait(pool: Pool, signal: AbortSignal | undefined, also: AbortSignal | undefined): Promise<PaceRelease> {
    return new Promise((resolve, reject) => {
      const signals = [signal, also].filter((s): s is AbortSignal => s !== undefined);
      const fired = signals.find((s) => s.aborted);
      if (fired) return reject(abortedWhileWaiting(fired));
      const waiter: Waiter = { pool, resolve, reject, signals };
      for (const s of signals) {
        let set = this.listening.get(s);
        if (!set) {
          this.listening.set(s, (set = new Set()));
          s.addEventListener('abort', this, { once: true });
        }
        set.add(waiter);
      }
      if (this.active < this.cap) {
        this.active++;
        pool.enqueue(this.caller, this, waiter);
      } else {
        this.held.push(waiter);
      }
    });
  }

  private unlisten(waiter: Waiter): void {
    for (const s of waiter.signals) {
      const set = this.listening.get(s);
      set?.delete(waiter);
      if (set?.size === 0) {
        this.listening.delete(s);
        s.removeEventListener('abort', this);
      }
    }
  }

  /** A waiting call's signal fired: every call waiting on it leaves. */
  handleEvent(event: Event): void {
    const signal = event.target as AbortSignal;
    const set = this.listening.get(signal);
    this.listening.delete(signal);
    for (const waiter of set ?? []) {
      this.unlisten(waiter);
      const at = this.held.indexOf(waiter);
      if (at >= 0) this.held.splice(at, 1);
      else if (waiter.pool.remove(this.caller, waiter)) this.active--;
      waiter.reject(abortedWhileWaiting(signal));
    }
    this.promote();
  }

  granted(waiter: Waiter): void {
    this.unlisten(waiter);
    waiter.resolve(this.releaser(waiter.pool));
  }

  private releaser(pool: Pool): PaceRelease {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      this.promote();
      pool.give(this.caller);
    };
  }

  /** Moves calls held past the document's cap to their pools as its own calls end. */
  private promote(): void {
    while (this.active < this.cap && this.held.length > 0) {
      const waiter = this.held.shift()!;
      this.active++;
      waiter.pool.enqueue(this.caller, this, waiter);
    }
  }
}

const abortedWhileWaiting = (signal: AbortSignal) => new AbortError('aborted while waiting for an upstream slot', { cause: signal.reason });

/**
 * The budget of one document of `caller` on an upstream client's `share`: its calls counted, its
 * walks and items bounded, and its calls at once capped and served from the fair share.
 */
export function createDocumentBudget(limits: BudgetLimits, share: FairShare, caller: string): CallBudget {
  const lane = new Lane(caller, limits.maxUpstreamInFlight);
  let items = 0;
  return {
    maxPagesPerWalk: limits.maxPages,
    walkCapped: (route) =>
      new LimitExceededError('maxPages', `${route}: still a next page after ${limits.maxPages} pages, the gateway's limit for one list (--max-pages); what the document read besides is answered`),
    page(route, count) {
      items += count;
      if (items > limits.maxItems) {
        throw new LimitExceededError('maxItems', `${route}: the document read more than ${limits.maxItems} items, the gateway's limit per document (--max-items); what it read besides is answered`);
      }
    },
    acquire(key, signal, also) {
      // Counted before anything is sent: past the limit, the call ends here.
      if (++lane.calls > limits.maxUpstreamCalls) {
        throw new LimitExceededError('maxUpstreamCalls', `the document made ${limits.maxUpstreamCalls} upstream calls, the gateway's limit per document (--max-upstream-calls); what it read besides is answered`);
      }
      const pool = share.pool(key) ?? NO_POOL;
      return lane.tryTake(pool) ?? lane.wait(pool, signal, also);
    },
  };
}

/** The execute stage's budget: one per gateway, a fair share per upstream client, a budget per document. */
export interface ExecuteBudget {
  /** The budget of one document of `caller` (its credential, on its upstream client). */
  forDocument(caller: { readonly credential: string | undefined; readonly upstream: object }): CallBudget;
}

/** `rateLimits`: the upstream clients' own (their pacers' concurrency is the fair share's size). */
export function createExecuteBudget(limits: BudgetLimits, rateLimits: false | Readonly<Record<string, RateLimitSetting>> | undefined): ExecuteBudget {
  // Each pass-through key has its own client, and so its own slots.
  const shares = new WeakMap<object, FairShare>();
  return {
    forDocument({ credential, upstream }) {
      let share = shares.get(upstream);
      if (!share) shares.set(upstream, (share = createFairShare(rateLimits)));
      return createDocumentBudget(limits, share, credential ?? '');
    },
  };
}

/** The fetch options' entry that carries `budget` to every request of its document. */
export const budgetEntry = (budget: CallBudget): FetchOptions => ({ [CALL_BUDGET]: budget }) as FetchOptions;

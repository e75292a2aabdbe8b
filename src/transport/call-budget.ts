// A budget that the calls of one unit of work (a gateway's document) carry in their fetch options,
// under a symbol, so every request it causes, through any surface, meets the same bounds: the core
// asks it for a slot before each attempt, and the pager tells it of each page it reads. Internal:
// the gateway makes them (src/gateway/budget.ts); nothing else sets one.
import type { PaceRelease } from './pacing.js';

/** The fetch options' key under which a {@link CallBudget} rides. */
export const CALL_BUDGET: unique symbol = Symbol('budget');

export interface CallBudget {
  /** Most pages one walk of a list reads (the lower of this and the call's `maxPages` holds). */
  readonly maxPagesPerWalk: number;
  /** A walk of `route` still had a next page after `maxPagesPerWalk` pages: the error it ends in. */
  walkCapped(route: string): Error;
  /** A page of `count` items of `route` was read: throws the error that ends the walk past the budget's items. */
  page(route: string, count: number): void;
  /**
   * A slot for one attempt of a request in pacing bucket `key`, taken before the pacer's turn and
   * freed with it. Throws (or rejects with) the error that ends the request past the budget's calls;
   * rejects with an AbortError when `signal` or `also` fires while it waits.
   */
  acquire(key: string | undefined, signal: AbortSignal | undefined, also: AbortSignal | undefined): PaceRelease | Promise<PaceRelease>;
}

/** The budget these fetch options carry, if any. */
export const budgetOf = (fetchOptions: object | undefined): CallBudget | undefined => (fetchOptions as { [CALL_BUDGET]?: CallBudget } | undefined)?.[CALL_BUDGET];

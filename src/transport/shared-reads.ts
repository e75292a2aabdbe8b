// Reads shared by every call of one unit of work (an in-process GraphQL document): the calls carry
// the unit's memo in their options, under a symbol, so a read made deep inside another surface (the
// GPU catalog a deploy reads first) is made once per document, however many deploys it holds.
// Internal: the in-process executor sets it; public catalog reads are the only ones that consult it.

/** The call options' key under which a {@link SharedReads} rides. */
export const SHARED_READS: unique symbol = Symbol('reads');

/** `read()` once per `key` within the unit of work; a read that failed is forgotten, so a later step may try again. */
export type SharedReads = <T>(key: string, read: () => Promise<T>) => Promise<T>;

/** The memo these call options carry, if any. */
export const sharedReadsOf = (options: object | undefined): SharedReads | undefined => (options as { [SHARED_READS]?: SharedReads } | undefined)?.[SHARED_READS];

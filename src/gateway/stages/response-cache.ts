// Stage "response cache": identical reads in flight share one execution, and reads are kept for a
// short time (keyed by the document, its variables, and the caller, or "public" for catalog reads).
// A cached answer still passes the scrub, as a fresh one does (the scrub comes after every stage).
//
// Today it runs every document: the seam where the coalescing and the cache plug in. Whoever
// answers from it sets `context.cache` ('hit' or 'miss'), which the access log and metrics read.
import type { Stage } from '../pipeline.js';

export function responseCacheStage(): Stage {
  return { name: 'response cache', run: (_context, next) => next() };
}

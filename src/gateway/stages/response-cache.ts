// Stage "response cache": identical reads in flight share one execution, and reads are kept for a
// short time, keyed by the document, its variables, and the caller, or "public" for catalog reads
// (response-cache.ts). A mutation clears its account's cached reads, before it runs and once it
// ran. A cached answer still passes the scrub, as a fresh one does (the scrub comes after every
// stage), and it met the same scope check (the scope stage comes before this one).
//
// A public caller (keyless) takes its turn of the rate and its in-flight slot here, only when its
// read goes upstream: every public caller shares them, so a price page's viewers never use them up
// by looking. Sets `context.cache` ('hit' when a cache or an identical run answered, 'miss').
import { buildExecutableSchema } from '../../graphql/executable-schema.js';
import type { GatewayAnswer } from '../answers.js';
import type { Caller, GatewayContext } from '../context.js';
import { readsOnlyCatalog } from '../field-scopes.js';
import type { Outcome, Stage } from '../pipeline.js';
import { Refusal } from '../protocol.js';
import type { ResponseCache } from '../response-cache.js';
import type { Scrub } from '../scrub.js';
import type { CallerLimits } from './caller-limits.js';

export interface ResponseCacheStageOptions {
  /** The cache, or undefined: every read runs (a public caller still takes its turn here). */
  readonly cache: ResponseCache | undefined;
  /** The caller limits a public caller meets when its read goes upstream. */
  readonly limits: CallerLimits;
  /** The scrubber of a request's answer (the answer stage's): what is kept or shared goes through it first. */
  readonly scrubberFor: (context: GatewayContext) => Scrub;
  /** True in pass-through mode: each key is its own account. */
  readonly passThrough: () => boolean;
  /** Longest a read waits for another gateway's identical run (the document's deadline). */
  readonly waitMs: () => number;
}

/** Whose account a caller reads: a mutation clears that account's cached reads. */
function accountOf(caller: Caller, passThrough: boolean): string {
  if (caller.kind === 'pass-through') return `key:${caller.credential}`;
  return caller.kind === 'public' && passThrough ? 'catalog' : 'server';
}

export function responseCacheStage(options: ResponseCacheStageOptions): Stage {
  const { cache, limits } = options;
  return {
    name: 'response cache',
    async run(context, next) {
      const caller = context.caller!;
      const operation = context.operation!;
      const upstream = caller.kind === 'public' ? () => publicRun(context, next) : next;
      if (!cache || operation.operation === 'subscription') return upstream();
      const account = accountOf(caller, options.passThrough());
      if (operation.operation === 'mutation') {
        await cache.invalidate(account);
        try {
          return await upstream();
        } finally {
          void cache.invalidate(account);
        }
      }
      let finished: Response | undefined;
      const cached = await cache.read(
        {
          kind: readsOnlyCatalog(buildExecutableSchema(), context.document!, operation) ? 'catalog' : 'account',
          caller: caller.credential ?? caller.kind,
          account,
          document: context.text!,
          operationName: context.params!.operationName,
          variables: context.params!.variables,
          waitMs: options.waitMs(),
        },
        async () => {
          const outcome = await upstream();
          // A finished Response (none today) is this request's own: never kept or shared.
          if (outcome instanceof Response) finished = outcome;
          const answer: GatewayAnswer = outcome instanceof Response ? { status: 500, body: {} } : outcome;
          return { answer, upstream: context.ids.toJSON().upstream.slice(), shareable: !finished && !context.hangUp.aborted, scrub: options.scrubberFor(context) };
        },
      );
      if (finished) return finished;
      context.cache = cached.outcome === 'miss' ? 'miss' : 'hit';
      if (cached.outcome !== 'miss') for (const id of cached.upstream) context.ids.add(id);
      return cached.answer;
    },
  };

  /** A public caller's read that goes upstream: the shared rate's turn and an in-flight slot first. */
  async function publicRun(context: GatewayContext, next: () => Outcome | Promise<Outcome>): Promise<Outcome> {
    let free: () => void;
    try {
      const taken = limits.takeRate(undefined);
      if (taken) await taken;
      const admitted = limits.admit(undefined);
      free = typeof admitted === 'function' ? admitted : await admitted;
    } catch (err) {
      if (err instanceof Refusal && err.status === 429 && context.refusedFor === undefined) context.refusedFor = err.code;
      throw err;
    }
    try {
      return await next();
    } finally {
      free();
    }
  }
}

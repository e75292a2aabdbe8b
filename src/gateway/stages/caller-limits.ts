// Stage "caller limits": the caller's rate (one turn now, before the body is read; the rest of its
// document's upstream calls are charged as their answers arrive) and its documents in flight. The
// slot is held until the rest of the pipeline has answered.
import type { CallerLimitSettings } from '../fairness.js';
import type { HangUp } from '../hang-up.js';
import type { Stage } from '../pipeline.js';
import { Refusal } from '../protocol.js';

export interface CallerLimits {
  /** Takes a turn of the caller's rate: throws (or rejects with) a 429 Refusal past it. */
  takeRate(credential: string | undefined, own?: CallerLimitSettings): void | Promise<void>;
  /** Admits one more document of the caller's (after a bounded wait in line), or throws a 429 Refusal; the answer frees it. */
  admit(credential: string | undefined, own?: CallerLimitSettings, hangUp?: HangUp): (() => void) | Promise<() => void>;
}

export function callerLimitsStage(limits: CallerLimits): Stage {
  return {
    name: 'caller limits',
    async run(context, next) {
      // A public (keyless) caller takes these only when its read goes upstream (the response cache stage).
      if (context.caller!.kind === 'public') return next();
      const { credential, limits: own } = context.caller!;
      try {
        const taken = limits.takeRate(credential, own);
        if (taken) await taken;
        const admitted = limits.admit(credential, own, context.hangUp);
        const free = typeof admitted === 'function' ? admitted : await admitted;
        try {
          return await next();
        } finally {
          free();
        }
      } catch (err) {
        // The cause of a 429 is kept for the access log and the metrics.
        if (err instanceof Refusal && err.status === 429 && context.refusedFor === undefined) context.refusedFor = err.code;
        throw err;
      }
    },
  };
}

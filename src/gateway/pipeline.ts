// The gateway as one pipeline of named stages, each owning one concern, in one order (see the
// README's "A request, in order"):
//
//   probes → host → auth → caller limits → document → scope → variables → response cache → execute
//     → scrub → answer (observers: access log, metrics)
//
// A stage takes the request's context and the rest of the pipeline (`next`): it may answer at once
// (a refusal is thrown as a `Refusal`), or run the rest and return (or replace) its outcome. The
// scrub and the answer close every outcome the same way, whichever stage produced it, so no stage
// writes a body. Operator features are stages (the cache, the limits) or observers (the access
// log, metrics), never branches inside another stage.
import type { GatewayAnswer } from './answers.js';
import type { GatewayContext } from './context.js';

/**
 * What a stage produces: a GraphQL answer (scrubbed and written by the answer stage), or a
 * finished Response (probes, preflights, a 404), which holds nothing to scrub.
 */
export type Outcome = GatewayAnswer | Response;

/**
 * One named stage. `next` runs the stages after it: its outcome, or a promise of it when a later
 * stage waits (a stage awaits it, or returns it as it is).
 */
export interface Stage {
  readonly name: string;
  run(context: GatewayContext, next: () => Outcome | Promise<Outcome>): Outcome | Promise<Outcome>;
}

/**
 * Watches requests without taking part in them: told when one arrives, and once its response is
 * written (with the answer it was written from, when it was a GraphQL answer). An observer that
 * throws is ignored: it never changes an answer.
 */
export interface GatewayObserver {
  onRequest?(context: GatewayContext): void;
  /** Each upstream answer of the request's document, as it arrives. */
  onUpstream?(context: GatewayContext, status: number): void;
  onResponse?(context: GatewayContext, response: Response, answer: GatewayAnswer | undefined): void;
}

/**
 * Runs `stages` in order over `context`; a throw anywhere is handed to `refused`. The stages that
 * answer at once (host, auth, scope, variables) run in the same tick, without a promise of their
 * own: a request makes one promise per stage that waits, not one per stage.
 */
export function runStages(stages: readonly Stage[], context: GatewayContext, refused: (err: unknown) => Outcome): Promise<Outcome> {
  const at = (index: number): Outcome | Promise<Outcome> => {
    const stage = stages[index];
    if (!stage) throw new Error('the gateway pipeline ended without an answer');
    return stage.run(context, () => at(index + 1));
  };
  try {
    return Promise.resolve(at(0)).catch(refused);
  } catch (err) {
    return Promise.resolve(refused(err));
  }
}

/** Tells every observer, never letting one's failure reach the request. */
export function notify(observers: readonly GatewayObserver[], call: (observer: GatewayObserver) => void): void {
  for (const observer of observers) {
    try {
      call(observer);
    } catch {
      // An observer's bug must not change or fail an answer.
    }
  }
}

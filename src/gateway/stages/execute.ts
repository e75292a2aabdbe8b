// Stage "execute": the document's run upstream, through the client's one executor (RunPod's
// GraphQL, or schema.graphql in process over REST v2), bounded by its turn (fairness.ts): the
// caller's hang-up, the deadline, RunPod's pauses. Each upstream answer's id is kept for the
// answer's `extensions.requestIds`, and its status for the observers.
import type { ExecutionResult } from 'graphql';
import { ANSWERS_READ, SECRETS } from '../../transport/redact.js';
import { resultAnswer, stoppedAnswer, thrownAnswer, withheldDetails } from '../answers.js';
import type { GatewaySettings } from '../config.js';
import type { GatewayContext } from '../context.js';
import { ValuesRead } from '../scrub.js';
import { budgetEntry, type ExecuteBudget } from '../budget.js';
import type { Turn, TurnCaller } from '../fairness.js';
import type { HangUp } from '../hang-up.js';
import type { Stage } from '../pipeline.js';

/** Most upstream statuses one request records: one document makes at most a few dozen calls. */
const MAX_STATUSES = 64;

export interface ExecuteStageOptions {
  readonly settings: GatewaySettings;
  /** Starts the document's turn upstream (503 while RunPod's pause is longer than the wait). */
  readonly start: (caller: TurnCaller, operation: 'query' | 'mutation', hangUp: HangUp | undefined, onAnswer: (status: number) => void) => Turn;
  /** Lossy: nulls for fields REST v2 has no source for (`--null-for-no-source`), or undefined. */
  readonly noSource: ((result: ExecutionResult) => ExecutionResult) | undefined;
  /** Told each upstream answer's status (the observers). */
  readonly onUpstream: (context: GatewayContext, status: number) => void;
  /**
   * The document's upstream budget (budget.ts): its calls, the pages and items of its lists, its
   * calls at once out of its caller's fair share; every request the document makes carries it.
   */
  readonly budget?: ExecuteBudget | undefined;
}

export function executeStage(options: ExecuteStageOptions): Stage {
  return {
    name: 'execute',
    async run(context) {
      // Every call the document makes tells `read` what it parsed: its upstream details and
      // request ids are scrubbed of the env values in it (scrub.ts).
      const read = new ValuesRead();
      const answer = read.scrub(await runUpstream(context, read), context.ids);
      // What a token that may not read env is answered keeps no upstream detail (answers.ts).
      return withheldDetails(answer, context.caller!.scope);
    },
  };
  async function runUpstream(context: GatewayContext, read: ValuesRead) {
    {
      const { hangUp, ids, operation, params, text } = context;
      const caller = context.caller!;
      const passThrough = settings().passThrough;
      const onAnswer = (status: number) => {
        context.upstream.calls++;
        if (context.upstream.statuses.length < MAX_STATUSES) context.upstream.statuses.push(status);
        options.onUpstream(context, status);
      };
      // In flight from here: RunPod's pause, the deadline, the caller's rate debt (fairness.ts).
      const turnCaller: TurnCaller = { credential: caller.credential, upstream: caller.client(), address: caller.address, onRefusedKey: caller.onRefusedKey, onAcceptedKey: caller.onAcceptedKey, rate: caller.limits?.rate };
      const turn = options.start(turnCaller, operation!.operation as 'query' | 'mutation', hangUp, onAnswer);
      const fetchOptions = options.budget ? { ...turn.fetchOptions, ...budgetEntry(options.budget.forDocument(turnCaller)) } : turn.fetchOptions;
      let result: ExecutionResult;
      try {
        result = await caller.client().graphql.execute(text!, params!.variables, {
          operationName: params!.operationName,
          signal: turn.signal,
          fetchOptions,
          onResponse: (info) => ids.add(info.requestId),
          // Every call the document makes scrubs its errors of the document's secret inputs.
          ...(context.secrets && { [SECRETS]: context.secrets }),
          [ANSWERS_READ]: read.observe,
        } as Parameters<ReturnType<typeof caller.client>['graphql']['execute']>[2]);
      } catch (err) {
        const stopped = turn.stopped(err);
        if (stopped?.code === 'UPSTREAM_RATE_LIMITED') return stoppedAnswer({ data: undefined }, stopped);
        if (stopped) throw stopped;
        ids.addFrom(undefined, err);
        return thrownAnswer(err, passThrough);
      } finally {
        turn.end();
      }
      ids.addFrom(result.errors);
      const stopped = turn.stopped();
      // What ran before the gateway stopped it stays in the answer (a create's field error names its marker).
      if (stopped) return stoppedAnswer(result, stopped);
      return resultAnswer(options.noSource ? options.noSource(result) : result, passThrough);
    }
  }
  function settings() {
    return options.settings.current;
  }
}

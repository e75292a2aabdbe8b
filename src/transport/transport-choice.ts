import { ApiRetiredError, RateLimitError, type RunpodError } from '../errors.js';
import type { Log } from './logger.js';

/**
 * A reason to stop a request before it is sent, read again each time the pacer grants it a turn:
 * a call that waited while the reason arose is not sent. `signal` fires when it arises, so calls
 * waiting for a turn leave at once; `check` gives the error they end with; `retired` hears of a
 * 410 the moment it is answered, before the answered request frees its turn to the next one.
 */
export interface RequestGate {
  readonly signal: AbortSignal;
  check(): RunpodError | undefined;
  /** `early`: heard from the status alone; the error built from the whole answer follows. */
  retired(error: ApiRetiredError, early?: boolean): void;
}

/**
 * Which API serves `rp.graphql`, `rp.pods` and `rp.gpuTypes`. `'auto'`: RunPod's GraphQL while it
 * works, REST v2 for the client's whole life from the first 410 Gone on `graphqlUrl` (documents
 * then run in process). `'graphql'`: strict (a 410 is an ApiRetiredError). `'rest'`: REST v2 only,
 * GraphQL never touched.
 */
export type GraphQLTransport = 'auto' | 'graphql' | 'rest';

/** @deprecated The old name of {@link GraphQLTransport}. */
export type PodsTransport = GraphQLTransport;

/** The path one call took. */
export type TransportPath = 'graphql' | 'rest';

/** Reported once per switch from GraphQL to REST v2 (see `onTransportChange`). */
export interface TransportChangeEvent {
  /** `graphql`: a document of `rp.graphql` (from then on, documents run in process over REST v2). */
  readonly surface: 'pods' | 'gpuTypes' | 'graphql';
  /** The method whose call met the refusal, e.g. `deploy`. */
  readonly operation: string;
  readonly from: 'graphql';
  readonly to: 'rest';
  /** `retired`: GraphQL answered 410 Gone. `rate-limited`: a 429 outlived the retries (with `fallbackOnRateLimit`). */
  readonly reason: 'retired' | 'rate-limited';
  /** True when the client stays on REST from now on (a retirement); false for one call (a 429). */
  readonly sticky: boolean;
  readonly error: ApiRetiredError | RateLimitError;
}

export interface TransportChoiceOptions {
  readonly mode: GraphQLTransport;
  readonly fallbackOnRateLimit: boolean;
  readonly onTransportChange: ((event: TransportChangeEvent) => void) | undefined;
  /** The client's log: every switch is logged at info; without `onTransportChange`, the first at warn. */
  readonly log?: Log | undefined;
}

/**
 * One client's transport choice and its latch. The GraphQL client reports a 410 from
 * `graphqlUrl` here (`retired`), which is where it is first seen: a method-level catch would miss
 * the 410s that shared reads (the deploy catalog) swallow.
 */
export interface TransportChoice {
  readonly mode: GraphQLTransport;
  /** The path the next call of `rp.pods` / `rp.gpuTypes` takes. */
  current(): TransportPath;
  /** The 410 that latched this client to REST (in `'auto'`), once one did. */
  retirement(): ApiRetiredError | undefined;
  /** The GraphQL client saw 410 Gone on `graphqlUrl`: in `'auto'`, latch to REST for good. */
  retired(error: ApiRetiredError): void;
  /**
   * In `'auto'`, what every GraphQL request carries into the core (see {@link RequestGate}): a call
   * that waited for a GraphQL turn while the client switched leaves without sending, at once.
   */
  readonly gate: RequestGate | undefined;
  /**
   * Runs one call on the current path. On GraphQL, a 410 (in `'auto'`) or a standing 429 (with
   * `fallbackOnRateLimit`) re-issues the call on REST: both are refusals before any work.
   */
  run<T>(surface: TransportChangeEvent['surface'], operation: string, paths: { graphql: () => Promise<T>; rest: () => Promise<T> }): Promise<T>;
}

const OPTION_HINT = "set graphqlTransport (formerly podsTransport): 'auto' (or 'rest') so rp.graphql, rp.pods and rp.gpuTypes go on over REST v2";


/** One per client, never module-wide: a process may hold an emulator's client and production's. */
export function createTransportChoice(options: TransportChoiceOptions): TransportChoice {
  let latched: ApiRetiredError | undefined;
  // Fires once, at the switch: GraphQL calls still waiting for a pacing turn stop waiting.
  const switched = options.mode === 'auto' ? new AbortController() : undefined;
  // The latch was set from a 410's status alone: the error read from its whole answer replaces it.
  let early = false;
  const retired = (error: ApiRetiredError, fromStatus = false) => {
    // Strict mode: the error names the option that would have kept rp.pods and rp.gpuTypes going.
    if (options.mode === 'graphql') (error as { replacement: string | undefined }).replacement ??= OPTION_HINT;
    if (switched && (!latched || early)) {
      latched = error;
      early = fromStatus;
      switched.abort();
    }
  };
  let retirementReported = false;
  let warned = false;

  const report = (event: TransportChangeEvent): void => {
    const line = `rp.${event.surface} switched from GraphQL to REST v2 (${event.reason}${event.sticky ? ', for the rest of this client\'s life' : ', for this call'}) at ${event.operation}`;
    const fields = { operation: event.operation, surface: event.surface, reason: event.reason, sticky: event.sticky };
    if (options.onTransportChange) {
      options.log?.info(line, fields);
      // A throwing handler is the caller's bug; it must not change what the call does.
      try {
        options.onTransportChange(event);
      } catch {
        /* ignored on purpose */
      }
      return;
    }
    // One warning per client through its logger (console by default); later switches at info.
    if (warned) {
      options.log?.info(line, fields);
      return;
    }
    warned = true;
    options.log?.warn(`${line}; pass onTransportChange to handle this yourself`, fields);
  };

  const changeEvent = (surface: TransportChangeEvent['surface'], operation: string, reason: TransportChangeEvent['reason'], error: TransportChangeEvent['error']): TransportChangeEvent =>
    ({ surface, operation, from: 'graphql', to: 'rest', reason, sticky: reason === 'retired', error });

  // The latch may have been set by a read this call never saw (a shared catalog read): the event
  // then goes with the first call that takes the REST path because of it.
  const onRest = <T>(surface: TransportChangeEvent['surface'], operation: string, rest: () => Promise<T>): Promise<T> => {
    if (latched && !retirementReported) {
      retirementReported = true;
      report(changeEvent(surface, operation, 'retired', latched));
    }
    return rest();
  };

  return {
    mode: options.mode,
    current: () => (options.mode === 'rest' || latched ? 'rest' : 'graphql'),
    retirement: () => latched,
    retired,
    // The switch is read again once a call's GraphQL turn comes: it may have happened while it waited.
    gate: switched && { signal: switched.signal, check: () => latched, retired },
    // Not async, and no closure made on the way: this sits on every call of rp.pods and rp.gpuTypes.
    run(surface, operation, paths) {
      if (options.mode === 'rest') return paths.rest();
      if (latched) return onRest(surface, operation, paths.rest);
      let sent;
      try {
        sent = paths.graphql();
      } catch (err) {
        sent = Promise.reject(err);
      }
      return sent.catch((err: unknown) => {
        if (err instanceof ApiRetiredError && options.mode === 'auto' && latched) return onRest(surface, operation, paths.rest);
        if (err instanceof RateLimitError && options.mode === 'auto' && options.fallbackOnRateLimit) {
          report(changeEvent(surface, operation, 'rate-limited', err));
          return paths.rest();
        }
        throw err;
      });
    },
  };
}

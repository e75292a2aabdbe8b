// How the gateway hears that a caller hung up: the request's `signal`, or, behind the Node
// listener, the connection's close. The listener's adapter builds a request's AbortSignal only
// when something reads `signal` (an AbortController per request, and a listener on it): the
// listener tells the gateway of the close itself, and a request that stays connected costs one
// listener on its response.

/** A caller's hang-up, as the stages that wait or run upstream follow it. */
export interface HangUp {
  /** True once the caller hung up. */
  readonly aborted: boolean;
  /** Why (the signal's reason, or the connection's), once it hung up. */
  readonly reason: unknown;
  /** Calls `listener` once, when the caller hangs up; the function returned stops listening. */
  listen(listener: () => void): () => void;
}

/** Where a listener passes its connection's hang-up with a request (see `GatewayRequestInfo`). */
export const HANG_UP: unique symbol = Symbol('gateway hang-up');

/** The hang-up of a request's own `signal`, read only when something asks. */
class SignalHangUp implements HangUp {
  private read: AbortSignal | undefined;

  constructor(private readonly request: Request) {}

  private get signal(): AbortSignal {
    return (this.read ??= this.request.signal);
  }

  get aborted(): boolean {
    return this.signal.aborted;
  }

  get reason(): unknown {
    return this.signal.reason;
  }

  listen(listener: () => void): () => void {
    const signal = this.signal;
    signal.addEventListener('abort', listener, { once: true });
    return () => signal.removeEventListener('abort', listener);
  }
}

/** `request`'s hang-up: the listener's, when it passed one with the request, else its signal's. */
export function hangUpOf(request: Request, info: object | undefined): HangUp {
  return (info as { readonly [HANG_UP]?: HangUp } | undefined)?.[HANG_UP] ?? new SignalHangUp(request);
}

/** What a Node listener's connection shows of a hang-up (the request and response it serves). */
export interface Connection {
  readonly incoming: { readonly errored?: unknown };
  readonly outgoing: {
    readonly closed?: boolean;
    readonly writableFinished: boolean;
    once(event: 'close', listener: () => void): unknown;
    off(event: 'close', listener: () => void): unknown;
  };
}

/**
 * A connection's hang-up, as @hono/node-server tells its request's signal of it: the request
 * failed (its error), or the response closed before it was written whole.
 */
export function connectionHangUp({ incoming, outgoing }: Connection): HangUp {
  const reason = (): string | undefined => {
    if (incoming.errored) return String(incoming.errored);
    return outgoing.closed && !outgoing.writableFinished ? 'Client connection prematurely closed.' : undefined;
  };
  return {
    get aborted() {
      return reason() !== undefined;
    },
    get reason() {
      return reason();
    },
    listen(listener) {
      const closed = () => {
        if (incoming.errored || !outgoing.writableFinished) listener();
      };
      outgoing.once('close', closed);
      return () => outgoing.off('close', closed);
    },
  };
}

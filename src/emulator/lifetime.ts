/** A held request or stream: its signal fires when the caller hangs up or the emulator is disposed. */
export interface Hold {
  readonly signal: AbortSignal;
  /** Fires the signal, as the caller hanging up would (a reader that cancels the stream). */
  end(): void;
  /** The hold has ended: nothing of it stays registered. Calling it again does nothing. */
  release(): void;
}

/**
 * What `emulator.dispose()` ends besides timers: every request or stream still held. Each hold is
 * one entry in a set, removed when it ends, rather than a listener on a long-lived signal, so an
 * emulator that serves for weeks keeps nothing per finished request.
 */
export class Lifetime {
  private readonly holds = new Set<AbortController>();
  private ended = false;

  get disposed(): boolean {
    return this.ended;
  }

  /** Holds still registered (for tests of the bound). */
  get heldCount(): number {
    return this.holds.size;
  }

  /**
   * A signal that fires when `callerSignal` fires (already aborted included: a listener added then
   * would never run) or when the emulator is disposed, whichever comes first.
   */
  hold(callerSignal: AbortSignal | undefined): Hold {
    const controller = new AbortController();
    const onCaller = () => controller.abort(callerSignal!.reason);
    if (this.ended) controller.abort(disposedError());
    else if (callerSignal?.aborted) controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', onCaller, { once: true });
    if (!controller.signal.aborted) this.holds.add(controller);
    return {
      signal: controller.signal,
      end: () => controller.abort(new Error('the caller hung up')),
      release: () => {
        this.holds.delete(controller);
        callerSignal?.removeEventListener('abort', onCaller);
      },
    };
  }

  /** Ends every hold; later holds start ended. */
  dispose(): void {
    this.ended = true;
    for (const controller of [...this.holds]) controller.abort(disposedError());
    this.holds.clear();
  }
}

const disposedError = () => new Error('the emulator was disposed');

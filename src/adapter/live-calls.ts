/**
 * How long a call may run before its run is sent as running (a quicker one
 * is sent whole when it ends, see `CallRun`): a slow or stuck call shows in
 * the viewer within about twice this.
 */
export const SHOW_RUNNING_AFTER_MS = 10;

/** A call as {@link LiveCalls} keeps it: its run, which can be opened (sent as running). */
export interface LiveCall {
  /** The call's run. */
  readonly run: { readonly startedAt: number; open(): unknown };
}

/**
 * The gated calls running now: those whose runs have not been sent yet
 * (opened by {@link LiveCalls.showLongCalls} once they run longer than
 * {@link SHOW_RUNNING_AFTER_MS}, while a debugger is attached), and those
 * whose answer is not recorded yet (the one running call, for a custom
 * event or a `createMessage` that names no request).
 */
export class LiveCalls<C extends LiveCall> {
  /** Running, run not sent yet. */
  readonly #unsent = new Set<C>();
  /** Running, until their answer is recorded. */
  readonly #running = new Set<C>();
  #timer: NodeJS.Timeout | undefined;

  /** A call began. */
  began(call: C): void {
    this.#unsent.add(call);
    this.#running.add(call);
  }

  /** A call has its answer: its run goes out with it, whole or as the end of what was sent. */
  answered(call: C): void {
    this.#unsent.delete(call);
  }

  /** A call's answer is recorded: it runs no more. */
  ended(call: C): void {
    this.#running.delete(call);
  }

  /** The one call running now, if exactly one is (a guess that is right whenever it is made). */
  only(): C | undefined {
    if (this.#running.size !== 1) return undefined;
    for (const call of this.#running) return call;
    return undefined;
  }

  /** From now on, calls running longer than {@link SHOW_RUNNING_AFTER_MS} are shown as running (a debugger is there to see them). */
  showLongCalls(): void {
    this.#timer ??= setInterval(() => this.openLongCalls(Date.now()), SHOW_RUNNING_AFTER_MS).unref();
  }

  /** Stop showing long calls (the debugger went away, or the adapter is disposed). */
  stopShowing(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Open the runs of the calls that began {@link SHOW_RUNNING_AFTER_MS} or more before `now`. */
  openLongCalls(now: number): void {
    if (this.#unsent.size === 0) return;
    const before = now - SHOW_RUNNING_AFTER_MS;
    for (const call of this.#unsent) {
      if (call.run.startedAt > before) continue;
      this.#unsent.delete(call);
      try {
        call.run.open();
      } catch {
        // Observation is best-effort.
      }
    }
  }
}

import type { DebuggerGate } from '../gates/debugger-gate.js';
import type { Reporter } from '../report/reporter.js';

/** The reporter as {@link FirstContact} uses it: is a connection up, make an attempt now, wait for the one in flight. */
export type ContactReporter = Pick<Reporter, 'attached' | 'hurry' | 'settle'>;

/**
 * The adapter's first contact with a debugger, which the first gated call
 * waits for so that a breakpoint set before the process started holds it.
 *
 * The reporter starts looking for a debugger when `graphmind()` is called,
 * but attaching (a TCP probe, the handshake, the breakpoints) takes tens of
 * milliseconds, and a short-lived client's first call came sooner: it ran
 * on the detached path, where nothing holds. So the first call made while
 * no debugger is armed waits for the connection attempt under way (one is
 * made now if none is) to settle: attached and armed with the debugger's
 * breakpoints, or known absent. Nothing listening on the port refuses at
 * once, so with no debugger running this costs the first call about a
 * millisecond; with one, at most {@link FirstContact} `waitMs`.
 *
 * Once settled (or once the gate was armed some other way) the window is
 * closed for good: later calls never wait, and a debugger that attaches
 * later gets them as calls made while detached.
 */
export class FirstContact {
  readonly #reporter: ContactReporter;
  readonly #gate: Pick<DebuggerGate, 'armed' | 'whenArmed'>;
  readonly #waitMs: number;
  #open = true;
  #settling: Promise<void> | undefined;

  /** `waitMs`: the longest a call waits for the contact (the connect wait's 2000 ms in the adapter). */
  constructor(reporter: ContactReporter, gate: Pick<DebuggerGate, 'armed' | 'whenArmed'>, waitMs: number) {
    this.#reporter = reporter;
    this.#gate = gate;
    this.#waitMs = waitMs;
  }

  /** A call made now while the gate is not armed should {@link FirstContact.wait} first. */
  get open(): boolean {
    return this.#open;
  }

  /** No call waits from now on (the gate is armed, or the adapter disposed). */
  close(): void {
    this.#open = false;
  }

  /** Resolves once the contact has settled (the window is then closed); one wait shared by every call made meanwhile. */
  wait(): Promise<void> {
    if (!this.#open) return Promise.resolve();
    this.#settling ??= this.#settle();
    return this.#settling;
  }

  async #settle(): Promise<void> {
    const deadline = Date.now() + this.#waitMs;
    const reporter = this.#reporter;
    try {
      if (!this.#gate.armed) {
        // An attempt now, if none is under way (the backoff may be seconds away).
        reporter.hurry(0);
        const attached = await reporter.settle(this.#waitMs);
        // The debugger sends its breakpoints as soon as it has the connection.
        if (attached && this.#open) await this.#gate.whenArmed(Math.max(1, deadline - Date.now()));
      }
    } catch {
      // Observation is best-effort: the call goes on.
    } finally {
      this.#open = false;
    }
  }
}

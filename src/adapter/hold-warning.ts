import type { PendingHold } from '../gates/gate.js';

/** How long a hold lasts before the adapter warns (once) that a client may give up. */
export const HOLD_WARNING_MS = 1000;

/** A hold's end, when no warning was set up for it. */
const NO_WARNING = (): void => {};

/**
 * The one-time warning on stderr (never stdout) that a hold has lasted
 * more than {@link HOLD_WARNING_MS}: the MCP client may time out while it
 * waits.
 */
export class HoldWarning {
  readonly #warn: (line: string) => void;
  readonly #debugger: { readonly url: string };
  #warned = false;
  #stopped = false;

  /** `warn` prints a line; `where` is the debugger, whose address the warning names. */
  constructor(warn: (line: string) => void, where: { readonly url: string }) {
    this.#warn = warn;
    this.#debugger = where;
  }

  /**
   * A hold opened: one that lasts more than {@link HOLD_WARNING_MS} prints
   * the warning, the first time only. Returns what to call when this hold
   * ends: a hold decided in time never warns (nor lends its name to
   * another hold that is still waiting).
   */
  onHolding(hold: PendingHold, describe: string): () => void {
    if (this.#warned) return NO_WARNING;
    const timer = setTimeout(() => {
      if (this.#warned || this.#stopped) return;
      this.#warned = true;
      this.#warn(
        `graphmind adapter: ${describe} has been held at the ${hold.point} gate for over ${HOLD_WARNING_MS / 1000} s — the MCP client may time out; resume it in ${this.#debugger.url} (this warning is shown once)`,
      );
    }, HOLD_WARNING_MS);
    timer.unref();
    return () => clearTimeout(timer);
  }

  /** No warning from now on (the adapter is disposed). */
  stop(): void {
    this.#stopped = true;
  }
}

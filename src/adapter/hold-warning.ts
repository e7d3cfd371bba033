import type { PendingHold } from '../gates/gate.js';

/** How long a hold lasts before the adapter warns (once) that a client may give up. */
export const HOLD_WARNING_MS = 1000;

/** A hold's end, when no warning was set up for it. */
const NO_WARNING = (): void => {};

/** The debugger as the warnings name it: its address, and whether anyone watches it (false: the debugger said no viewer is open). */
export interface WatchedDebugger {
  /** The debugger's address. */
  readonly url: string;
  /** False while the debugger says no viewer watches; absent or true otherwise. */
  readonly watched?: boolean;
}

/**
 * The warnings on stderr (never stdout) about a hold: the one-time warning
 * that a hold has lasted more than {@link HOLD_WARNING_MS} (the MCP client
 * may time out while it waits), and, for each hold that opens while no
 * viewer watches the debugger, a line saying nobody can see it.
 */
export class HoldWarning {
  readonly #warn: (line: string) => void;
  readonly #debugger: WatchedDebugger;
  #warned = false;
  #stopped = false;

  /** `warn` prints a line; `where` is the debugger, whose address the warning names. */
  constructor(warn: (line: string) => void, where: WatchedDebugger) {
    this.#warn = warn;
    this.#debugger = where;
  }

  /**
   * A hold opened: one that opens while no viewer watches says so at once
   * (every such hold); one that lasts more than {@link HOLD_WARNING_MS}
   * prints the warning, the first time only. Returns what to call when this
   * hold ends: a hold decided in time never warns (nor lends its name to
   * another hold that is still waiting).
   */
  onHolding(hold: PendingHold, describe: string): () => void {
    if (this.#stopped) return NO_WARNING;
    if (this.#debugger.watched === false) {
      // Nobody can see it: that says more than the warning would, a second later.
      this.#warn(`graphmind adapter: ${describe} is held at the ${hold.point} gate and no viewer is open: open ${this.#debugger.url} to decide it; until then its client waits, and may time out`);
      return NO_WARNING;
    }
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

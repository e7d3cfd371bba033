import { randomBytes } from 'node:crypto';
import type { Breakpoints, GatePoint, HoldAction } from '../report/events.js';

/** Why a frame was held. */
export type HoldReason = 'breakpoint' | 'error' | 'loop';

/** What a decision resolves to. */
export interface Decision {
  action: HoldAction;
  /** The injected value, for `inject`. */
  value?: unknown;
  /** True when nobody decided: the debugger went away and the hold continued. */
  auto?: boolean;
}

/** A hold waiting for its decision. */
export interface PendingHold {
  readonly holdId: string;
  readonly point: GatePoint;
  readonly reason: HoldReason;
  readonly since: number;
}

/**
 * The decision core shared by every integration, with no streams and no
 * I/O: which points hold (breakpoints pushed from the server, the error
 * gate, the loop hold) and the holds waiting for a decision.
 *
 * It fails open: while detached nothing holds, and {@link Gate.releaseAll}
 * continues every hold when the debugger goes away. Deciding is idempotent:
 * only the first decision of a hold counts.
 */
export class Gate {
  /** The breakpoints in force (pushed by the server). */
  breakpoints: Breakpoints;
  /** Whether a debugger is attached; holds only happen while it is. */
  attached = false;
  readonly #holds = new Map<string, { hold: PendingHold; resolve: (decision: Decision) => void }>();

  constructor(breakpoints: Breakpoints = { pauseOnError: true, nodes: {} }) {
    this.breakpoints = breakpoints;
  }

  /** Holds waiting right now. */
  get pending(): number {
    return this.#holds.size;
  }

  /** Does a breakpoint on `nodeId` hold at `point` (`before` or `after`)? */
  breaksAt(nodeId: string, point: 'before' | 'after'): boolean {
    if (!this.attached) return false;
    const node = this.breakpoints.nodes[nodeId];
    return node !== undefined && node[point] === true;
  }

  /** Is the error gate armed? */
  get errorGateArmed(): boolean {
    return this.attached && this.breakpoints.pauseOnError;
  }

  /** Open a hold; the promise settles with its decision. */
  hold(point: GatePoint, reason: HoldReason): { hold: PendingHold; decision: Promise<Decision> } {
    const hold: PendingHold = { holdId: `hold_${randomBytes(12).toString('base64url')}`, point, reason, since: Date.now() };
    const decision = new Promise<Decision>((resolve) => this.#holds.set(hold.holdId, { hold, resolve }));
    return { hold, decision };
  }

  /** Decide a hold. Returns false if it is unknown or already decided. */
  decide(holdId: string, decision: Decision): boolean {
    const entry = this.#holds.get(holdId);
    if (entry === undefined) return false;
    this.#holds.delete(holdId);
    entry.resolve(decision);
    return true;
  }

  /** Let every hold go on (the debugger went away): fail open. */
  releaseAll(): void {
    for (const [holdId, entry] of this.#holds) {
      this.#holds.delete(holdId);
      entry.resolve({ action: 'continue', auto: true });
    }
  }
}

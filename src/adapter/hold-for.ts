import type { DebuggerGate } from '../gates/debugger-gate.js';
import type { PendingHold } from '../gates/gate.js';
import type { HoldPlan } from '../gates/hold-policy.js';
import { outcomeOf, type HeldKind, type Outcome } from '../gates/outcome.js';
import { heldMessage, type HideSettings } from '../report/hide.js';
import { givenUpWhy } from './given-up.js';

/** What {@link holdFor} needs of the adapter: the gate, the hide switches, and a word when a hold opens. */
export interface HoldHost {
  /** The debugger-connected gate. */
  readonly core: Pick<DebuggerGate, 'withHold' | 'giveUp'>;
  /** The hide switches, applied to the held message. */
  readonly hide: HideSettings;
  /** A hold opened (counted, and maybe warned about); returns what to call when it ends. */
  onHolding(hold: PendingHold, describe: string): () => void;
}

/** What is held, as a hold names it: the run, node, instance and method, and the client's give-up signal. */
export interface HoldTarget {
  /** The run the hold belongs to: opened (sent) before the hold is reported, which names it. */
  readonly run: { readonly runId: string; open(): unknown };
  /** The held node. */
  readonly nodeId: string;
  /** The held instance. */
  readonly instanceId: string;
  /** The JSON-RPC method of what is held. */
  readonly method: string;
  /** The SDK's signal for the request: when it fires, the client has given up on the hold. */
  readonly giveUpSignal: AbortSignal | undefined;
  /** What is held, in words, for the one-time warning. */
  describe(): string;
}

/**
 * Hold `target` at `plan` through the shared hold lifecycle
 * (`DebuggerGate.withHold`), showing `message` (a request, or an answer:
 * `kind`, before the hide switches), and return the decision's outcome
 * (the shared decision table, `outcomeOf`).
 *
 * A client that gives up meanwhile (the SDK's signal for the request fires:
 * it cancelled, or went away) leaves the hold open to be decided; the hold
 * is reported given up (the give-up rule, `gates/give-up`). So is a hold
 * that opens for a request already given up.
 */
export async function holdFor(host: HoldHost, target: HoldTarget, kind: HeldKind, message: Record<string, unknown>, plan: HoldPlan): Promise<Outcome> {
  const method = target.method;
  const frame = heldMessage(message, kind === 'request', method, host.hide, () => message);
  const core = host.core;
  const runId = target.run.runId;
  target.run.open();
  const signal = target.giveUpSignal;
  let ended: (() => void) | undefined;
  let onGiveUp: (() => void) | undefined;
  try {
    return await core.withHold(
      { runId, nodeId: target.nodeId, instanceId: target.instanceId, method, frame },
      plan,
      (decision) => outcomeOf(kind, decision),
      (hold) => {
        ended = host.onHolding(hold, target.describe());
        if (signal === undefined) return;
        // Listened to only while holding: a listener on every call's signal cost more than it is worth.
        onGiveUp = (): void => core.giveUp(runId, hold.holdId, givenUpWhy(signal.reason));
        if (signal.aborted) onGiveUp();
        else signal.addEventListener('abort', onGiveUp, { once: true });
      },
    );
  } finally {
    ended?.();
    if (onGiveUp !== undefined) signal?.removeEventListener('abort', onGiveUp);
  }
}

import type { HoldPlan } from '../gates/hold-policy.js';
import { ABORT_CODE, ABORT_MESSAGE, outcomeOf, type HeldKind, type Outcome } from '../gates/outcome.js';
import { heldMessage } from '../report/hide.js';
import type { AdapterRuntime } from './adapter-runtime.js';
import { DebuggerAnswer } from './request-scope.js';

/** What a hold is told about the held thing: the message the viewer shows. */
export interface HeldThing {
  runId: string;
  nodeId: string;
  instanceId: string;
  method: string;
  /** `request` (before), `answer` (after / error). */
  kind: HeldKind;
  /** The message as it would travel, before the hide switches. */
  message: Record<string, unknown>;
  /** For the one-time warning: what is held. */
  describe: string;
  /** The SDK's signal for the request: when the client gives up (cancels, or goes away), the hold goes on. */
  giveUp?: AbortSignal;
  /** Send the run's beginning if it has not gone yet: a hold names its run and instance. */
  open: () => void;
}

/**
 * Hold `thing` at `plan` through the shared hold lifecycle and return the
 * decision's outcome (the shared decision table).
 */
export async function holdFor(runtime: AdapterRuntime, thing: HeldThing, plan: HoldPlan): Promise<Outcome> {
  const frame = heldMessage(thing.message, thing.kind === 'request', thing.method, runtime.hide, () => thing.message);
  const core = runtime.core;
  thing.open();
  const giveUp = thing.giveUp;
  // Listened to only while holding: a listener on every call's signal cost more than it is worth.
  const onGiveUp = (): void => core.releaseRun(thing.runId);
  if (giveUp !== undefined) {
    if (giveUp.aborted) return outcomeOf(thing.kind, { action: 'continue' });
    giveUp.addEventListener('abort', onGiveUp, { once: true });
  }
  let ended: (() => void) | undefined;
  try {
    return await core.withHold(
      { runId: thing.runId, nodeId: thing.nodeId, instanceId: thing.instanceId, method: thing.method, frame },
      plan,
      (decision) => outcomeOf(thing.kind, decision),
      (hold) => {
        ended = runtime.onHolding(hold, thing.describe);
      },
    );
  } finally {
    ended?.();
    giveUp?.removeEventListener('abort', onGiveUp);
  }
}

/** The error a request aborted in the debugger ends with (the proxy's -32099). */
export function abortError(): DebuggerAnswer {
  return new DebuggerAnswer(ABORT_CODE, ABORT_MESSAGE);
}

import type { GatePoint } from '../protocol/control.js';
import type { CallRun } from './call-run.js';
import type { DebuggerAnswer } from './debugger-answer.js';

/**
 * A gated handler call while it runs, as the pieces around it see it: a
 * sampling request it sends nests under it, a custom event is logged on
 * its node, and a decision on a nested hold may abort it.
 */
export interface RunningCall {
  /** The call's run. */
  readonly run: CallRun;
  /** The call's node. */
  readonly nodeId: string;
  /** The SDK's abort signal for the call's request: it fires when the client gives up. */
  readonly giveUpSignal: AbortSignal | undefined;
  /** The next nested instance id (`kind`: what is nested, e.g. `sampling`). */
  nestedId(kind: string): string;
  /**
   * Abort the call from a hold decided at `point`: its handler's signal
   * fires, and the request ends with -32099. Returns the error it ends with.
   */
  abort(point: GatePoint): DebuggerAnswer;
}

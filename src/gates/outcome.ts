import type { InstanceError } from '../protocol/run-model.js';
import type { GatePoint, HoldAction } from '../protocol/control.js';
import { isWholeFrame } from './lift.js';

/** The JSON-RPC error code a requester receives when a call is aborted in the debugger. */
export const ABORT_CODE = -32099;
/** The message of that error. */
export const ABORT_MESSAGE = 'Aborted in the GraphMind debugger';

/**
 * How a call aborted in the debugger is recorded, by every integration: an
 * `Aborted` error with {@link ABORT_CODE}, naming the gate it was held at.
 */
export function abortedRecord(point: GatePoint): InstanceError {
  return { name: 'Aborted', message: `aborted in the debugger at the ${point} gate`, code: ABORT_CODE };
}

/**
 * What was held: a request on its way to be handled (`before` gate), a
 * notification (before gate only: it has no answer), or the answer to a
 * request (`after` and `error` gates).
 */
export type HeldKind = 'request' | 'notification' | 'answer';

/**
 * What carrying out a decision does, for any integration. The proxy turns it
 * into bytes on the wire; the in-process adapter into a return, a throw or a
 * second call of the handler.
 *
 * - `forward`: let the held thing go on unchanged.
 * - `answer`: answer the requester with `value` lifted into the method's
 *   result shape (see `liftResult`): instead of running the call, or in
 *   place of its answer.
 * - `answer-frame`: answer with a whole JSON-RPC message typed by the user
 *   (it has a `jsonrpc` key), verbatim: how an `error` answer is injected.
 * - `replace`: a notification goes on as `value`, in its place.
 * - `fail`: answer the requester with the JSON-RPC error {@link ABORT_CODE}.
 * - `retry`: drop the answer and run the request again.
 * - `drop`: a notification is swallowed.
 */
export type Outcome = ForwardOutcome | AnswerOutcome | AnswerFrameOutcome | ReplaceOutcome | FailOutcome | RetryOutcome | DropOutcome;

/** Let the held thing go on unchanged. */
export interface ForwardOutcome {
  /** Which outcome this is. */
  kind: 'forward';
}

/**
 * Answer the requester with `value` lifted into the method's result shape
 * (see `liftResult`): instead of running the call, or in place of its answer.
 */
export interface AnswerOutcome {
  /** Which outcome this is. */
  kind: 'answer';
  /** The injected value, not yet lifted. */
  value: unknown;
}

/**
 * Answer the requester with a whole JSON-RPC message typed by the user,
 * verbatim: how an `error` answer is injected.
 */
export interface AnswerFrameOutcome {
  /** Which outcome this is. */
  kind: 'answer-frame';
  /** The injected message (it has a `jsonrpc` key). */
  frame: Record<string, unknown>;
}

/** A held notification goes on as `value`, in its place. */
export interface ReplaceOutcome {
  /** Which outcome this is. */
  kind: 'replace';
  /** The injected value that stands in for the notification. */
  value: unknown;
}

/** Answer the requester with a JSON-RPC error: how an abort reaches it. */
export interface FailOutcome {
  /** Which outcome this is. */
  kind: 'fail';
  /** The JSON-RPC error code ({@link ABORT_CODE} from {@link outcomeOf}). */
  code: number;
  /** The JSON-RPC error message ({@link ABORT_MESSAGE} from {@link outcomeOf}). */
  message: string;
}

/** Drop the held answer and run the request again. */
export interface RetryOutcome {
  /** Which outcome this is. */
  kind: 'retry';
}

/** A held notification is swallowed. */
export interface DropOutcome {
  /** Which outcome this is. */
  kind: 'drop';
}

/** A decision as an integration receives it. */
export interface DecisionInput {
  /** What the user decided; an action nobody knows is taken as `continue`. */
  action: HoldAction | string;
  /** The injected value, for `inject`. */
  value?: unknown;
}

const FORWARD: Outcome = Object.freeze({ kind: 'forward' });
const RETRY: Outcome = Object.freeze({ kind: 'retry' });
const DROP: Outcome = Object.freeze({ kind: 'drop' });
const FAIL: Outcome = Object.freeze({ kind: 'fail', code: ABORT_CODE, message: ABORT_MESSAGE });

/**
 * The decision table, pure and shared by every integration:
 *
 * | action | request (before) | notification (before) | answer (after / error) |
 * |---|---|---|---|
 * | continue | forward | forward | forward |
 * | inject | answer (or answer-frame) | replace | answer (or answer-frame) |
 * | retry | forward: nothing has run yet | forward | retry |
 * | abort | fail (-32099) | drop | fail (-32099) |
 *
 * An injected value with a `jsonrpc` key is a whole message (`answer-frame`).
 * An action nobody knows fails open: forward.
 */
export function outcomeOf(held: HeldKind, decision: DecisionInput): Outcome {
  switch (decision.action) {
    case 'inject':
      if (held === 'notification') return { kind: 'replace', value: decision.value };
      return isWholeFrame(decision.value) ? { kind: 'answer-frame', frame: decision.value } : { kind: 'answer', value: decision.value };
    case 'abort':
      return held === 'notification' ? DROP : FAIL;
    case 'retry':
      return held === 'answer' ? RETRY : FORWARD;
    default:
      return FORWARD;
  }
}

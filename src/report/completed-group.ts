import { isObject } from '../json/is-object.js';
import { COMPLETED_GROUP } from '../protocol/ingest-batch-layout.js';
import { COMPLETED_RUN, expandCompletedRun } from './completed-run.js';
import type { InstanceCompletedEvent, NodeDeclaration } from '../protocol/ingest.js';

/**
 * Consecutive `instance.completed` events of one run and one node, with
 * consecutive `seq`, as one element of an ingest batch (and one line of a
 * run's log): the node, run and first `seq` written once, and each call as
 * `[instanceId, t, endT, input, output]`, with the JSON-RPC id of its
 * request as a sixth slot when it has one (`requestId`). A burst of calls to one tool is
 * about a third of the bytes it would be as separate events, for the
 * reporter to write, the socket to carry, the server to read and the log to
 * keep. Readers expand it back into the events it stands for
 * ({@link expandCompletedGroup}): nothing past the ingest reader and the log
 * loader knows it exists.
 *
 * Every call in a group has both an input and an output (an array has no
 * way to leave one out). The bundled reporter groups two or more calls
 * whose values it copies from the frames as they came (not hidden, not
 * too large), of a node from its naming table, with times in whole
 * milliseconds; anything else goes as single events, as any reporter may
 * always send them.
 */
export interface CompletedGroup {
  type: typeof COMPLETED_GROUP;
  node: NodeDeclaration;
  runId: string;
  /** The first call's; the next call's is one more, and so on. */
  seq: number;
  /** Each call: five slots, or six when the call has a request id (never a `null` sixth: a call without one has five). */
  calls: Array<[instanceId: string, t: number, endT: number, input: unknown, output: unknown, requestId?: string | number]>;
}

/** The `type` of a {@link CompletedGroup} (defined with the batch layout both the reporter and the server use). */
export { COMPLETED_GROUP };

/**
 * True if `value` claims to stand for several events, whether or not it has
 * the right shape: a group of calls, or a completed run
 * (report/completed-run.ts). Its text is then no single event's.
 */
export function isCompletedGroup(value: unknown): value is Record<string, unknown> {
  return isObject(value) && (value.type === COMPLETED_GROUP || value.type === COMPLETED_RUN);
}

/**
 * The events a group of calls (or a completed run) stands for, in order;
 * undefined if `value` is one of the wrong shape. Anything else: `[value]`
 * as it is. The events are not validated here: the caller checks each as it
 * checks any event.
 */
export function expandCompletedGroup(value: unknown): unknown[] | undefined {
  if (!isCompletedGroup(value)) return [value];
  if (value.type === COMPLETED_RUN) return expandCompletedRun(value);
  const { node, runId, seq, calls } = value;
  if (!Number.isSafeInteger(seq) || !Array.isArray(calls) || calls.length === 0) return undefined;
  const events: InstanceCompletedEvent[] = [];
  for (let k = 0; k < calls.length; k++) {
    const call: unknown = calls[k];
    if (!Array.isArray(call) || (call.length !== 5 && call.length !== 6)) return undefined;
    const [instanceId, t, endT, input, output, requestId] = call as unknown[];
    // Exactly the event JSON.parse would give had the call been sent alone: its id, if any, where an `instance.completed` has it.
    const at = (seq as number) + k;
    const event =
      call.length === 6
        ? { type: 'instance.completed', instanceId, node, input, output, endT, requestId, runId, seq: at, t }
        : { type: 'instance.completed', instanceId, node, input, output, endT, runId, seq: at, t };
    events.push(event as InstanceCompletedEvent);
  }
  return events;
}

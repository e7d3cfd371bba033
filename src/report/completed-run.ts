import type { InstanceError } from '../protocol/run-model.js';
import type { NodeDeclaration, RunEvent } from '../protocol/ingest.js';

/**
 * A whole run of one call, sent once it is over, as one element of an
 * ingest batch (and one line of the run's log): what an in-process adapter
 * records for a request that nobody held and that ended quickly. It stands
 * for six or seven events: the run started, its root (the server node)
 * started, the call started and ended (one `instance.completed`, or a start
 * and an `instance.error`), the root ended, the run finished. Readers
 * expand it back (`expandCompletedRun`); nothing past the ingest
 * reader and the log loader knows it exists.
 *
 * Its fields are all at the top level, so a reporter can write the parts
 * that are the same for every call of a connection (`meta`, `root`, `node`)
 * from bytes it keeps.
 */
export interface CompletedRun {
  /** Always {@link COMPLETED_RUN}. */
  type: typeof COMPLETED_RUN;
  /** The run's id. */
  runId: string;
  /** The run.started's seq; the events after it take the next ones. */
  seq: number;
  /** When the run (and its call) began, ms since the epoch. */
  t: number;
  /** When the call (and the run) ended. */
  endT: number;
  /** The run's name, as its `run.started` gives it. */
  name: string;
  /** The run's source, as its `run.started` gives it. */
  source: string;
  /** The run's metadata, as its `run.started` gives it. */
  meta: Record<string, unknown>;
  /** The run's root: `{ instanceId, node, input }`. */
  root: {
    /** The root's instance. */
    instanceId: string;
    /** The root's node (the server node). */
    node: NodeDeclaration;
    /** The root's input. */
    input?: unknown;
  };
  /** The call's instance. */
  instanceId: string;
  /** The call's node. */
  node: NodeDeclaration;
  /** The call's input. */
  input?: unknown;
  /** The JSON-RPC id of the request the call answers, if it has one (its events carry it as `requestId`). */
  requestId?: string | number;
  /** What it answered (kept with an error too, as a failed tool result is). */
  output?: unknown;
  /** Set when the call failed: it ends in `instance.error` and the run in `error`. */
  error?: InstanceError;
}

/** The `type` of a {@link CompletedRun}. */
export const COMPLETED_RUN = 'run.completed';

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** True if `value` claims to be a completed run (its `type` says so), whether or not it has the right shape. */
export function isCompletedRun(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && value.type === COMPLETED_RUN;
}

/**
 * The events a completed run stands for, in order (see {@link RunEvent}); undefined if its shape
 * is wrong. The events are not validated here: the caller checks each as it
 * checks any event (so a bad node or time is caught there).
 */
export function expandCompletedRun(value: Record<string, unknown>): unknown[] | undefined {
  const { runId, seq, t, endT, name, source, meta, root, instanceId, node, input, requestId, output, error } = value;
  if (typeof runId !== 'string' || !Number.isSafeInteger(seq) || typeof t !== 'number' || typeof endT !== 'number') return undefined;
  if (typeof name !== 'string' || typeof source !== 'string' || !isRecord(meta) || !isRecord(root) || typeof root.instanceId !== 'string') return undefined;
  if (typeof instanceId !== 'string' || !isRecord(node) || (error !== undefined && !isRecord(error))) return undefined;
  let s = seq as number;
  const events: unknown[] = [
    { type: 'run.started', runId, seq: s, t, name, source, meta },
    { type: 'instance.started', instanceId: root.instanceId, node: root.node, input: root.input, runId, seq: ++s, t },
  ];
  if (error === undefined) {
    events.push({ type: 'instance.completed', instanceId, node, input, output, endT, requestId, runId, seq: ++s, t });
  } else {
    events.push({ type: 'instance.started', instanceId, node, input, requestId, runId, seq: ++s, t });
    events.push({ type: 'instance.error', instanceId, output, error, runId, seq: ++s, t: endT });
  }
  events.push({ type: 'instance.finished', instanceId: root.instanceId, runId, seq: ++s, t: endT });
  events.push({ type: 'run.finished', status: error === undefined ? 'ok' : 'error', runId, seq: ++s, t: endT });
  return events;
}

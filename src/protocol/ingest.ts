/**
 * The ingest protocol: the events a reporter sends about a run over the
 * ingest socket (`/ingest`). The server appends them to the run's log and
 * replays them into a {@link Run}.
 *
 * @module
 */
import type { GatePoint, Hold, HoldAction } from './control.js';
import type { GraphNode, Instance, InstanceError, LogLine, NodeKind, Run, RunSummary, RUN_ID_PATTERN } from './run-model.js';

/**
 * Node fields carried by the event that first mentions a node. Only the
 * first declaration of a `nodeId` counts: later ones change nothing.
 */
export interface NodeDeclaration {
  /** The node's id ({@link GraphNode.nodeId}): a non-empty string of at most 1,024 characters. */
  nodeId: string;
  /** The node's kind ({@link GraphNode.kind}). */
  kind: NodeKind;
  /** The parent node's id, or null for the session ({@link GraphNode.parent}). */
  parent: string | null;
  /** The text shown for the node ({@link GraphNode.label}). */
  label: string;
}

/** Fields every run event has. */
interface EventBase {
  /** The run the event belongs to; it matches {@link RUN_ID_PATTERN}. A connection's events for a run it does not own are ignored. */
  runId: string;
  /**
   * Per-run sequence number from 1; the server ignores repeats. `0` marks
   * an event outside the sequence (the reporter's `events.dropped`, the
   * server's own `run.meta`), applied whenever it comes.
   */
  seq: number;
  /** When it happened, in milliseconds since the epoch. */
  t: number;
}

/** A run began (sent again on reconnect, to reclaim it). */
export interface RunStartedEvent extends EventBase {
  /** The event's type. */
  type: 'run.started';
  /**
   * The run's name ({@link RunSummary.name}). Only the first `run.started`
   * the server applies sets it, as it sets `source`, `meta` and the start
   * time; a reclaim changes none of them.
   */
  name: string;
  /** What records the run ({@link RunSummary.source}). */
  source: string;
  /** The run's metadata to begin with ({@link Run.meta}). */
  meta: Record<string, unknown>;
}
/** More metadata learned during the run (merged into `meta`). */
export interface RunMetaEvent extends EventBase {
  /** The event's type. */
  type: 'run.meta';
  /** Keys to set in {@link Run.meta}: each replaces that key's value there; keys not named keep theirs. */
  meta: Record<string, unknown>;
}
/** The run ended. */
export interface RunFinishedEvent extends EventBase {
  /** The event's type. */
  type: 'run.finished';
  /** How it ended: the run's {@link RunSummary.status} from now on (its `endedAt` is this event's time). */
  status: 'ok' | 'error';
}
/** An execution began; declares its node on first mention. */
export interface InstanceStartedEvent extends EventBase {
  /** The event's type. */
  type: 'instance.started';
  /** The new execution's id ({@link Instance.instanceId}); a start for an id the run already has is ignored. */
  instanceId: string;
  /** The node it is an execution of, declared if the run does not have it yet. */
  node: NodeDeclaration;
  /** What it was given ({@link Instance.input}). */
  input?: unknown;
  /**
   * The JSON-RPC id of the request this execution answers, when it is a
   * request and has one (not on notifications, nor on the session). The
   * exports name the call by it (OpenTelemetry's `jsonrpc.request.id`, the
   * HAR entry's request). An extension: a reporter that does not send it
   * leaves the exports only the ids its held frames showed.
   */
  requestId?: string | number;
  /**
   * Who had the debugger send this request ({@link Instance.sentBy}), when
   * the host did not: a request the proxy sent to the server itself (Send
   * again), whose answer never reached the host. 1 to 64 characters. An
   * extension: absent on every call of the host.
   */
  sentBy?: string;
}
/**
 * An execution that began and ended well between two of the reporter's
 * batches, in one event: its start and its end. `t` is when it began (the
 * event stands where its start would), `endT` when it ended.
 */
export interface InstanceCompletedEvent extends EventBase {
  /** The event's type. */
  type: 'instance.completed';
  /** The new execution's id ({@link Instance.instanceId}); ignored if the run already has it. */
  instanceId: string;
  /** The node it is an execution of, declared if the run does not have it yet. */
  node: NodeDeclaration;
  /** What it was given ({@link Instance.input}). */
  input?: unknown;
  /** What it gave back ({@link Instance.output}). */
  output?: unknown;
  /** When it ended, in milliseconds since the epoch. */
  endT: number;
  /**
   * The JSON-RPC id of the request this execution answers, when it is a
   * request and has one (not on notifications, nor on the session). The
   * exports name the call by it (OpenTelemetry's `jsonrpc.request.id`, the
   * HAR entry's request). An extension: a reporter that does not send it
   * leaves the exports only the ids its held frames showed.
   */
  requestId?: string | number;
}
/**
 * An execution ended well. An end for an execution that has ended already
 * replaces that end whole (a decision at an after gate took the place of
 * the answer).
 */
export interface InstanceFinishedEvent extends EventBase {
  /** The event's type. */
  type: 'instance.finished';
  /** The execution that ended; an id the run does not have is ignored. */
  instanceId: string;
  /** What it gave back ({@link Instance.output}); absent, it has none (an earlier output is dropped). */
  output?: unknown;
}
/** An execution ended in error (replacing an earlier end, as `instance.finished` does). */
export interface InstanceErrorEvent extends EventBase {
  /** The event's type. */
  type: 'instance.error';
  /** The execution that ended; an id the run does not have is ignored. */
  instanceId: string;
  /** Why it failed ({@link Instance.error}). */
  error: InstanceError;
  /** What it gave back, if anything (a failed tool result; {@link Instance.output}). */
  output?: unknown;
}
/** An execution that ended is open again (a retried request). */
export interface InstanceReopenedEvent extends EventBase {
  /** The event's type. */
  type: 'instance.reopened';
  /**
   * The execution to open again; ignored if the run does not have it or
   * it is open. The answer it had moves to its {@link Instance.attempts}.
   */
  instanceId: string;
}
/** A log line. */
export interface LogEvent extends EventBase {
  /** The event's type. */
  type: 'log';
  /** The node the line goes on ({@link LogLine.nodeId}). */
  nodeId: string;
  /** The call the line is attributed to ({@link LogLine.instanceId}); optional, an extension. */
  instanceId?: string;
  /** Where the line came from ({@link LogLine.stream}). */
  stream: string;
  /** The line's text ({@link LogLine.text}). */
  text: string;
  /** A logpoint's line (`stream: "logpoint"`): the rule that logged it ({@link LogLine.ruleId}). */
  ruleId?: string;
  /** A logpoint's line: the values its expression looked at ({@link LogLine.values}). */
  values?: Array<{ at: string; value: unknown }>;
}
/** The reporter dropped events (its buffer was full). */
export interface DroppedEvent extends EventBase {
  /** The event's type. */
  type: 'events.dropped';
  /** How many events of the run it dropped since it last said so: added to {@link Run.droppedEvents}. */
  count: number;
}
/** A frame is held at a gate. */
export interface HoldOpenedEvent extends EventBase {
  /** The event's type. */
  type: 'hold.opened';
  /** The hold's id ({@link Hold.holdId}); it matches {@link RUN_ID_PATTERN}. */
  holdId: string;
  /** The node of the held call ({@link Hold.nodeId}). */
  nodeId: string;
  /** The execution the held frame belongs to ({@link Hold.instanceId}). */
  instanceId: string;
  /** The gate it is held at ({@link Hold.gate}). */
  gate: GatePoint;
  /** The JSON-RPC method of the held call ({@link Hold.method}). */
  method: string;
  /** The held message ({@link Hold.frame}). */
  frame: unknown;
  /** Why it holds ({@link Hold.reason}): kept only when it is a string. */
  reason?: string;
  /** With reason `rule`: the rule that holds it ({@link Hold.ruleId}); kept only when it is a string. */
  ruleId?: string;
}
/** A held frame was released (decided, or let go by the reporter). */
export interface HoldReleasedEvent extends EventBase {
  /** The event's type. */
  type: 'hold.released';
  /** The hold that ended; only the connection that opened it can release it. */
  holdId: string;
  /**
   * What the frame was decided with (`continue` when it was let go
   * without a decision). A `continue` of a held answer sets the call's
   * {@link Instance.deliveredAt} to this event's time, when that is later
   * than the call's end.
   */
  action: HoldAction;
}

/**
 * Something changed about a frame held right now: its requester has given
 * up on it (`givenUp` says why, for people). The hold stays open until it
 * is decided or released, as before.
 */
export interface HoldUpdatedEvent extends EventBase {
  /** The event's type. */
  type: 'hold.updated';
  /** The hold whose requester gave up; one the connection does not own, or already decided, is left as it is. */
  holdId: string;
  /** Who gave up and why, for people (1 to 1,024 characters): becomes {@link Hold.givenUp}. */
  givenUp: string;
}

/** Every event a reporter sends about a run. */
export type RunEvent =
  | RunStartedEvent
  | RunMetaEvent
  | RunFinishedEvent
  | InstanceStartedEvent
  | InstanceCompletedEvent
  | InstanceFinishedEvent
  | InstanceErrorEvent
  | InstanceReopenedEvent
  | LogEvent
  | DroppedEvent
  | HoldOpenedEvent
  | HoldUpdatedEvent
  | HoldReleasedEvent;

/**
 * Not a run event: the reporter has applied the breakpoints numbered
 * `version` (its gates read them from now on). Sent as a message of its own,
 * for each breakpoints message that carried a version; the server answers
 * `PUT /api/breakpoints` once every reporter connected at the time has
 * acked (or 2 s passed).
 */
export interface BreakpointsAck {
  /** The message's type. */
  type: 'breakpoints.ack';
  /** The version of the breakpoints applied. */
  version: number;
}

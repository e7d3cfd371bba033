/**
 * The run model and the events that build it. Reporters send events over
 * the ingest socket; the server appends them to a run's log and replays
 * them into a {@link Run}. A run is nothing but the replay of its events.
 *
 * @module
 */

/** The status of a run. */
export type Status = 'running' | 'ok' | 'error';
/** The status of a node or of one execution of it. */
export type NodeStatus = 'open' | 'ok' | 'error';
/** The kinds of node on the graph. */
export type NodeKind = 'server' | 'tool' | 'resource' | 'prompt' | 'llm' | 'custom';

/** A run as listed. */
export interface RunSummary {
  runId: string;
  name: string;
  source: 'mcp-proxy' | 'mcp-adapter' | string;
  status: Status;
  /** ISO 8601. */
  startedAt: string;
  endedAt: string | null;
  /**
   * The adapter connection the run belongs to: set by the server on
   * `mcp-adapter` runs whose `meta` names a `server` and a `connection`
   * (one per request, plus the connection's `mcp:connect` run), absent on
   * every other run. Runs with the same `id` came over one connection of
   * one server: the same `meta.server` and `meta.connection`, reported by
   * the same process (the bundled reporter's run ids say which; two
   * processes both have a `c1`). `sessionId` is the run's `meta.sessionId`
   * (the HTTP session) when it has one; the connection's `mcp:connect` run,
   * made before any request, has none, so it does not split the group.
   * The viewer lists a group as one row. An extension of the summary: a
   * client that does not know it can ignore it.
   */
  group?: {
    /** Equal for the runs of one connection; compare this, not the parts. Opaque. */
    id: string;
    /** `meta.server`: the MCP server's name. */
    server: string;
    /** `meta.connection`: `c1`, `c2`, … in the order the server process connected. */
    connection: string;
    /** `meta.sessionId`: the transport's session (Streamable HTTP), when there is one. */
    sessionId?: string;
  };
  /**
   * The MCP server's own name and version, from `serverInfo` in its answer
   * to `initialize` (the run's `meta.serverInfo`), once the run has it: set
   * by the server on every run whose meta carries one. Two runs of the same
   * command line are told apart by it and by their name. An extension of
   * the summary: a client that does not know it can ignore it.
   */
  server?: {
    /** `meta.serverInfo.name`. */
    name: string;
    /** `meta.serverInfo.version`, when it is a string. */
    version?: string;
  };
}

/** A run with everything recorded in it. */
export interface Run extends RunSummary {
  /** Command, args (unless hidden), app, sdk, protocolVersion, … */
  meta: Record<string, unknown>;
  /** One per logical node; `nodeId` is stable across executions. */
  nodes: GraphNode[];
  /** One per execution, in start order. */
  instances: Instance[];
  /** Server stderr and other log lines, in arrival order. */
  logs: LogLine[];
  /** Events the reporter had to drop while the debugger was away or behind. */
  droppedEvents: number;
  /**
   * The sequence number of the last event applied: a client that fetched
   * the run skips live `run.event`s up to it.
   */
  lastSeq: number;
}

/** A logical node of a run's graph. */
export interface GraphNode {
  nodeId: string;
  kind: NodeKind;
  /** The parent's nodeId; null for the session. */
  parent: string | null;
  label: string;
  /** error if any instance errored, else open if any is open, else ok. */
  status: NodeStatus;
}

/** An error recorded on an instance. */
export interface InstanceError {
  name: string;
  message: string;
  code?: number;
  data?: unknown;
}

/**
 * An earlier answer to a call whose request was sent again (Retry at an
 * after gate): it arrived, was held, and was dropped, so the requester
 * never saw it. Kept in {@link Instance.attempts}.
 */
export interface InstanceAttempt {
  /** How that answer ended the call: `ok`, or `error` (a JSON-RPC error, an `isError` result). */
  status: 'ok' | 'error';
  /** Its output, as recorded. */
  output?: unknown;
  /** Its error, as recorded. */
  error?: InstanceError;
  /** When it arrived (ISO 8601): the call's end as recorded then. */
  endedAt: string;
  /** When it was dropped and the request sent again (ISO 8601): the `instance.reopened` event's time. */
  retriedAt: string;
}

/** One execution of a node. */
export interface Instance {
  /** For the proxy, a per-session counter: `mcp_1`, `mcp_2`, … */
  instanceId: string;
  nodeId: string;
  status: NodeStatus;
  input?: unknown;
  output?: unknown;
  error?: InstanceError;
  startedAt: string;
  endedAt: string | null;
  /**
   * The answers this call had before the one it has now, oldest first:
   * each was dropped by a Retry at an after gate and the request sent
   * again. Absent on a call that was never retried. Built by the replay
   * from `instance.reopened` (which used to drop them); an extension: a
   * client that does not know it can ignore it.
   */
  attempts?: InstanceAttempt[];
  /**
   * When the answer reached the requester (ISO 8601), when that was later
   * than {@link Instance.endedAt}: the answer was held at an after or
   * error gate and continued then (the `hold.released` event's time). The
   * call took `deliveredAt − startedAt` as its requester saw it. Absent
   * when the answer went on as it came (or was replaced by a decision,
   * whose time is `endedAt`). An extension, like `attempts`.
   */
  deliveredAt?: string;
}

/** A log line attached to a node. */
export interface LogLine {
  nodeId: string;
  stream: 'stderr' | string;
  text: string;
  at: string;
}

/** Where the debugger stops frames. */
export interface Breakpoints {
  /** Hold failing calls (JSON-RPC errors and `isError` results). @default true */
  pauseOnError: boolean;
  /** Per nodeId: hold before the request goes out, after the answer comes back. */
  nodes: Record<string, { before?: boolean; after?: boolean }>;
}

/** The gate a frame is held at. */
export type GatePoint = 'before' | 'after' | 'error';
/** What the user decides about a held frame. */
export type HoldAction = 'continue' | 'inject' | 'retry' | 'abort';

/** A frame held right now. */
export interface Hold {
  holdId: string;
  runId: string;
  nodeId: string;
  instanceId: string;
  gate: GatePoint;
  method: string;
  /** The held JSON-RPC message, parsed. */
  frame: unknown;
  /** ISO 8601. */
  since: string;
  /** Why it holds: `breakpoint`, `error` (the error gate) or `loop` (the loop hold). */
  reason?: string;
  /**
   * Set once the requester has given up on the held call, saying why (the
   * client sent `notifications/cancelled` for it, or closed the session).
   * The hold can still be decided; its answer then goes nowhere useful.
   * Reported by the reporter with a `hold.updated` event. An extension.
   */
  givenUp?: string;
}

/** A decision about a hold. */
export interface HoldDecision {
  action: HoldAction;
  value?: unknown;
}

/** Node fields carried by the event that first mentions a node. */
export interface NodeDeclaration {
  nodeId: string;
  kind: NodeKind;
  parent: string | null;
  label: string;
}

/** Fields every run event has. */
interface EventBase {
  runId: string;
  /** Per-run sequence number from 1; the server ignores repeats. */
  seq: number;
  /** Milliseconds since the epoch. */
  t: number;
}

/** A run began (sent again on reconnect, to reclaim it). */
export interface RunStartedEvent extends EventBase {
  type: 'run.started';
  name: string;
  source: string;
  meta: Record<string, unknown>;
}
/** More metadata learned during the run (merged into `meta`). */
export interface RunMetaEvent extends EventBase {
  type: 'run.meta';
  meta: Record<string, unknown>;
}
/** The run ended. */
export interface RunFinishedEvent extends EventBase {
  type: 'run.finished';
  status: 'ok' | 'error';
}
/** An execution began; declares its node on first mention. */
export interface InstanceStartedEvent extends EventBase {
  type: 'instance.started';
  instanceId: string;
  node: NodeDeclaration;
  input?: unknown;
}
/**
 * An execution that began and ended well between two of the reporter's
 * batches, in one event: its start and its end. `t` is when it began (the
 * event stands where its start would), `endT` when it ended.
 */
export interface InstanceCompletedEvent extends EventBase {
  type: 'instance.completed';
  instanceId: string;
  node: NodeDeclaration;
  input?: unknown;
  output?: unknown;
  /** Milliseconds since the epoch. */
  endT: number;
}
/** An execution ended well. */
export interface InstanceFinishedEvent extends EventBase {
  type: 'instance.finished';
  instanceId: string;
  output?: unknown;
}
/** An execution ended in error. */
export interface InstanceErrorEvent extends EventBase {
  type: 'instance.error';
  instanceId: string;
  error: InstanceError;
  output?: unknown;
}
/** An execution that ended is open again (a retried request). */
export interface InstanceReopenedEvent extends EventBase {
  type: 'instance.reopened';
  instanceId: string;
}
/** A log line. */
export interface LogEvent extends EventBase {
  type: 'log';
  nodeId: string;
  stream: string;
  text: string;
}
/** The reporter dropped events (its buffer was full). */
export interface DroppedEvent extends EventBase {
  type: 'events.dropped';
  count: number;
}
/** A frame is held at a gate. */
export interface HoldOpenedEvent extends EventBase {
  type: 'hold.opened';
  holdId: string;
  nodeId: string;
  instanceId: string;
  gate: GatePoint;
  method: string;
  frame: unknown;
  reason?: string;
}
/** A held frame was released (decided, or let go by the reporter). */
export interface HoldReleasedEvent extends EventBase {
  type: 'hold.released';
  holdId: string;
  action: HoldAction;
}

/**
 * Something changed about a frame held right now: its requester has given
 * up on it (`givenUp` says why, for people). The hold stays open until it
 * is decided or released, as before.
 */
export interface HoldUpdatedEvent extends EventBase {
  type: 'hold.updated';
  holdId: string;
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

/** Messages the server sends a reporter over the ingest socket. */
export type ServerToReporter =
  | { type: 'breakpoints'; breakpoints: Breakpoints }
  | { type: 'decision'; holdId: string; action: HoldAction; value?: unknown }
  | { type: 'rejected'; runId: string; reason: string }
  | { type: 'restart'; runId: string };

/**
 * What the live feed (`/api/live`) sends, one JSON object per message. A
 * client that connects gets a `snapshot` first, then changes as they happen.
 */
export type LiveMessage =
  | { type: 'snapshot'; runs: RunSummary[]; breakpoints: Breakpoints; holds: Hold[] }
  | { type: 'run.started'; run: RunSummary }
  | { type: 'run.event'; runId: string; event: RunEvent }
  | { type: 'run.updated'; run: RunSummary }
  | { type: 'run.deleted'; runId: string }
  | { type: 'breakpoints'; breakpoints: Breakpoints }
  | { type: 'hold.opened'; hold: Hold }
  | { type: 'hold.updated'; hold: Hold }
  | { type: 'hold.decided'; holdId: string; action: HoldAction }
  | { type: 'hold.released'; holdId: string; action: HoldAction };

/** The shape of a run id (validated before any file is touched). */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

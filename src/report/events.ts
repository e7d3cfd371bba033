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
  /**
   * The run's id, chosen by its reporter (the bundled one makes `run_…`
   * ids); it matches {@link RUN_ID_PATTERN}, and every event of the run
   * carries it.
   */
  runId: string;
  /**
   * The name the reporter gave the run in its first `run.started`: the
   * server's command line, shortened, for `graphmind mcp-proxy`; the
   * method and the tool, resource or prompt it called for the in-process
   * adapter (`tools/call:list_tasks`, `mcp:connect <server>` for a
   * connection).
   */
  name: string;
  /**
   * What recorded the run, as its first `run.started` says: `mcp-proxy`
   * (`graphmind mcp-proxy`, or a relay given a command), `mcp-adapter`
   * (the in-process adapter), `mcp-http-proxy` (`graphmind http-proxy`),
   * `mcp-relay` (a relay of your own with no command), or whatever a
   * reporter of your own sends.
   */
  source: 'mcp-proxy' | 'mcp-adapter' | string;
  /**
   * `running` from the run's start; `ok` or `error` as its `run.finished`
   * says. A run whose reporter disconnected before finishing it (or whose
   * log ends without its `run.finished`) ends as `error`; a `run.started`
   * sent again to reclaim it makes it `running` again.
   */
  status: Status;
  /** When the run started (ISO 8601, UTC, to the millisecond): the time of its first `run.started`. */
  startedAt: string;
  /**
   * When the run ended (ISO 8601): the time of its `run.finished`, or,
   * for a run ended because its reporter went away, when the server
   * noticed (for a log reloaded without its end, the time of its last
   * event). `null` while the run is `running`.
   */
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
  /**
   * The node's id, unique in the run and the same for every execution:
   * `mcp:session` (the server process), `mcp:protocol` (the card that
   * holds protocol traffic), `tool:<name>`, `resource:<uri>`,
   * `prompt:<name>`, `mcp:<method>`, `llm:sampling`, …
   */
  nodeId: string;
  /** What the node stands for: the server (the session), a tool, a resource, a prompt, an LLM call (sampling), or anything else (`custom`). */
  kind: NodeKind;
  /** The parent's nodeId; null for the session. */
  parent: string | null;
  /** The text shown for the node: a tool's or prompt's name, a resource's URI, a method, the session's command line. */
  label: string;
  /** error if any instance errored, else open if any is open, else ok. */
  status: NodeStatus;
}

/** An error recorded on an instance. */
export interface InstanceError {
  /**
   * What kind of failure it is: `JsonRpcError` (the answer was a JSON-RPC
   * error), `ToolError` (a tool result with `isError: true`), `Aborted`,
   * `NoAnswer`, `SpawnError`, `McpServerExitedEarly`, … (the bundled
   * recorders' names are listed in docs/errors.md); any text from a
   * reporter of your own.
   */
  name: string;
  /**
   * The failure in words: a JSON-RPC error's `message`, a failed tool
   * result's text, or GraphMind's own description (`[hidden]` where
   * `GRAPHMIND_HIDE_TOOL_RESULTS` hides a tool call's).
   */
  message: string;
  /**
   * The JSON-RPC error code the requester got: the answer's own for a
   * `JsonRpcError` (when it is a number); -32099 for `Aborted`, -32098 for
   * `ServerRestarted`, -32097 for `ServerNotRunning` (answers GraphMind
   * made). Absent otherwise.
   */
  code?: number;
  /**
   * More about the failure, by `name`: a JSON-RPC error's `data`; for
   * `SpawnError`, `{ code }` (e.g. `ENOENT`); for `McpServerExited` and
   * `McpServerExitedEarly`, `{ exitCode, signal, stderr? }` (the last
   * stderr lines). Absent when there is nothing more.
   */
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
  /** The execution's id, unique in the run. For the proxy, a per-session counter: `mcp_1`, `mcp_2`, … */
  instanceId: string;
  /** The {@link GraphNode.nodeId} of the node this is an execution of. */
  nodeId: string;
  /**
   * `open` until it ends; then `ok` (`instance.finished`, or an
   * `instance.completed`) or `error` (`instance.error`). An
   * `instance.reopened` (a Retry) makes it `open` again.
   */
  status: NodeStatus;
  /**
   * What the execution was given, as recorded: a call's request `params`
   * (the proxy), a handler's input (the adapter), the command line for
   * the session. `[hidden]` under `GRAPHMIND_HIDE_INPUTS`; for a frame
   * over 1 MiB, a note of its size. Absent when there was none.
   */
  input?: unknown;
  /**
   * What the execution gave back, as recorded: the answer's `result` (for
   * a failed tool result too), a handler's return value, the exit code
   * and signal for the session, the call counts for the protocol card.
   * `[hidden]` for a tool call under `GRAPHMIND_HIDE_TOOL_RESULTS`. Absent
   * while open, and when the end that counts carried none.
   */
  output?: unknown;
  /** Why it failed, when its `status` is `error`; absent otherwise. */
  error?: InstanceError;
  /** When it started (ISO 8601): the time of its `instance.started` (or `instance.completed`). */
  startedAt: string;
  /**
   * When it ended (ISO 8601): the time of the last event that ended it
   * (`instance.finished` or `instance.error`; `endT` of an
   * `instance.completed`). A later end (a decision at an after gate)
   * replaces the earlier one. `null` while open.
   */
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
  /** The node the line is shown on: the proxy puts every line on `mcp:session`, the adapter on the call that logged it. */
  nodeId: string;
  /**
   * Where the line came from: `stderr` (the server's stderr), `graphmind`
   * (the proxy's own notes: a restart, a direction that became a raw
   * byte pipe), `event` (the adapter's `session.event()`), or a reporter's
   * own name for it.
   */
  stream: 'stderr' | string;
  /** The line's text. */
  text: string;
  /** When it was logged (ISO 8601): the time of its `log` event. */
  at: string;
}

/** Where the debugger stops frames. */
export interface Breakpoints {
  /** Hold failing calls (JSON-RPC errors and `isError` results). @default true */
  pauseOnError: boolean;
  /** Per nodeId: hold before the request goes out, after the answer comes back. */
  nodes: Record<
    string,
    {
      /** True: hold the node's requests (and notifications) at the before gate, before they reach the server or handler. */
      before?: boolean;
      /** True: hold the answers to the node's requests at the after gate, before they reach the requester. */
      after?: boolean;
    }
  >;
}

/** The gate a frame is held at. */
export type GatePoint = 'before' | 'after' | 'error';
/** What the user decides about a held frame. */
export type HoldAction = 'continue' | 'inject' | 'retry' | 'abort';

/** A frame held right now. */
export interface Hold {
  /** The hold's id, made by the reporter that holds it (the bundled gates make `hold_…`): `POST /api/holds/:holdId` decides it. */
  holdId: string;
  /** The run the held call belongs to. */
  runId: string;
  /** The node of the held call. */
  nodeId: string;
  /** The execution (of that node) the held frame belongs to. */
  instanceId: string;
  /** The gate it is held at: `before` (the request), `after` (the answer), `error` (a failed answer held by pause-on-error). */
  gate: GatePoint;
  /** The JSON-RPC method of the held call, e.g. `tools/call`. */
  method: string;
  /** The held JSON-RPC message, parsed (with the hide switches applied). */
  frame: unknown;
  /** When it started holding (ISO 8601): the time of its `hold.opened` event. */
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
  /** What to do with the held frame (see docs/gates.md for what each does at each gate). */
  action: HoldAction;
  /**
   * With `inject`, and required there: the answer to give, lifted into the
   * method's result shape (a whole JSON-RPC message, with a `jsonrpc` key,
   * goes as it is); for a held notification, what goes in its place. Not
   * used with the other actions.
   */
  value?: unknown;
}

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
  /** Where the line came from ({@link LogLine.stream}). */
  stream: string;
  /** The line's text ({@link LogLine.text}). */
  text: string;
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
 * for each {@link BreakpointsToReporter} that carried a version; the server
 * answers `PUT /api/breakpoints` once every reporter connected at the time
 * has acked (or 2 s passed).
 */
export interface BreakpointsAck {
  /** The message's type. */
  type: 'breakpoints.ack';
  /** The version of the breakpoints applied. */
  version: number;
}

/**
 * The breakpoints now in force, sent to a reporter when it connects and
 * every time they are replaced (`PUT /api/breakpoints`).
 */
export interface BreakpointsToReporter {
  /** The message's type. */
  type: 'breakpoints';
  /** The whole set: it replaces the one the reporter had. */
  breakpoints: Breakpoints;
  /**
   * Their version (a counter): a reporter that has applied them answers
   * with a {@link BreakpointsAck} of it. Servers older than the ack send none.
   */
  version?: number;
}

/**
 * A decision about one of the reporter's holds: one made through
 * `POST /api/holds/:holdId`; or `continue`, sent at once for a
 * `hold.opened` the server does not record (its run is not this
 * connection's or was deleted, or another connection holds a frame under
 * its id) and for an undecided hold of a run deleted while live.
 */
export interface DecisionToReporter {
  /** The message's type. */
  type: 'decision';
  /** The hold decided, as the reporter's `hold.opened` named it. */
  holdId: string;
  /** What to do with the held frame. */
  action: HoldAction;
  /** With `inject` only: the value the decision gave ({@link HoldDecision.value}). Absent with the other actions. */
  value?: unknown;
}

/**
 * The server records nothing more of a run from this connection: another
 * live connection reports it, or it was deleted (said again when the
 * reporter reclaims a deleted run after a reconnect). The bundled gate
 * holds nothing more of that run while the connection lasts.
 */
export interface RejectedToReporter {
  /** The message's type. */
  type: 'rejected';
  /** The run rejected. */
  runId: string;
  /** Why, for people: `run is reported by another connection` or `the run was deleted`. */
  reason: string;
}

/**
 * Restart the MCP server of a live proxy run under its host's session:
 * sent to the connection that reports the run when
 * `POST /api/runs/:runId/restart` is accepted (a running `mcp-proxy`
 * run). The outcome is recorded in the run's `meta.restarts`.
 */
export interface RestartToReporter {
  /** The message's type. */
  type: 'restart';
  /** The run whose server to restart. */
  runId: string;
}

/** Messages the server sends a reporter over the ingest socket. */
export type ServerToReporter = BreakpointsToReporter | DecisionToReporter | RejectedToReporter | RestartToReporter;

/** The live feed's first message on every connection: the current state. */
export interface LiveSnapshot {
  /** The message's type. */
  type: 'snapshot';
  /** Every run's summary, newest first, as `GET /api/runs` lists them. */
  runs: RunSummary[];
  /** The breakpoints now in force. */
  breakpoints: Breakpoints;
  /** The frames held right now and not yet decided, oldest first, as `GET /api/holds` lists them. */
  holds: Hold[];
}

/** A run the server did not have: a reporter started it, or it was imported (`POST /api/runs/import`). */
export interface LiveRunStarted {
  /** The message's type. */
  type: 'run.started';
  /** The run's summary. */
  run: RunSummary;
}

/**
 * An event the server applied to a run: every event from a reporter that
 * the server records in the run (each event a group stands for as a
 * message of its own), and the server's own `run.meta` that records a
 * decision. A `run.started` comes as a `run.started` or `run.updated`
 * message instead.
 */
export interface LiveRunEvent {
  /** The message's type. */
  type: 'run.event';
  /** The run the event was applied to. */
  runId: string;
  /**
   * The event, as applied: a client that keeps a copy of the run applies
   * it the same way, skipping those up to the {@link Run.lastSeq} of the
   * copy it fetched.
   */
  event: RunEvent;
}

/**
 * A run's status changed: it finished (after the `run.event` of its
 * `run.finished`), its reporter went away (it ended as `error`), or a
 * reporter reclaimed it (`running` again).
 */
export interface LiveRunUpdated {
  /** The message's type. */
  type: 'run.updated';
  /** The run's summary as it is now. */
  run: RunSummary;
}

/**
 * A run was deleted: through `DELETE /api/runs/:runId`, or by `--max-runs`
 * (a finished run). The `hold.released` of each of its holds comes first.
 */
export interface LiveRunDeleted {
  /** The message's type. */
  type: 'run.deleted';
  /** The run deleted. */
  runId: string;
}

/** The breakpoints were replaced (`PUT /api/breakpoints`). */
export interface LiveBreakpoints {
  /** The message's type. */
  type: 'breakpoints';
  /** The whole new set. */
  breakpoints: Breakpoints;
}

/** A frame started holding. */
export interface LiveHoldOpened {
  /** The message's type. */
  type: 'hold.opened';
  /** The hold, as `GET /api/holds` lists it. */
  hold: Hold;
}

/** The requester of a held frame gave up on it; the hold is still open. */
export interface LiveHoldUpdated {
  /** The message's type. */
  type: 'hold.updated';
  /** The hold as it is now, with its {@link Hold.givenUp}. */
  hold: Hold;
}

/**
 * Someone decided a hold through `POST /api/holds/:holdId`. Its frame goes
 * on when its reporter says so (`hold.released`).
 */
export interface LiveHoldDecided {
  /** The message's type. */
  type: 'hold.decided';
  /** The hold decided. */
  holdId: string;
  /** The action decided. */
  action: HoldAction;
}

/**
 * A held frame went on: its reporter released it, its reporter went away,
 * or its run was deleted.
 */
export interface LiveHoldReleased {
  /** The message's type. */
  type: 'hold.released';
  /** The hold released. */
  holdId: string;
  /**
   * What the frame went on with: the action of the reporter's
   * `hold.released`; `continue` when its reporter went away; when its run
   * was deleted, the decision already made, else `continue`.
   */
  action: HoldAction;
}

/**
 * What the live feed (`/api/live`) sends, one JSON object per message. A
 * client that connects gets a `snapshot` first, then changes as they happen.
 */
export type LiveMessage =
  | LiveSnapshot
  | LiveRunStarted
  | LiveRunEvent
  | LiveRunUpdated
  | LiveRunDeleted
  | LiveBreakpoints
  | LiveHoldOpened
  | LiveHoldUpdated
  | LiveHoldDecided
  | LiveHoldReleased;

/** One restart of the server under the session, as `meta.restarts` lists it. */
export interface RestartRecord {
  /** 1 for the first restart, and so on: the server generation it started. */
  n: number;
  /** When it began, ISO 8601. */
  at: string;
  /** What asked for it: `file change` (`--watch`), `the debugger` (the API or the viewer). */
  reason: string;
  /** The changed file, for a file change. */
  file?: string;
  /** True when the new server is up and the handshake was replayed to it. */
  ok: boolean;
  /** The new server's pid. */
  pid?: number;
  /** From the start of the restart to the server being ready, in ms. */
  ms?: number;
  /** Why it failed, when it did. */
  error?: string;
  /** The lists (`tools`, `resources`, `prompts`) that changed, told to the host or not. */
  changed?: Array<{
    /** The list whose names differ from the ones the host had fetched: `tools`, `resources` or `prompts`. */
    kind: string;
    /**
     * True when the proxy sent the host `notifications/<kind>/list_changed`;
     * false when it did not (the new server does not declare `listChanged`
     * for that list, or the session has no way to be told).
     */
    told: boolean;
  }>;
}

/** The shape of a run id (validated before any file is touched). */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

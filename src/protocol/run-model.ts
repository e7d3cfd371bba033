/**
 * The run model: a recorded run as the server keeps it, lists it
 * (`GET /api/runs`) and gives it whole (`GET /api/runs/:runId`). A run is
 * nothing but the replay of its events (the ingest protocol, ingest.ts).
 * Shared by every side: reporters, the server, the viewer, `graphmind mcp`
 * and the exports.
 *
 * @module
 */
import type { InstanceAttempt, InstanceChange, InstanceError, ServerAnswer } from './instance-outcome.js';

export type { InstanceAttempt, InstanceChange, InstanceError, ServerAnswer } from './instance-outcome.js';

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
   * `graphmind-verify` (a `graphmind verify` session), `mcp-relay` (a relay
   * of your own with no command), or whatever a reporter of your own sends.
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
  /**
   * The MCP client's own name and version, from `clientInfo` in its
   * `initialize` request (the run's `meta.clientInfo`), once the run has
   * it (`claude-code` 2.1.332, …): set like {@link RunSummary.server}, with
   * the same bounds. An extension of the summary, like `server`.
   */
  client?: {
    /** `meta.clientInfo.name`. */
    name: string;
    /** `meta.clientInfo.version`, when it is a string. */
    version?: string;
  };
  /**
   * How many calls the run recorded: executions of every node but the
   * session, the protocol card and stdout noise (requests and
   * notifications, `initialize` and `tools/list` included; protocol/run-counts
   * `isCallNode`), counted by the replay of the run's events, so a live,
   * a reloaded and an imported run agree. Absent until the first call.
   * An extension of the summary, like `server`.
   */
  calls?: number;
  /**
   * How many of {@link RunSummary.calls} failed, as they stand now: ended
   * in error (a JSON-RPC error, an `isError` result, no answer, an abort),
   * except a protocol request answered "Method not found" (-32601: a client
   * asking for an optional method, as Claude Code asks `server/discover`).
   * A failure a decision turned into an answer no longer counts. Present
   * whenever `calls` is; the viewer lists a run with any among its errors.
   */
  failedCalls?: number;
  /**
   * The tools the run called, in the order first called: at most 16 names
   * of at most 128 characters (a longer one is left out), to find runs by
   * tool without fetching them. Absent when the run called no tool.
   */
  tools?: string[];
  /**
   * Why this run's log stopped being written, in one line that names the
   * file: `the disk is full: could not write <file> (ENOSPC)`, or another
   * error as the system gave it. Set by the server when a write to the log
   * fails; absent while every event reaches the log. The run goes on in
   * memory (and in the viewer), but what came after is not on disk: after
   * a restart the run ends where its log does. An extension of the
   * summary: a client that does not know it can ignore it.
   */
  recordingStopped?: string;
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
  /**
   * What the debugger changed: set when a decision at a gate injected the
   * answer, aborted the call or sent it again; absent when the requester
   * got the server's own answer untouched. Exports, the viewer and
   * `graphmind mcp` all read this one field. An extension, like `attempts`.
   */
  changed?: InstanceChange;
  /**
   * Milliseconds the call's frames were held at gates (before, after and
   * error), summed over holds that were let go: the debugger's time, not
   * the server's (see `callTimes` in protocol/call-times). Absent when the
   * call was never held. An extension, like `attempts`.
   */
  heldMs?: number;
  /**
   * Who sent this call, when the host did not: the debugger sent the
   * request itself (Send again, `POST
   * /api/runs/:runId/instances/:instanceId/send`) on behalf of `viewer`,
   * `api`, `graphmind mcp` or whoever the request named in its `by`. Its
   * answer was recorded and never forwarded to the host. Absent on the
   * host's own calls. An extension, like `attempts`: a client that does
   * not know it can ignore it.
   */
  sentBy?: string;
}

/** A log line attached to a node. */
export interface LogLine {
  /**
   * The node the line is shown on: the adapter puts a line on the call
   * that logged it; the proxies put a line of the server's stderr on the
   * call in flight when it came if there was exactly one (see
   * {@link LogLine.instanceId}), and every other line on `mcp:session`.
   */
  nodeId: string;
  /**
   * The call the line is attributed to: set by the proxies on a line of the
   * server's stderr that came while that call (not the handshake, nor a
   * request held at a before gate) was the only one in flight, so it was
   * most likely printed while serving it.
   * Absent when none, or two or more, were in flight (the line is then on
   * `mcp:session`). An extension, like {@link Instance.attempts}: a reader
   * that does not know it shows the line on its node.
   */
  instanceId?: string;
  /**
   * Where the line came from: `stderr` (the server's stderr), `graphmind`
   * (the proxy's own notes: a restart, a direction that became a raw
   * byte pipe), `event` (the adapter's `session.event()`), `logpoint` (a
   * rule with `action: "log"` matched the call: see {@link LogLine.ruleId}),
   * or a reporter's own name for it.
   */
  stream: 'stderr' | string;
  /** The line's text. */
  text: string;
  /** When it was logged (ISO 8601): the time of its `log` event. */
  at: string;
  /** A logpoint's line (`stream: "logpoint"`): the id of the rule that logged it. */
  ruleId?: string;
  /** A logpoint's line: the values its expression looked at, e.g. `[{ at: "$.params.arguments.q", value: "PAY-1" }]`. */
  values?: Array<{ at: string; value: unknown }>;
}

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

/**
 * How a call ended, and what the debugger did to it: the error recorded on
 * an instance, the answers a Retry dropped, the server's own answer that a
 * decision replaced, and the change itself. Part of the run model
 * (run-model.ts, which re-exports these types).
 *
 * @module
 */

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
 * never saw it. Kept in `Instance.attempts`.
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

/**
 * The server's own answer to a call whose answer the debugger replaced
 * (an inject or an abort at an after or error gate): what the server said,
 * which the requester never got. Kept in {@link InstanceChange.server}.
 */
export interface ServerAnswer {
  /** How the server's answer ended the call: `ok`, or `error` (a JSON-RPC error, an `isError` result). */
  status: 'ok' | 'error';
  /** Its output, as recorded. */
  output?: unknown;
  /** Its error, as recorded. */
  error?: InstanceError;
  /** When it arrived (ISO 8601). */
  endedAt: string;
}

/**
 * What the debugger did to a call: the last decision that changed it
 * (see `Instance.changed`).
 */
export interface InstanceChange {
  /**
   * `inject`: the answer the requester got was made in the debugger;
   * `abort`: the debugger answered with an error (-32099) or dropped a
   * notification; `retry`: the request was sent again and the answer kept
   * is the server's second one (the first is in `Instance.attempts`).
   */
  action: 'inject' | 'abort' | 'retry';
  /**
   * The gate it was decided at: `before` (the server never got the
   * request), `after` or `error` (the server's answer was replaced, see
   * `server`). Absent when the replay did not see the hold open (a copy of
   * the run fetched while it was held).
   */
  gate?: 'before' | 'after' | 'error';
  /**
   * Who decided: `viewer`, `api`, `graphmind mcp`, or what the caller named
   * itself in the decision's `by`; `unknown` when the server did not record
   * it (a run imported from a log of an older version).
   */
  by: string;
  /** When the decision was carried out (ISO 8601): the `hold.released` event's time. */
  at: string;
  /** The hold it was decided on. */
  holdId: string;
  /** The server's own answer, when the decision replaced one (an inject or abort at an after or error gate). */
  server?: ServerAnswer;
}

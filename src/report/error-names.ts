/**
 * Every `Instance.error.name` GraphMind records, in one place. They are
 * an interface (scripts and the viewer match on them) and are listed, with
 * what each means, in docs/errors.md; a test keeps the two in step.
 */
export const ERROR_NAMES = {
  /** The server's command could not be started. */
  SpawnError: 'SpawnError',
  /** The server exited before answering anything. */
  McpServerExitedEarly: 'McpServerExitedEarly',
  /** The server exited with a failure after the conversation happened. */
  McpServerExited: 'McpServerExited',
  /** A request the server never answered before it exited. */
  NoAnswer: 'NoAnswer',
  /** The answer was a JSON-RPC error. */
  JsonRpcError: 'JsonRpcError',
  /** A tool result with `isError: true`. */
  ToolError: 'ToolError',
  /** A line on the server's stdout that is not JSON-RPC. */
  StdoutNoise: 'StdoutNoise',
  /** The call was aborted in the debugger. */
  Aborted: 'Aborted',
  /** In process (the adapter): the handler threw. */
  HandlerError: 'HandlerError',
  /** The request was in flight when the proxy restarted the server under the session. */
  ServerRestarted: 'ServerRestarted',
  /** The request came while the server was not running (it failed to start or to come back). */
  ServerNotRunning: 'ServerNotRunning',
} as const;

/** One of {@link ERROR_NAMES}. */
export type ErrorName = (typeof ERROR_NAMES)[keyof typeof ERROR_NAMES];

/**
 * A recorded session as replay and verify read it, whatever it was read
 * from (a run log, an mcp-recorder cassette): the host's requests and
 * notifications in recorded order, each with the answer the host received,
 * the answer the server sent (they differ where the debugger injected,
 * aborted or retried), and what the server sent the client inside the call.
 *
 * @module
 */

/** A JSON-RPC request id. */
export type JsonRpcId = string | number;

/** A JSON-RPC error member. */
export interface RecordedError {
  code: number;
  message: string;
  data?: unknown;
}

/** An answer as recorded: a `result`, or an `error`. */
export type RecordedAnswer = { result: unknown } | { error: RecordedError };

/** A message the server sent the client (sampling, elicitation, roots, progress, a log message, `list_changed`). */
export interface ServerMessage {
  method: string;
  /** Its params, as recorded (absent when it had none). */
  params?: unknown;
  /** A request (the client answers it) rather than a notification. */
  request: boolean;
  /** For a request: what the client answered, when it did. */
  answer?: RecordedAnswer;
}

/** One request or notification the host sent, with what came back. */
export interface RecordedCall {
  /** Its place among the run's calls, from 0. */
  index: number;
  /** The run log's execution of it (what `graphmind verify --update` rewrites); absent when read from a cassette. */
  instanceId?: string;
  method: string;
  /** Its params, as recorded (absent when it had none). */
  params?: unknown;
  /** A notification: nothing answers it. */
  notification: boolean;
  /** What the host received; absent when nothing answered it. */
  received?: RecordedAnswer;
  /** What the server sent; absent when the server never answered (a decision at a before gate, no answer). */
  sent?: RecordedAnswer;
  /** What the server sent the client while the call was open, in order, before its answer. */
  inside: ServerMessage[];
  /** What the server sent the client after this call's answer and before the next call. */
  after: ServerMessage[];
}

/** A recorded session (see the module). */
export interface RecordedRun {
  /** How to name it in a line: the run id, or the cassette's file. */
  label: string;
  /** The host's requests and notifications, in recorded order. */
  calls: RecordedCall[];
  /**
   * Values the recording does not have (hidden by `GRAPHMIND_HIDE_*`, or
   * too large to record), one phrase each; a run with any cannot be
   * replayed.
   */
  missing: string[];
}

/** A run log still being read: its run's `calls` grow a slice at a time (see load-run.ts). */
export interface RunReading {
  /** The run as read so far (its `calls` array grows in place). */
  run: RecordedRun;
  /** Read the rest a slice at a time between turns of the event loop, calling `slice` after each (`complete` after the last). */
  readRest(slice: (complete: boolean) => void): void;
}

/** The answer a replay gives for `call`: what the host received, or (`asSentByServer`) what the server sent. */
export function answerFor(call: RecordedCall, asSentByServer: boolean): RecordedAnswer | undefined {
  return asSentByServer ? call.sent : call.received;
}

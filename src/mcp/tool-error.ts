/**
 * The one error family of `graphmind mcp`'s tools. A tool that cannot do
 * what it was asked throws a {@link ToolError}; the server turns it into a
 * tool result with `isError: true` and the message as its one line of text,
 * so the assistant reads why and can try again. Nothing a caller sends can
 * crash the server.
 *
 * @module
 */

/** Stable codes of {@link ToolError}, one per kind of refusal. */
export type ToolErrorCode =
  /** An argument is missing, of the wrong type, out of range, or not one the tool takes. */
  | 'bad-argument'
  /** A run id that is not `^[A-Za-z0-9_-]{1,64}$` (checked before any file is touched). */
  | 'bad-run-id'
  /** No run has that id. */
  | 'unknown-run'
  /** The run has no instance with that id. */
  | 'unknown-call'
  /** A cursor that is not one of ours, or that belongs to other arguments. */
  | 'bad-cursor'
  /** A cursor that points past the last row. */
  | 'page-past-end'
  /** A search pattern that is not a valid regular expression. */
  | 'bad-regex'
  /** A search that ran longer than its time limit. */
  | 'search-timeout'
  /** The tool needs a running `graphmind serve` and none answered. */
  | 'no-debugger'
  /** A `graphmind serve` answered but refused our token. */
  | 'debugger-refused'
  /** The debugger answered something unexpected, or took too long. */
  | 'debugger-error'
  /** No hold has that id (never existed, or its reporter went away). */
  | 'unknown-hold'
  /** The hold was already decided. */
  | 'hold-decided';

/** A tool's refusal: a stable code and one line for the assistant. */
export class ToolError extends Error {
  override readonly name = 'ToolError';

  /**
   * @param code - what went wrong, for programs
   * @param message - why, for the assistant; line breaks become spaces
   */
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(oneLine(message));
  }
}

/** `text` on one line: runs of line breaks become one space. */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ');
}

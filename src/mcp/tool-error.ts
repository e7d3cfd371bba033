/**
 * The one error family of `graphmind mcp`'s tools. A tool that cannot do
 * what it was asked throws a {@link ToolError}; the server turns it into a
 * tool result with `isError: true` and the message as its one line of text,
 * so the assistant reads why and can try again. Nothing a caller sends can
 * crash the server.
 *
 * @module
 */

/**
 * Stable codes of {@link ToolError}, one per kind of refusal (docs/mcp.md
 * lists them; a test keeps the two in step):
 *
 * - `bad-argument`: an argument is missing, of the wrong type, out of range, or not one the tool takes;
 * - `bad-run-id`: a run id that is not `^[A-Za-z0-9_-]{1,64}$` (checked before any file is touched);
 * - `unknown-run`, `unknown-call`: no run has that id, or the run has no such instance;
 * - `bad-cursor`: a cursor that is not ours, or that belongs to other arguments;
 * - `page-past-end`: a cursor that points past the last row;
 * - `bad-regex`, `search-timeout`: a pattern that does not compile, a search that ran too long;
 * - `no-debugger`, `debugger-refused`: no `graphmind serve` answered, or it refused our token;
 * - `debugger-error`: the debugger answered something unexpected, or took too long;
 * - `unknown-hold`, `hold-decided`: no such hold, or it was already decided;
 * - `internal`: a bug (the server logs it on stderr).
 */
export const TOOL_ERROR_CODES = [
  'bad-argument',
  'bad-run-id',
  'unknown-run',
  'unknown-call',
  'bad-cursor',
  'page-past-end',
  'bad-regex',
  'search-timeout',
  'no-debugger',
  'debugger-refused',
  'debugger-error',
  'unknown-hold',
  'hold-decided',
  'internal',
] as const;

/** One of {@link TOOL_ERROR_CODES}. */
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

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

/**
 * The sizes that keep `graphmind mcp`'s answers small enough for a model.
 * Claude Code refuses a tool result over 25,000 tokens and hands the model
 * `JSON.stringify(structuredContent)` when a result has one, so the
 * structured part is what must fit: {@link RESULT_CHARS} characters is at
 * most about 13,000 tokens even for JSON dense in punctuation (3 characters
 * a token).
 *
 * @module
 */

/** Rows in a page when the caller names no `limit`. */
export const DEFAULT_PAGE_ROWS = 20;
/** The largest `limit` a paged tool accepts. */
export const MAX_PAGE_ROWS = 50;
/** Characters kept of one big value (an input, an output, an error's data) before it is cut. */
export const VALUE_CHARS = 10_000;
/** Characters of a value shown in a list row (a preview; get_call has the rest). */
export const PREVIEW_CHARS = 200;
/** Characters of one log line in a result. */
export const LOG_LINE_CHARS = 1_000;
/** Characters of a held frame in list_holds. */
export const FRAME_CHARS = 2_000;
/** Characters of a run's metadata in get_run. */
export const META_CHARS = 2_000;
/** Budget of a whole result's structured content, as JSON text. */
export const RESULT_CHARS = 40_000;
/** Budget of a result's short text rendering. */
export const TEXT_CHARS = 4_000;
/** Longest search pattern accepted. */
export const MAX_PATTERN_CHARS = 1_000;
/** How long one search may run before it is stopped (a regular expression can backtrack for ever). */
export const SEARCH_TIMEOUT_MS = 2_000;
/** Nodes listed by get_run; a graph with more says how many were left out. */
export const RUN_NODES = 60;
/** Errors listed by get_run (list_calls with status "error" pages through all of them). */
export const RUN_ERRORS = 20;
/** Log lines at the end of a run shown by get_run. */
export const RUN_LOG_TAIL = 20;
/** Characters of a log line in get_run's tail and get_call's nearby lines. */
export const TAIL_LINE_CHARS = 500;
/** Log lines written while a call ran, shown by get_call. */
export const CALL_LOG_LINES = 10;
/** Characters of an error message in get_call. */
export const MESSAGE_CHARS = 2_000;
/** Characters of a problem's one-line summary in find_problems. */
export const SUMMARY_CHARS = 400;

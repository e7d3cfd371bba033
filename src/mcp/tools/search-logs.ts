/**
 * `search_logs`: the log lines of a run (the server's stderr, the proxy's
 * notices) that match a text or a regular expression, paged.
 *
 * @module
 */
import { argsOf, cursor, flag, limit, optional, runId, text } from '../args.js';
import { DEFAULT_PAGE_ROWS, LOG_LINE_CHARS, MAX_PAGE_ROWS, MAX_PATTERN_CHARS, RESULT_CHARS, SEARCH_TIMEOUT_MS } from '../limits.js';
import { compilePattern, searchLogs } from '../log-search.js';
import { pageOf, queryKey } from '../paging.js';
import { nextPageLine, rangeText, renderText } from '../render.js';
import { logRow } from '../run-views.js';
import { arrayOf, boolean, from, integer, logRow as logRowSchema, object, paging, string } from '../schemas.js';
import { withTimeLimit } from '../time-limit.js';
import { defineTool, requireRun, UNTRUSTED } from '../tool.js';

/** The `search_logs` tool. */
export const searchLogsTool = defineTool({
  name: 'search_logs',
  title: 'Search a run\'s logs',
  description:
    'Search one run\'s log lines — what the MCP server wrote to stderr, and the proxy\'s own notices — for a text (default; case ignored) or a JavaScript regular expression (regex: true). ' +
    'Use it to find the server\'s own account of a failure (a stack trace, "error", a tool name) once get_run or find_problems has named the run. ' +
    `Each hit gives the line's index, time, node and stream; lines longer than ${LOG_LINE_CHARS} characters are cut. ` +
    `Paged: ${DEFAULT_PAGE_ROWS} hits unless limit says otherwise; pass nextCursor back as cursor for more. ${UNTRUSTED}`,
  args: argsOf({
    runId: runId(),
    pattern: text({ description: 'The text to find, or a regular expression when regex is true.', maxLength: MAX_PATTERN_CHARS }),
    regex: optional(flag('Read pattern as a JavaScript regular expression (no slashes, no flags). Default false.')),
    ignoreCase: optional(flag('Ignore case. Default true.')),
    limit: limit(DEFAULT_PAGE_ROWS, MAX_PAGE_ROWS, 'matching lines'),
    cursor: cursor(),
  }),
  outputSchema: object({ from, runId: string, pattern: string, regex: boolean, ignoreCase: boolean, logLines: integer, ...paging, hits: arrayOf(logRowSchema) }),
  async run(input, context) {
    const regex = input.regex ?? false;
    const ignoreCase = input.ignoreCase ?? true;
    // Checked before the run is read: a bad pattern is the caller's to fix whichever run it names.
    const test = compilePattern(input.pattern, { regex, ignoreCase });
    const { from: source, run } = await requireRun(context, input.runId);
    const matches = withTimeLimit(() => searchLogs(run.logs, test), SEARCH_TIMEOUT_MS, 'the search');
    const query = queryKey('search_logs', { runId: input.runId, pattern: input.pattern, regex, ignoreCase });
    const page = pageOf(matches, {
      limit: input.limit,
      cursor: input.cursor,
      query,
      budget: { chars: RESULT_CHARS, sizeOf: (match) => JSON.stringify(logRow(match.log, match.index, LOG_LINE_CHARS)).length },
    });
    const hits = page.rows.map((match) => logRow(match.log, match.index, LOG_LINE_CHARS));
    return {
      structured: { from: source, runId: run.runId, pattern: input.pattern, regex, ignoreCase, logLines: run.logs.length, total: page.total, nextCursor: page.nextCursor, hits },
      text: renderText(
        `${rangeText(page.offset, hits.length, page.total, 'matching lines')} among ${run.logs.length} log lines of run ${run.runId}:`,
        hits.map((hit) => `#${hit.index} ${hit.at} ${hit.stream}: ${hit.text}`),
        nextPageLine(page.nextCursor),
      ),
    };
  },
});

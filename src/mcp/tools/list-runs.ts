/**
 * `list_runs`: the recorded runs, newest first, filtered and paged.
 *
 * @module
 */
import type { RunSummary } from '../../protocol/run-model.js';
import { argsOf, cursor, limit, oneOf, optional, text } from '../args.js';
import { DEFAULT_PAGE_ROWS, MAX_PAGE_ROWS, RESULT_CHARS } from '../limits.js';
import { pageOf, queryKey } from '../paging.js';
import { nextPageLine, rangeText, renderText } from '../render.js';
import { durationMs } from '../run-views.js';
import { arrayOf, from, integerOrNull, object, paging, runSummaryProperties, stringOrNull } from '../schemas.js';
import { runMentions } from '../../protocol/run-match.js';
import { parseSince } from '../since.js';
import { defineTool, UNTRUSTED } from '../tool.js';

const args = argsOf({
  status: optional(oneOf(['running', 'ok', 'error'], 'Only runs with this status.')),
  source: optional(text({ description: 'Only runs from this reporter: "mcp-proxy" or "mcp-adapter".', maxLength: 100 })),
  text: optional(text({ description: 'Only runs whose name, runId, server, client or a tool called contains this text (case ignored). A proxy run is named after its server command.', maxLength: 200 })),
  since: optional(text({ description: 'Only runs started since: an age (90s, 15m, 2h, 7d, 1w) or an ISO 8601 time.', maxLength: 64 })),
  limit: limit(DEFAULT_PAGE_ROWS, MAX_PAGE_ROWS, 'runs'),
  cursor: cursor(),
});

/** A run as list_runs shows it. */
interface RunRow extends Pick<RunSummary, 'runId' | 'name' | 'source' | 'status' | 'startedAt' | 'endedAt'> {
  durationMs: number | null;
  /** Calls recorded; null when the summary does not say (read from a log's ends only). */
  calls: number | null;
  /** Calls that failed (see RunSummary.failedCalls); null like `calls`. */
  failedCalls: number | null;
  /** The MCP client, `name version`; null when not known. */
  client: string | null;
  /** The MCP server, `name version`; null when not known. */
  server: string | null;
}

/** A name and its version as one string. */
function peer(info: { name: string; version?: string } | undefined): string | null {
  return info === undefined ? null : info.version === undefined ? info.name : `${info.name} ${info.version}`;
}

/** A summary as a row; `counted`: a summary without counts had no call (the debugger's), rather than unknown. */
function rowOf(run: RunSummary, counted: boolean): RunRow {
  const calls = run.calls ?? (counted ? 0 : null);
  const failedCalls = run.failedCalls ?? (calls === null ? null : 0);
  const { runId, name, source, status, startedAt, endedAt } = run;
  return { runId, name, source, status, startedAt, endedAt, durationMs: durationMs(startedAt, endedAt), calls, failedCalls, client: peer(run.client), server: peer(run.server) };
}

/** The row's line of text. */
function rowLine(run: RunRow): string {
  const counts = run.calls === null ? '' : `  ${run.calls} calls${run.failedCalls ? `, ${run.failedCalls} failed` : ''}`;
  const peers = run.client === null && run.server === null ? '' : `  ${run.client ?? '?'} -> ${run.server ?? '?'}`;
  return `${run.runId}  ${run.status}  ${run.startedAt}  ${run.source}  ${run.name}${peers}${counts}`;
}

/** The `list_runs` tool. */
export const listRunsTool = defineTool({
  name: 'list_runs',
  title: 'List recorded runs',
  description:
    'List the runs the GraphMind debugger recorded (one run per MCP server session seen through `graphmind mcp-proxy`, or per request of an adapted server), newest first, with their status (running, ok, error), their counts of calls and failed calls, and their client and server. ' +
    'Start here to find a run to look at: for "why did my last tool call fail?", take the newest run (or call find_problems), then get_run with its runId. ' +
    `Paged: at most ${DEFAULT_PAGE_ROWS} runs unless limit says otherwise; pass nextCursor back as cursor for more. ${UNTRUSTED}`,
  args,
  outputSchema: object({ from, ...paging, runs: arrayOf(object({ ...runSummaryProperties, calls: integerOrNull, failedCalls: integerOrNull, client: stringOrNull, server: stringOrNull })) }),
  async run(input, context) {
    const { from: source, runs } = await context.runs.listRuns();
    const after = input.since === undefined ? undefined : parseSince(input.since, context.now());
    const needle = input.text?.toLowerCase();
    const rows: RunRow[] = runs
      .filter(
        (run) =>
          (input.status === undefined || run.status === input.status) &&
          (input.source === undefined || run.source === input.source) &&
          (needle === undefined || runMentions(run, needle) || run.runId.toLowerCase().includes(needle)) &&
          (after === undefined || Date.parse(run.startedAt) >= after),
      )
      .map((run) => rowOf(run, source === 'debugger'));
    const query = queryKey('list_runs', { status: input.status, source: input.source, text: input.text, since: input.since });
    const page = pageOf(rows, {
      limit: input.limit,
      cursor: input.cursor,
      query,
      idOf: (row) => row.runId,
      budget: { chars: RESULT_CHARS, sizeOf: (row) => JSON.stringify(row).length },
    });
    const lines = page.rows.map(rowLine);
    return {
      structured: { from: source, total: page.total, nextCursor: page.nextCursor, runs: page.rows },
      text: renderText(`${rangeText(page.offset, page.rows.length, page.total, 'runs')} (from ${source === 'debugger' ? 'the running debugger' : 'the data directory'}):`, lines, nextPageLine(page.nextCursor)),
    };
  },
});

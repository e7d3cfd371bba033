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
import { arrayOf, from, object, paging, runSummary } from '../schemas.js';
import { parseSince } from '../since.js';
import { defineTool, UNTRUSTED } from '../tool.js';

const args = argsOf({
  status: optional(oneOf(['running', 'ok', 'error'], 'Only runs with this status.')),
  source: optional(text({ description: 'Only runs from this reporter: "mcp-proxy" or "mcp-adapter".', maxLength: 100 })),
  text: optional(text({ description: 'Only runs whose name or runId contains this text (case ignored). A proxy run is named after its server command.', maxLength: 200 })),
  since: optional(text({ description: 'Only runs started since: an age (90s, 15m, 2h, 7d, 1w) or an ISO 8601 time.', maxLength: 64 })),
  limit: limit(DEFAULT_PAGE_ROWS, MAX_PAGE_ROWS, 'runs'),
  cursor: cursor(),
});

/** A run as list_runs shows it. */
interface RunRow extends RunSummary {
  durationMs: number | null;
}

/** The `list_runs` tool. */
export const listRunsTool = defineTool({
  name: 'list_runs',
  title: 'List recorded runs',
  description:
    'List the runs the GraphMind debugger recorded (one run per MCP server session seen through `graphmind mcp-proxy`, or per request of an adapted server), newest first, with their status (running, ok, error). ' +
    'Start here to find a run to look at: for "why did my last tool call fail?", take the newest run (or call find_problems), then get_run with its runId. ' +
    `Paged: at most ${DEFAULT_PAGE_ROWS} runs unless limit says otherwise; pass nextCursor back as cursor for more. ${UNTRUSTED}`,
  args,
  outputSchema: object({ from, ...paging, runs: arrayOf(runSummary) }),
  async run(input, context) {
    const { from: source, runs } = await context.runs.listRuns();
    const after = input.since === undefined ? undefined : parseSince(input.since, context.now());
    const needle = input.text?.toLowerCase();
    const rows: RunRow[] = runs
      .filter(
        (run) =>
          (input.status === undefined || run.status === input.status) &&
          (input.source === undefined || run.source === input.source) &&
          (needle === undefined || run.name.toLowerCase().includes(needle) || run.runId.toLowerCase().includes(needle)) &&
          (after === undefined || Date.parse(run.startedAt) >= after),
      )
      .map((run) => ({ runId: run.runId, name: run.name, source: run.source, status: run.status, startedAt: run.startedAt, endedAt: run.endedAt, durationMs: durationMs(run.startedAt, run.endedAt) }));
    const query = queryKey('list_runs', { status: input.status, source: input.source, text: input.text, since: input.since });
    const page = pageOf(rows, {
      limit: input.limit,
      cursor: input.cursor,
      query,
      idOf: (row) => row.runId,
      budget: { chars: RESULT_CHARS, sizeOf: (row) => JSON.stringify(row).length },
    });
    const lines = page.rows.map((run) => `${run.runId}  ${run.status}  ${run.startedAt}  ${run.source}  ${run.name}`);
    return {
      structured: { from: source, total: page.total, nextCursor: page.nextCursor, runs: page.rows },
      text: renderText(`${rangeText(page.offset, page.rows.length, page.total, 'runs')} (from ${source === 'debugger' ? 'the running debugger' : 'the data directory'}):`, lines, nextPageLine(page.nextCursor)),
    };
  },
});

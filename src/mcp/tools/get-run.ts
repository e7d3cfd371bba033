/**
 * `get_run`: one run, compact — its summary, its graph with counts, its
 * errors and its last log lines.
 *
 * @module
 */
import { argsOf, runId } from '../args.js';
import { durationMs, runOverview, type RunOverview } from '../run-views.js';
import { anything, arrayOf, errorRow, from, integer, integerOrNull, logRow, nodeStatus, object, runSummaryProperties, string, stringOrNull } from '../schemas.js';
import { renderText } from '../render.js';
import { sentLabel } from '../call-change.js';
import { defineTool, requireRun, UNTRUSTED } from '../tool.js';
import { runCostLines, runCostSchema, runCostView, type RunCostView } from '../cost-view.js';
import { RUN_ERRORS, RUN_LOG_TAIL, RUN_NODES } from '../limits.js';

/** The properties of a run overview's schema. */
const overviewProperties = {
  run: object({
    ...runSummaryProperties,
    meta: anything,
    droppedEvents: integer,
    counts: object({ nodes: integer, calls: integer, open: integer, errors: integer, logLines: integer }),
  }),
  nodes: arrayOf(
    object({
      nodeId: string,
      kind: string,
      label: string,
      parent: stringOrNull,
      depth: integer,
      status: nodeStatus,
      calls: integer,
      errors: integer,
      open: integer,
      slowestMs: integerOrNull,
    }),
  ),
  nodesLeftOut: integer,
  errors: arrayOf(errorRow),
  errorsLeftOut: integer,
  logTail: arrayOf(logRow),
  truncated: arrayOf(string),
  cost: runCostSchema,
};

/** A few lines about a run overview. */
function renderOverview(view: RunOverview, cost: RunCostView): string {
  const { run } = view;
  const took = durationMs(run.startedAt, run.endedAt);
  const head =
    `run ${run.runId} "${run.name}" (${run.source}): ${run.status}, started ${run.startedAt}${took === null ? '' : `, ${took} ms`}; ` +
    `${run.counts.calls} calls on ${run.counts.nodes} nodes, ${run.counts.errors} failed, ${run.counts.open} open, ${run.counts.logLines} log lines`;
  const lines = [
    ...runCostLines(cost),
    ...view.nodes.map((node) => `${'  '.repeat(node.depth)}${node.nodeId} [${node.status}] ${node.calls} call(s)${node.errors > 0 ? `, ${node.errors} failed` : ''}${node.open > 0 ? `, ${node.open} open` : ''}`),
    ...view.errors.map((error) => `error ${error.instanceId} on ${error.nodeId}${error.sentBy === undefined ? '' : ` (${sentLabel(error.sentBy)})`}: ${error.name}${error.code === null ? '' : ` ${error.code}`}: ${error.message}`),
    ...view.logTail.slice(-5).map((log) => `log ${log.at} ${log.stream}: ${log.text}`),
  ];
  return renderText(head, lines);
}

/** The `get_run` tool. */
export const getRunTool = defineTool({
  name: 'get_run',
  title: 'Show one run',
  description:
    'Show one recorded run compactly: its summary and metadata (server command, protocol version, client and server info), ' +
    `the node tree (the session, the protocol card, one node per tool/resource/prompt) with per-node call, error and open counts and the slowest call, the first ${RUN_ERRORS} errors (session failures first; sentBy on one the debugger sent itself with Send again, not the host), ` +
    `and the last ${RUN_LOG_TAIL} log lines (server stderr). At most ${RUN_NODES} nodes are listed. ` +
    'Use it after list_runs or find_problems; then list_calls (a node\'s calls), get_call (one call whole) or search_logs (stderr). ' +
    UNTRUSTED,
  args: argsOf({ runId: runId() }),
  outputSchema: object({ from, ...overviewProperties }),
  async run(input, context) {
    const { from: source, run } = await requireRun(context, input.runId);
    const view = runOverview(run);
    const cost = runCostView(run);
    return { structured: { from: source, ...view, cost }, text: renderOverview(view, cost) };
  },
});

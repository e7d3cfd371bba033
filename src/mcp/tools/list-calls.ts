/**
 * `list_calls`: a run's executions (instances), in start order, filtered
 * and paged, each with previews of its values.
 *
 * @module
 */
import { argsOf, cursor, limit, oneOf, optional, runId, text } from '../args.js';
import { DEFAULT_PAGE_ROWS, MAX_PAGE_ROWS, PREVIEW_CHARS, RESULT_CHARS } from '../limits.js';
import { pageOf, queryKey } from '../paging.js';
import { nextPageLine, rangeText, renderText } from '../render.js';
import { callRow } from '../run-views.js';
import { changeSchema, sentLabel, timeSplitSchema, timeText } from '../call-change.js';
import { arrayOf, from, integerOrNull, nodeStatus, numberOrNull, object, paging, string, stringOrNull } from '../schemas.js';
import { defineTool, requireRun, UNTRUSTED } from '../tool.js';
import { callMatcher, where } from '../where.js';

const callRowSchema = object(
  {
    instanceId: string,
    nodeId: string,
    status: nodeStatus,
    startedAt: string,
    endedAt: stringOrNull,
    durationMs: numberOrNull,
    ...timeSplitSchema,
    changed: changeSchema,
    sentBy: stringOrNull,
    input: string,
    output: string,
    error: { anyOf: [object({ name: string, message: string, code: integerOrNull }), { type: 'null' }] },
  },
  ['input', 'output'],
);

/** The `list_calls` tool. */
export const listCallsTool = defineTool({
  name: 'list_calls',
  title: 'List the calls of a run',
  description:
    'List the executions (calls) recorded in one run, in the order they started: instanceId, node, status, timing (serverMs: the server\'s time; heldMs: held at the debugger\'s breakpoints; waitedMs: what the client waited), ' +
    'what the debugger changed (changed: an injected answer, an abort or a retry and who decided it; an injected output is the debugger\'s, not the server\'s), ' +
    'who had the debugger send the call itself (sentBy: a call made with Send again, for viewer, api or graphmind mcp; not the host\'s call, and the host never got its answer; null for the host\'s own calls), and one-line previews ' +
    `(${PREVIEW_CHARS} characters) of the input (request params), the output (result) and the error. ` +
    'Filter by nodeId (e.g. "tool:search", as get_run lists them), status ("error" for the failures), or where: an expression of the condition language ' +
    '(tool:search and $.params.arguments.query ~ "PAY-"; is:error and dur>2s; resource:file:///etc/*; text ~ "rate limit"; docs/conditions.md). Use get_call with an instanceId for the whole call. ' +
    `Paged: ${DEFAULT_PAGE_ROWS} calls unless limit says otherwise; pass nextCursor back as cursor for more. ${UNTRUSTED}`,
  args: argsOf({
    runId: runId(),
    nodeId: optional(text({ description: 'Only calls of this node, e.g. "tool:search" or "mcp:initialize".', maxLength: 1_024 })),
    status: optional(oneOf(['open', 'ok', 'error'], 'Only calls with this status.')),
    where: where('Only calls this expression matches, e.g. "tool:search and $.params.arguments.query ~ \"PAY-\"", "is:error and dur>2s", "method:resources/read and $.params.uri ~ \"^file:///etc/\"". Atoms: method:, tool:, resource:, prompt:, node: (globs), from:host|server, is:request|answer|notification|error, status:ok|error|open, dur>500ms, bytes>8k; $.json.path ~ "regex" (case-insensitive), ==, !=, <, >, exists($.path); text ~ "regex" over the text a model reads; and, or, not, parentheses.'),
    limit: limit(DEFAULT_PAGE_ROWS, MAX_PAGE_ROWS, 'calls'),
    cursor: cursor(),
  }),
  outputSchema: object({ from, runId: string, ...paging, calls: arrayOf(callRowSchema) }),
  async run(input, context) {
    const { from: source, run } = await requireRun(context, input.runId);
    const matches = input.where === undefined ? undefined : callMatcher(run, input.where);
    const chosen = run.instances.filter(
      (instance) => (input.nodeId === undefined || instance.nodeId === input.nodeId) && (input.status === undefined || instance.status === input.status) && (matches === undefined || matches(instance)),
    );
    const query = queryKey('list_calls', { runId: input.runId, nodeId: input.nodeId, status: input.status, where: input.where?.text });
    const page = pageOf(chosen, {
      limit: input.limit,
      cursor: input.cursor,
      query,
      idOf: (instance) => instance.instanceId,
      // Sized by the row shown, which is small whatever the call's values.
      budget: { chars: RESULT_CHARS, sizeOf: (instance) => JSON.stringify(callRow(instance)).length },
    });
    const rows = page.rows.map(callRow);
    const lines = rows.map(
      (row) =>
        `${row.instanceId} ${row.nodeId} [${row.status}]${row.waitedMs === null ? '' : ` ${timeText(row)}`}` +
        (row.sentBy === null ? '' : ` [${sentLabel(row.sentBy)}]`) +
        (row.changed === null ? '' : ` [${row.changed.label}]`) +
        (row.error !== null ? ` ${row.error.name}: ${row.error.message}` : row.output !== undefined ? ` → ${row.output}` : ''),
    );
    const filter =
      input.nodeId === undefined && input.status === undefined && input.where === undefined
        ? ''
        : ` matching${input.nodeId === undefined ? '' : ` node ${input.nodeId}`}${input.status === undefined ? '' : ` status ${input.status}`}${input.where === undefined ? '' : ` where ${input.where.text}`}`;
    return {
      structured: { from: source, runId: run.runId, total: page.total, nextCursor: page.nextCursor, calls: rows },
      text: renderText(`${rangeText(page.offset, rows.length, page.total, 'calls')}${filter} in run ${run.runId}:`, lines, nextPageLine(page.nextCursor)),
    };
  },
});

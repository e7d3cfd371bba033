/**
 * `get_call`: one execution whole — input, output, error, timings, its own
 * lines, and the log lines written while it ran — each value capped.
 *
 * @module
 */
import { argsOf, integer, runId, text } from '../args.js';
import { preview } from '../cap.js';
import { VALUE_CHARS } from '../limits.js';
import { renderText } from '../render.js';
import { callDetail } from '../run-views.js';
import { changeSchema, sentSummary, serverAnswerLine, timeSplitSchema, timeText } from '../call-change.js';
import { callLinesSchema } from '../call-lines.js';
import { callCostLines, callCostSchema, callCostView } from '../cost-view.js';
import { anything, arrayOf, from, integer as integerSchema, integerOrNull, logRow, nodeStatus, numberOrNull, object, string, stringOrNull } from '../schemas.js';
import { ToolError } from '../tool-error.js';
import { defineTool, requireRun, UNTRUSTED } from '../tool.js';

const callSchema = object(
  {
    instanceId: string,
    nodeId: string,
    nodeKind: stringOrNull,
    nodeLabel: stringOrNull,
    status: nodeStatus,
    startedAt: string,
    endedAt: stringOrNull,
    durationMs: numberOrNull,
    ...timeSplitSchema,
    changed: changeSchema,
    sentBy: stringOrNull,
    input: anything,
    output: anything,
    error: { anyOf: [object({ name: string, message: string, code: integerOrNull, data: anything }, ['data']), { type: 'null' }] },
    truncated: arrayOf(object({ field: string, more: integerSchema })),
    logsDuring: object({ lines: arrayOf(logRow), total: integerSchema }),
    lines: callLinesSchema,
  },
  ['input', 'output'],
);

/** The `get_call` tool. */
export const getCallTool = defineTool({
  name: 'get_call',
  title: 'Show one call',
  description:
    'Show one recorded execution (call) whole: its node, status, start, end and duration (serverMs: the server\'s time; heldMs: held at the debugger\'s breakpoints; waitedMs: what the client waited), what the debugger changed (changed: an answer injected, an abort or a retry, by whom, and the server\'s own answer it replaced: an injected output is not the server\'s), who had the debugger send it (sentBy: a call made with Send again, for viewer, api or graphmind mcp, is not the host\'s and its answer never reached the host; null for the host\'s own calls), its input (the request params), its output (the result) and its error (name, message, JSON-RPC code, data), ' +
    'its context cost (cost: the bytes, exact, and estimated tokens of the result the model reads, or of each tool on a tools/list and their total; null when a model reads nothing of it), ' +
    'plus its own lines (lines: what the server printed on stderr, or as noise on stdout, while it was the only call in flight) and the log lines (server stderr) written while it ran (logsDuring). ' +
    `Each value is capped at maxChars characters (default and most ${VALUE_CHARS}); a cut value ends with "… [truncated, N more characters]" and is listed in truncated. ` +
    'Take runId and instanceId from list_calls, get_run or find_problems. ' +
    UNTRUSTED,
  args: argsOf({
    runId: runId(),
    instanceId: text({ description: 'The instanceId of the call, e.g. "mcp_7".', maxLength: 1_024 }),
    maxChars: integer({ description: `Characters kept of each value (input, output, error data); default ${VALUE_CHARS}.`, minimum: 100, maximum: VALUE_CHARS, default: VALUE_CHARS }),
  }),
  outputSchema: object({ from, runId: string, maxChars: integerSchema, call: callSchema, cost: callCostSchema }),
  async run(input, context) {
    const { from: source, run } = await requireRun(context, input.runId);
    const instance = run.instances.find((candidate) => candidate.instanceId === input.instanceId);
    if (instance === undefined) {
      throw new ToolError('unknown-call', `run ${run.runId} has no call "${input.instanceId.slice(0, 80)}" (it has ${run.instances.length}): list_calls shows them`);
    }
    const call = callDetail(run, instance, input.maxChars);
    // Counted on the uncapped output: what the model read, not what this answer shows of it.
    const cost = callCostView(run, instance);
    const lines = [
      ...(call.sentBy === null ? [] : [`SENT BY THE DEBUGGER, NOT THE HOST: ${sentSummary(call.sentBy)}`]),
      ...(call.changed === null ? [] : [`CHANGED BY THE DEBUGGER: ${call.changed.summary}`]),
      ...(serverAnswerLine(call.changed) === '' ? [] : [serverAnswerLine(call.changed)]),
      `input: ${call.input === undefined ? '(none recorded)' : preview(call.input, 600)}`,
      `output: ${call.output === undefined ? '(none recorded)' : preview(call.output, 600)}`,
      ...(call.error === null ? [] : [`error: ${call.error.name}${call.error.code === null ? '' : ` ${call.error.code}`}: ${preview(call.error.message, 300)}`]),
      ...callCostLines(cost),
      ...(call.truncated.length === 0 ? [] : [`cut: ${call.truncated.map((cut) => `${cut.field} (${cut.more} more characters)`).join(', ')}`]),
      // Its own lines (stderr and stdout noise printed while it was the only call in flight), then the others of its time.
      ...call.lines.lines.map((line) => `its line ${line.at} ${line.stream}: ${line.text}`),
      ...call.logsDuring.lines.filter((log) => log.instanceId !== call.instanceId).map((log) => `log ${log.at} ${log.stream}: ${log.text}`),
    ];
    const head = `call ${call.instanceId} on ${call.nodeId} in run ${run.runId}: ${call.status}, started ${call.startedAt}${call.waitedMs === null ? ', still open' : `, ${timeText(call)}`}`;
    return { structured: { from: source, runId: run.runId, maxChars: input.maxChars, call, cost }, text: renderText(head, lines) };
  },
});

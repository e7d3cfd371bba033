/**
 * `find_problems`: what went wrong across recent runs, one row per kind of
 * problem (alike ones counted together), each with the ids to drill in.
 *
 * @module
 */
import type { Run } from '../../protocol/run-model.js';
import { argsOf, cursor, integer, limit, oneOf, optional, runId, text } from '../args.js';
import { DEFAULT_PAGE_ROWS, MAX_PAGE_ROWS, RESULT_CHARS } from '../limits.js';
import { pageOf, queryKey } from '../paging.js';
import { findProblems, PROBLEM_KINDS } from '../problems.js';
import { nextPageLine, rangeText, renderText } from '../render.js';
import { arrayOf, from, integer as integerSchema, object, oneOf as oneOfSchema, paging, string, stringOrNull } from '../schemas.js';
import { parseSince } from '../since.js';
import { defineTool, requireRun, UNTRUSTED } from '../tool.js';
import { runWhere, where } from '../where.js';

/** Runs looked at when `since` is not given. */
const RECENT_RUNS = 10;
/** Runs looked at at most. */
const MAX_RUNS = 50;
/** The default threshold of a slow call. */
const SLOW_MS = 5_000;

const problemSchema = object({
  kind: oneOfSchema(PROBLEM_KINDS),
  runId: string,
  runName: string,
  nodeId: string,
  instanceId: stringOrNull,
  count: integerSchema,
  instanceIds: arrayOf(string),
  at: string,
  summary: string,
  sentBy: stringOrNull,
});

/** The `find_problems` tool. */
export const findProblemsTool = defineTool({
  name: 'find_problems',
  title: 'Find problems in recent runs',
  description:
    'Find what went wrong in recent runs: failed calls (JSON-RPC errors, isError tool results), unanswered requests, stdout noise (non-JSON-RPC lines a server printed on the MCP wire), ' +
    'calls the debugger changed (debugger_changed: an answer injected or an abort at a breakpoint, and who decided; that answer is not the server\'s), ' +
    'servers that could not be started (spawn failures) or exited early, slow calls (by the server\'s time, not the time held at breakpoints), and runs with dropped events. A problem of a call the debugger sent itself (Send again) has sentBy set and its summary says so first: it is not the host\'s call. Alike problems (same run, node and error) are one row with a count and up to 5 instanceIds. ' +
    `Each row has runId, nodeId and instanceId for get_run, list_calls and get_call. Looks at the ${RECENT_RUNS} newest runs, or at the runs started since "since" (at most ${MAX_RUNS}), or at one run (runId). ` +
    `The best first call for "why did my tool call fail?". Paged: ${DEFAULT_PAGE_ROWS} rows unless limit says otherwise. ${UNTRUSTED}`,
  args: argsOf({
    since: optional(text({ description: 'Only runs started since: an age (90s, 15m, 2h, 7d, 1w) or an ISO 8601 time.', maxLength: 64 })),
    runId: optional(runId('Only this run.')),
    kind: optional(oneOf(PROBLEM_KINDS, 'Only problems of this kind.')),
    slowMs: integer({ description: `A call whose server took at least this many ms is slow (time held at breakpoints is not counted; default ${SLOW_MS}).`, minimum: 1, maximum: 86_400_000, default: SLOW_MS }),
    where: where('Only problems of the calls this expression matches (run-wide problems such as dropped events are left out), e.g. "tool:search", "tool:create_* and dur>2s", "$.params.arguments.path ~ \"/etc/\"". The language: docs/conditions.md (atoms such as tool:, method:, is:error, dur>500ms; $ paths with ~ "regex", ==, <, >; text ~ "regex"; and, or, not).'),
    limit: limit(DEFAULT_PAGE_ROWS, MAX_PAGE_ROWS, 'problems'),
    cursor: cursor(),
  }),
  outputSchema: object({ from, runsScanned: integerSchema, runsNotScanned: integerSchema, ...paging, problems: arrayOf(problemSchema) }),
  async run(input, context) {
    const now = context.now();
    let runs: Run[];
    let notScanned = 0;
    let source: 'debugger' | 'data-dir';
    if (input.runId !== undefined) {
      const read = await requireRun(context, input.runId);
      source = read.from;
      runs = [read.run];
    } else {
      const after = input.since === undefined ? undefined : parseSince(input.since, now);
      const list = await context.runs.listRuns();
      source = list.from;
      const recent = after === undefined ? list.runs : list.runs.filter((run) => Date.parse(run.startedAt) >= after);
      const cap = after === undefined ? RECENT_RUNS : MAX_RUNS;
      notScanned = Math.max(0, recent.length - cap);
      runs = [];
      for (const summary of recent.slice(0, cap)) {
        // A run deleted between the list and now is simply not there.
        const read = await context.runs.getRun(summary.runId);
        if (read.run !== undefined) runs.push(read.run);
      }
    }
    const condition = input.where;
    // Only the matching calls are looked at: a problem of another call, or of no call, is not one of these.
    const looked = condition === undefined ? runs : runs.map((run) => runWhere(run, condition));
    const found = findProblems(looked, { slowMs: input.slowMs, now }).filter((problem) => (input.kind === undefined || problem.kind === input.kind) && (condition === undefined || problem.instanceId !== null));
    const query = queryKey('find_problems', { since: input.since, runId: input.runId, kind: input.kind, slowMs: input.slowMs, where: condition?.text });
    const page = pageOf(found, { limit: input.limit, cursor: input.cursor, query, budget: { chars: RESULT_CHARS, sizeOf: (problem) => JSON.stringify(problem).length } });
    const lines = page.rows.map(
      (problem) => `${problem.kind} in run ${problem.runId} on ${problem.nodeId}${problem.instanceId === null ? '' : ` (${problem.instanceId}${problem.count > 1 ? ` and ${problem.count - 1} more` : ''})`}: ${problem.summary}`,
    );
    return {
      structured: { from: source, runsScanned: runs.length, runsNotScanned: notScanned, total: page.total, nextCursor: page.nextCursor, problems: page.rows },
      text: renderText(`${rangeText(page.offset, page.rows.length, page.total, 'problems')}${condition === undefined ? '' : ` of calls where ${condition.text}`} in ${runs.length} run(s):`, lines, nextPageLine(page.nextCursor)),
    };
  },
});

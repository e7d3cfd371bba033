/**
 * What a run's summary counts of its calls (`calls`, `failedCalls`,
 * `tools` in {@link RunSummary}): which executions are calls, which of
 * them failed, and the tool names kept. Pure rules, applied by the run's
 * replay on the server (run-state.ts), so a live run, one reloaded from
 * its log and one imported all count alike.
 *
 * @module
 */
import type { Instance, InstanceError, NodeKind, RunSummary } from './run-model.js';

/**
 * Nodes whose executions are not calls: the proxy's session (the server
 * process), its protocol card (which totals the protocol traffic) and the
 * lines of stdout noise. Nodes of kind `server` (the session, the
 * adapter's server node) are not calls either.
 */
export const NOT_CALL_NODES: ReadonlySet<string> = new Set(['mcp:session', 'mcp:protocol', 'mcp:stdout-noise']);

/** The JSON-RPC code of "Method not found". */
export const METHOD_NOT_FOUND = -32601;

/** The most tool names a summary keeps ({@link RunSummary.tools}). */
export const RUN_TOOLS_MAX = 16;
/** A tool name longer than this is not kept in a summary. */
export const RUN_TOOL_NAME_MAX = 128;

/** Is an execution of `node` a call (a request or notification the run recorded), as a summary counts them? */
export function isCallNode(node: { nodeId: string; kind: NodeKind | string }): boolean {
  return node.kind !== 'server' && !NOT_CALL_NODES.has(node.nodeId);
}

/**
 * Does a call on `nodeId` that ended so count as failed? Every call that
 * ended in error (a JSON-RPC error, an `isError` tool result, no answer,
 * an abort) does, but one: a protocol request (the proxy's `mcp:<method>`
 * nodes, not a tool, resource or prompt) answered "Method not found"
 * (-32601). That is how a server says it lacks an optional method, and
 * clients ask on purpose (Claude Code 2.1 sends `server/discover` before
 * `initialize`): the answer is the right one, not a failure.
 */
export function isFailedCall(nodeId: string, status: Instance['status'], error: InstanceError | undefined): boolean {
  return status === 'error' && !isMethodProbe(nodeId, error?.code);
}

/**
 * Is an error answer with `code` to a request on `nodeId` a protocol
 * request's "Method not found" (see {@link isFailedCall})? Such an answer
 * is not a failure: the run does not count it, and pause-on-error does not
 * hold it (a client waits for it before it says `initialize`).
 */
export function isMethodProbe(nodeId: string, code: number | undefined): boolean {
  return code === METHOD_NOT_FOUND && nodeId.startsWith('mcp:');
}

/**
 * Add a call to `summary`'s counts: `calls` one more (and `failedCalls`
 * set, to 0 on the first), and `tool`, the name of the tool it called,
 * to `tools` when there is room and it is not there yet. (The replay
 * passes a name only for the first call of a tool node.)
 */
export function countCall(summary: RunSummary, tool: string | undefined): void {
  summary.calls = (summary.calls ?? 0) + 1;
  summary.failedCalls ??= 0;
  if (tool === undefined || tool === '' || tool.length > RUN_TOOL_NAME_MAX) return;
  const tools = summary.tools;
  if (tools === undefined) summary.tools = [tool];
  else if (tools.length < RUN_TOOLS_MAX && !tools.includes(tool)) tools.push(tool);
}

/** Change `summary`'s `failedCalls` by `delta` (+1 a call failed, -1 a failed call was answered again). */
export function countFailed(summary: RunSummary, delta: 1 | -1): void {
  summary.failedCalls = Math.max(0, (summary.failedCalls ?? 0) + delta);
}

/**
 * Does the run list count `run` among the runs with errors (its `error`
 * chip and filter)? A run that ended in error, and a run (running or
 * ended) with at least one failed call.
 */
export function hasErrors(run: Pick<RunSummary, 'status' | 'failedCalls'>): boolean {
  return run.status === 'error' || (run.failedCalls ?? 0) > 0;
}

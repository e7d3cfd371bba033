/**
 * What the tools show of a run, pure: compact views of a {@link Run} with
 * every big value capped. The same functions serve a run from the debugger
 * and one read from the data directory, which is what makes their answers
 * the same.
 *
 * @module
 */
import type { GraphNode, Instance, LogLine, NodeKind, NodeStatus, Run, Status } from '../protocol/run-model.js';
import { capText, capValue, preview } from './cap.js';
import { changeView, sentByOf, timeSplit, type ChangeView, type TimeSplit } from './call-change.js';
import { callLines, type CallLine } from './call-lines.js';
import { CALL_LOG_LINES, MESSAGE_CHARS, META_CHARS, PREVIEW_CHARS, RUN_ERRORS, RUN_LOG_TAIL, RUN_NODES, TAIL_LINE_CHARS } from './limits.js';

/** Milliseconds from `startedAt` to `endedAt`; null while open (or for times that do not parse). */
export function durationMs(startedAt: string, endedAt: string | null): number | null {
  if (endedAt === null) return null;
  const ms = Date.parse(endedAt) - Date.parse(startedAt);
  return Number.isFinite(ms) ? ms : null;
}

/** A node of the run's graph with its counts, in tree order. */
export interface NodeRow {
  nodeId: string;
  kind: NodeKind;
  label: string;
  parent: string | null;
  /** 0 for a root (the session), 1 for its children, … */
  depth: number;
  status: NodeStatus;
  /** Executions of the node. */
  calls: number;
  errors: number;
  open: number;
  /** The longest execution that ended, in ms; null when none has. */
  slowestMs: number | null;
}

/** Counts of each node's executions. */
function nodeCounts(run: Run): Map<string, { calls: number; errors: number; open: number; slowestMs: number | null }> {
  const counts = new Map<string, { calls: number; errors: number; open: number; slowestMs: number | null }>();
  for (const instance of run.instances) {
    let count = counts.get(instance.nodeId);
    if (count === undefined) {
      count = { calls: 0, errors: 0, open: 0, slowestMs: null };
      counts.set(instance.nodeId, count);
    }
    count.calls++;
    if (instance.status === 'error') count.errors++;
    else if (instance.status === 'open') count.open++;
    const ms = durationMs(instance.startedAt, instance.endedAt);
    if (ms !== null && (count.slowestMs === null || ms > count.slowestMs)) count.slowestMs = ms;
  }
  return counts;
}

/**
 * The run's nodes depth first, each after its parent and siblings in the
 * order they were first seen. A node whose parent is unknown is a root.
 */
export function nodeRows(run: Run): NodeRow[] {
  const counts = nodeCounts(run);
  const known = new Set(run.nodes.map((node) => node.nodeId));
  const children = new Map<string | null, GraphNode[]>();
  for (const node of run.nodes) {
    const parent = node.parent !== null && known.has(node.parent) && node.parent !== node.nodeId ? node.parent : null;
    const list = children.get(parent) ?? [];
    list.push(node);
    children.set(parent, list);
  }
  const rows: NodeRow[] = [];
  const visited = new Set<string>();
  const visit = (node: GraphNode, depth: number): void => {
    if (visited.has(node.nodeId)) return;
    visited.add(node.nodeId);
    const count = counts.get(node.nodeId) ?? { calls: 0, errors: 0, open: 0, slowestMs: null };
    rows.push({ nodeId: node.nodeId, kind: node.kind, label: node.label, parent: node.parent, depth, status: node.status, ...count });
    for (const child of children.get(node.nodeId) ?? []) visit(child, depth + 1);
  };
  for (const root of children.get(null) ?? []) visit(root, 0);
  // A cycle of parents has no root: show its nodes anyway.
  for (const node of run.nodes) visit(node, 0);
  return rows;
}

/** An error recorded on an execution, for a list. */
export interface ErrorRow {
  instanceId: string;
  nodeId: string;
  name: string;
  /** Capped to a preview. */
  message: string;
  code: number | null;
  /** Who had the debugger send the call (Send again), when the host did not make it; absent on the host's calls. */
  sentBy?: string;
}

/** An error row of an instance that has an error. */
export function errorRow(instance: Instance): ErrorRow {
  const error = instance.error ?? { name: 'Error', message: '' };
  const row: ErrorRow = {
    instanceId: instance.instanceId,
    nodeId: instance.nodeId,
    name: error.name,
    message: preview(error.message, PREVIEW_CHARS),
    code: typeof error.code === 'number' ? error.code : null,
  };
  if (instance.sentBy !== undefined) row.sentBy = instance.sentBy;
  return row;
}

/** A log line, numbered by its place among the run's log lines (from 0). */
export interface LogRow {
  index: number;
  at: string;
  nodeId: string;
  stream: string;
  /** Capped. */
  text: string;
  /** The call the line is attributed to (`LogLine.instanceId`), when it is. */
  instanceId?: string;
}

/** A log row with its text capped at `max` characters. */
export function logRow(log: LogLine, index: number, max: number): LogRow {
  const row: LogRow = { index, at: log.at, nodeId: log.nodeId, stream: log.stream, text: capText(log.text, max).text };
  if (log.instanceId !== undefined) row.instanceId = log.instanceId;
  return row;
}

/** The run as get_run shows it: compact, capped, with ids to drill in. */
export interface RunOverview {
  run: {
    runId: string;
    name: string;
    source: string;
    status: Status;
    startedAt: string;
    endedAt: string | null;
    durationMs: number | null;
    /** Capped at {@link META_CHARS} characters of JSON. */
    meta: unknown;
    droppedEvents: number;
    counts: { nodes: number; calls: number; open: number; errors: number; logLines: number };
  };
  /** The graph as a tree (see {@link nodeRows}), the first {@link RUN_NODES}. */
  nodes: NodeRow[];
  nodesLeftOut: number;
  /** Failed executions: the session's own first, then calls, then stdout noise; the first {@link RUN_ERRORS}. */
  errors: ErrorRow[];
  errorsLeftOut: number;
  /** The run's last {@link RUN_LOG_TAIL} log lines (server stderr and the proxy's notices). */
  logTail: LogRow[];
  /** Fields that were cut. */
  truncated: string[];
}

/** Where an error goes in get_run's list: what explains the run first. */
function errorRank(instance: Instance): number {
  if (instance.nodeId === 'mcp:session') return 0;
  if (instance.error?.name === 'StdoutNoise') return 2;
  return 1;
}

/** get_run's view of a run. */
export function runOverview(run: Run): RunOverview {
  const truncated: string[] = [];
  const meta = capValue(run.meta, META_CHARS);
  if (meta.more > 0) truncated.push('run.meta');
  const failed = run.instances.filter((instance) => instance.status === 'error');
  const ordered = failed.map((instance, order) => ({ instance, order })).sort((a, b) => errorRank(a.instance) - errorRank(b.instance) || a.order - b.order);
  const nodes = nodeRows(run);
  const firstLog = Math.max(0, run.logs.length - RUN_LOG_TAIL);
  return {
    run: {
      runId: run.runId,
      name: run.name,
      source: run.source,
      status: run.status,
      startedAt: run.startedAt,
      endedAt: run.endedAt,
      durationMs: durationMs(run.startedAt, run.endedAt),
      meta: meta.value,
      droppedEvents: run.droppedEvents ?? 0,
      counts: {
        nodes: run.nodes.length,
        calls: run.instances.length,
        open: run.instances.filter((instance) => instance.status === 'open').length,
        errors: failed.length,
        logLines: run.logs.length,
      },
    },
    nodes: nodes.slice(0, RUN_NODES),
    nodesLeftOut: Math.max(0, nodes.length - RUN_NODES),
    errors: ordered.slice(0, RUN_ERRORS).map(({ instance }) => errorRow(instance)),
    errorsLeftOut: Math.max(0, ordered.length - RUN_ERRORS),
    logTail: run.logs.slice(firstLog).map((log, i) => logRow(log, firstLog + i, TAIL_LINE_CHARS)),
    truncated,
  };
}

/** An execution in a list: ids, status, timing (split, see {@link TimeSplit}), what the debugger changed, and previews of its values. */
export interface CallRow extends TimeSplit {
  instanceId: string;
  nodeId: string;
  status: NodeStatus;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  /** A one-line preview; absent when nothing was recorded. */
  input?: string;
  output?: string;
  /** The error, its message previewed; null when it did not fail. */
  error: { name: string; message: string; code: number | null } | null;
  /** What the debugger did to the call (an injected answer, an abort, a retry); null when its answer is the server's own, untouched. */
  changed: ChangeView | null;
  /** Who had the debugger send the call itself (Send again: `viewer`, `api`, …): not the host's call; null for the host's own. */
  sentBy: string | null;
}

/** list_calls' row of an instance. */
export function callRow(instance: Instance): CallRow {
  const row: CallRow = {
    instanceId: instance.instanceId,
    nodeId: instance.nodeId,
    status: instance.status,
    startedAt: instance.startedAt,
    endedAt: instance.endedAt,
    durationMs: durationMs(instance.startedAt, instance.endedAt),
    ...timeSplit(instance),
    error: null,
    changed: changeView(instance),
    sentBy: sentByOf(instance),
  };
  if (instance.error !== undefined) {
    const { name, message, code } = errorRow(instance);
    row.error = { name, message, code };
  }
  if (instance.input !== undefined) row.input = preview(instance.input, PREVIEW_CHARS);
  if (instance.output !== undefined) row.output = preview(instance.output, PREVIEW_CHARS);
  return row;
}

/** One execution whole, each value capped: get_call's view. */
export interface CallDetail extends TimeSplit {
  instanceId: string;
  nodeId: string;
  nodeKind: NodeKind | null;
  nodeLabel: string | null;
  status: NodeStatus;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  /** The request's params (capped); absent when none was recorded. */
  input?: unknown;
  /** The answer's result (capped); absent when none was recorded. */
  output?: unknown;
  error: { name: string; message: string; code: number | null; data?: unknown } | null;
  /** What the debugger did to the call, with the server's own answer it replaced; null when the output is the server's, untouched. */
  changed: ChangeView | null;
  /** Who had the debugger send the call itself (Send again): not the host's call, its answer never reached the host; null for the host's own. */
  sentBy: string | null;
  /** Each value that was cut, and by how many characters. */
  truncated: Array<{ field: string; more: number }>;
  /** Log lines that arrived while it ran (at most {@link CALL_LOG_LINES}), and how many there were: the call's own and any other's. */
  logsDuring: { lines: LogRow[]; total: number };
  /** Its own lines: what the server printed on stderr or stdout while it was the only call in flight (see `callLines`). */
  lines: { lines: CallLine[]; total: number };
}

/** get_call's view of `instance`, values capped at `maxChars` characters each. */
export function callDetail(run: Run, instance: Instance, maxChars: number): CallDetail {
  const node = run.nodes.find((candidate) => candidate.nodeId === instance.nodeId);
  const truncated: Array<{ field: string; more: number }> = [];
  const cap = (field: string, value: unknown, max: number): unknown => {
    const capped = capValue(value, max);
    if (capped.more > 0) truncated.push({ field, more: capped.more });
    return capped.value;
  };
  const detail: CallDetail = {
    instanceId: instance.instanceId,
    nodeId: instance.nodeId,
    nodeKind: node?.kind ?? null,
    nodeLabel: node?.label ?? null,
    status: instance.status,
    startedAt: instance.startedAt,
    endedAt: instance.endedAt,
    durationMs: durationMs(instance.startedAt, instance.endedAt),
    ...timeSplit(instance),
    error: null,
    changed: changeView(instance, maxChars),
    sentBy: sentByOf(instance),
    truncated,
    logsDuring: logsDuring(run.logs, instance),
    lines: callLines(run, instance),
  };
  if (instance.input !== undefined) detail.input = cap('input', instance.input, maxChars);
  if (instance.output !== undefined) detail.output = cap('output', instance.output, maxChars);
  if (instance.error !== undefined) {
    const { name, message, code, data } = instance.error;
    detail.error = { name, message: cap('error.message', message, Math.min(maxChars, MESSAGE_CHARS)) as string, code: typeof code === 'number' ? code : null };
    if (data !== undefined) detail.error.data = cap('error.data', data, maxChars);
  }
  return detail;
}

/** The log lines written from an instance's start to its end (to the last line while it is open). */
function logsDuring(logs: readonly LogLine[], instance: Instance): { lines: LogRow[]; total: number } {
  const lines: LogRow[] = [];
  let total = 0;
  logs.forEach((log, index) => {
    if (log.at < instance.startedAt || (instance.endedAt !== null && log.at > instance.endedAt)) return;
    total++;
    if (lines.length < CALL_LOG_LINES) lines.push(logRow(log, index, TAIL_LINE_CHARS));
  });
  return { lines, total };
}

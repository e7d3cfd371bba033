/**
 * Problem finding, pure: what went wrong in a set of runs, grouped so that
 * a thousand identical failures are one row with a count, each row with
 * the ids to drill in (runId, nodeId, instanceId).
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import type { Instance, InstanceError, Run } from '../protocol/run-model.js';
import { capText, preview } from './cap.js';
import { PREVIEW_CHARS, SUMMARY_CHARS } from './limits.js';
import { callTimes } from '../protocol/call-times.js';
import { changeView, sentLabel } from './call-change.js';
import { noiseDuring } from './call-lines.js';

/** The kinds of problem, in the order a run's problems are listed: what explains the rest first. */
export const PROBLEM_KINDS = ['spawn_failure', 'early_exit', 'server_exit', 'debugger_changed', 'failed_call', 'unanswered', 'stdout_noise', 'slow_call', 'dropped_events'] as const;

/** One of {@link PROBLEM_KINDS}. */
export type ProblemKind = (typeof PROBLEM_KINDS)[number];

/** A problem, or a group of alike ones. */
export interface Problem {
  kind: ProblemKind;
  runId: string;
  runName: string;
  /** The node it happened on (the session's, for the run-wide kinds). */
  nodeId: string;
  /** The first execution it concerns; null for `dropped_events`. */
  instanceId: string | null;
  /** Alike problems in the group (the same node, and for failures the same error). */
  count: number;
  /** Up to 5 instance ids of the group, the first included. */
  instanceIds: string[];
  /** When the first one began. */
  at: string;
  /** One line: what happened (capped). */
  summary: string;
  /**
   * Who had the debugger send the calls of this row itself (Send again:
   * `viewer`, `api`, …): not the host's calls, and said first in the
   * summary; null for the host's own (and the run-wide kinds). Alike
   * calls the host made and calls the debugger sent are never one row.
   */
  sentBy: string | null;
}

/** Options for {@link findProblems}. */
export interface FindProblemsOptions {
  /** An execution that took this long (ms) or longer is slow. */
  slowMs: number;
  /** Now, in ms since the epoch: how long open calls of running runs have waited. */
  now: number;
}

/** Nodes that span a whole session: their length says nothing of speed. */
const WHOLE_SESSION = new Set(['mcp:session', 'mcp:protocol']);
const NOISE_NODE = 'mcp:stdout-noise';
const SAMPLE_IDS = 5;
/** A stderr line that names what went wrong. */
const CAUSE = /error|fatal|exception|panic|traceback/i;

/** Every problem of `runs`, each run's in {@link PROBLEM_KINDS} order, runs in the order given. */
export function findProblems(runs: readonly Run[], options: FindProblemsOptions): Problem[] {
  return runs.flatMap((run) => runProblems(run, options));
}

/** Adds a problem to its group: `key` tells alike ones apart beyond kind and node; `summary` is made for a group's first only. */
type AddProblem = (kind: ProblemKind, key: string, instance: Instance, summary: () => string) => void;

/** The problem of a failed execution, by the name of its error. */
function errorProblem(instance: Instance, error: InstanceError, add: AddProblem): void {
  const message = preview(error.message, PREVIEW_CHARS);
  switch (error.name) {
    case 'SpawnError':
      add('spawn_failure', '', instance, () => `the server could not be started: ${message}`);
      break;
    case 'McpServerExitedEarly':
      add('early_exit', '', instance, () => withStderr(message, error.data));
      break;
    case 'McpServerExited':
      add('server_exit', '', instance, () => withStderr(message, error.data));
      break;
    case 'NoAnswer':
      add('unanswered', '', instance, () => `no answer: ${message}`);
      break;
    case 'StdoutNoise':
      add('stdout_noise', '', instance, () => `the server wrote to stdout (the MCP wire) a line that is not JSON-RPC: ${preview(instance.input, 120)}${duringText(noiseDuring(instance))}`);
      break;
    default: {
      const code = typeof error.code === 'number' ? ` ${error.code}` : '';
      add('failed_call', `${error.name}${code}\u0000${message}`, instance, () => `${error.name}${code}: ${message}`);
    }
  }
}

/** The problem of a call that did not fail: unanswered, or slow; none for the session-wide nodes. */
function callProblem(run: Run, instance: Instance, options: FindProblemsOptions, add: AddProblem): void {
  if (WHOLE_SESSION.has(instance.nodeId) || instance.nodeId === NOISE_NODE) return;
  if (instance.status === 'open' && run.status === 'running') {
    const waited = options.now - Date.parse(instance.startedAt);
    if (waited >= options.slowMs) add('unanswered', 'open', instance, () => `still waiting for an answer after ${seconds(waited)} (held at a breakpoint, or slow)`);
    return;
  }
  if (instance.status === 'open') {
    add('unanswered', 'open', instance, () => 'never answered: the run ended with this call open');
    return;
  }
  // The server's time: a call held at a breakpoint is the debugger's doing, not the server's slowness.
  const { serverMs, heldMs } = callTimes(instance);
  if (serverMs !== null && serverMs >= options.slowMs) {
    add('slow_call', '', instance, () => `the server took ${seconds(serverMs)} (the threshold is ${seconds(options.slowMs)})${heldMs > 0 ? `; held ${seconds(heldMs)} more by the debugger` : ''}`);
  }
}

/** A call whose answer the debugger injected or aborted: what the host got was not the server's. */
function changedProblem(instance: Instance, add: AddProblem): void {
  const view = changeView(instance);
  if (view === null) return;
  add('debugger_changed', `${view.action}\u0000${view.by}`, instance, () => view.summary);
}

/** The run-wide problem of events dropped by the reporter, if there were any. */
function droppedProblem(run: Run): Problem | undefined {
  if ((run.droppedEvents ?? 0) <= 0) return undefined;
  return {
    kind: 'dropped_events',
    runId: run.runId,
    runName: run.name,
    nodeId: 'mcp:session',
    instanceId: null,
    count: run.droppedEvents,
    instanceIds: [],
    at: run.startedAt,
    sentBy: null,
    summary: `${run.droppedEvents} event(s) were dropped while the debugger was away or behind: this record is incomplete`,
  };
}

/** The problems of one run. */
export function runProblems(run: Run, options: FindProblemsOptions): Problem[] {
  const groups = new Map<string, Problem>();
  const add: AddProblem = (kind, key, instance, summary) => {
    const sentBy = instance.sentBy ?? null;
    const id = `${kind}\u0000${instance.nodeId}\u0000${key}\u0000${sentBy ?? ''}`;
    const group = groups.get(id);
    if (group !== undefined) {
      group.count++;
      if (group.instanceIds.length < SAMPLE_IDS) group.instanceIds.push(instance.instanceId);
      return;
    }
    groups.set(id, {
      kind,
      runId: run.runId,
      runName: run.name,
      nodeId: instance.nodeId,
      instanceId: instance.instanceId,
      count: 1,
      instanceIds: [instance.instanceId],
      at: instance.startedAt,
      // A call the debugger sent (Send again) is not the host's: said first, so it is never read as the host's problem.
      summary: capText(sentBy === null ? summary() : `${sentLabel(sentBy)}: ${summary()}`, SUMMARY_CHARS).text,
      sentBy,
    });
  };

  let noiseTotal: number | undefined;
  for (const instance of run.instances) {
    if (instance.nodeId === 'mcp:protocol') noiseTotal = stdoutNoiseCount(instance.output) ?? noiseTotal;
    // An answer the debugger made or an abort it chose is said as such, never as the server's failure or output.
    const change = instance.changed;
    if (change !== undefined && change.action !== 'retry') changedProblem(instance, add);
    else if (instance.status === 'error' && instance.error !== undefined) errorProblem(instance, instance.error, add);
    else callProblem(run, instance, options, add);
  }

  const noise = [...groups.values()].find((problem) => problem.kind === 'stdout_noise');
  if (noise !== undefined && noiseTotal !== undefined && noiseTotal > noise.count) {
    noise.summary = `${noise.summary} (${noiseTotal} such lines in all; the first ${noise.count} are recorded)`;
    noise.count = noiseTotal;
  }
  const problems = [...groups.values()];
  const dropped = droppedProblem(run);
  if (dropped !== undefined) problems.push(dropped);
  const rank = (kind: ProblemKind): number => PROBLEM_KINDS.indexOf(kind);
  // A stable sort: alike kinds keep the order they happened in.
  return problems.sort((a, b) => rank(a.kind) - rank(b.kind));
}

/** Which call a noise line came during, in words ('' when none was alone in flight). */
function duringText(instanceId: string | undefined): string {
  return instanceId === undefined ? '' : ` (printed while ${instanceId} was the only call in flight)`;
}

/** The protocol card's count of stdout-noise lines (every one, past those recorded as instances). */
function stdoutNoiseCount(output: unknown): number | undefined {
  if (!isObject(output)) return undefined;
  const count = output.stdoutNoise;
  return typeof count === 'number' && count > 0 ? count : undefined;
}

/** An exit's message followed by what its stderr (`error.data.stderr`) says went wrong. */
function withStderr(message: string, data: unknown): string {
  const tail = stderrTail(data);
  if (tail === '') return message;
  // The proxy's own message may already end in "its last stderr output was:".
  return message.endsWith(':') ? `${message} ${tail}` : `${message} — last stderr: ${tail}`;
}

/** The telling lines of an exit's stderr: the last error line and the frame after it, else the last three lines. */
function stderrTail(data: unknown): string {
  if (!isObject(data)) return '';
  const stderr = data.stderr;
  const lines = Array.isArray(stderr) ? stderr.filter((line): line is string => typeof line === 'string') : typeof stderr === 'string' ? stderr.split('\n') : [];
  const kept = lines.map((line) => line.trim()).filter((line) => line !== '');
  if (kept.length === 0) return '';
  // A stack trace ends the output of many crashes: its message is the line to show, with the frame after it (where it was thrown).
  const at = kept.findLastIndex((line) => CAUSE.test(line) && !line.startsWith('at '));
  const shown = at === -1 ? kept.slice(-3) : kept.slice(at, at + 2);
  return shown.join(' | ');
}

/** A duration for people: `250 ms`, `1.5 s`. */
function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

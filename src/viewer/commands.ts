// The REST commands the page sends on the user's behalf: breakpoints
// (shown at once, put back if the server refuses them) and deleting runs
// (gone from the list at once, back if the server could not delete them).
import type { Breakpoints, NodeBreakpoint } from '../protocol/control.js';
import { ApiError, api } from './api.js';
import { withoutRules } from './rule-list.js';
import { followNewestLeft } from './run-loading.js';
import { Dirty, newStep, type Step, type ViewState } from './view-state.js';

/** What a command needs of the page: its state, and the shell that redraws it, tells the user, and fetches. */
export interface CommandHost extends ViewState {
  mark(dirty: number): void;
  notify(text: string): void;
  perform(step: Step): Promise<void>;
}

/** Replace the breakpoints on the server (the live feed confirms to every tab); resolves false (with a notice) when it refused them. */
export async function putBreakpoints(host: CommandHost, next: Breakpoints): Promise<boolean> {
  const previous = host.breakpoints;
  host.breakpoints = next;
  host.mark(Dirty.Breakpoints);
  let saved = true;
  try {
    // Rules unchanged (a node or pause-on-error changed): sent without them, so the server keeps them, hit counts and all.
    const answer = await api.putBreakpoints(next.rules === previous.rules ? withoutRules(next) : next);
    // The answer comes once the reporters applied it; the live feed may have brought newer ones meanwhile (another tab, the API).
    if (host.breakpoints === next) host.breakpoints = answer;
  } catch (error) {
    saved = false;
    if (host.breakpoints === next) host.breakpoints = previous;
    host.notify(`Could not save breakpoints: ${error instanceof Error ? error.message : 'error'}`);
  }
  host.mark(Dirty.Breakpoints);
  return saved;
}

/**
 * Set or clear one gate of a node's breakpoint; `server` scopes it (a
 * server's name, or null for every server; undefined keeps its scope).
 */
export function setBreakpoint(host: CommandHost, nodeId: string, gate: 'before' | 'after', on: boolean, server?: string | null): Promise<boolean> {
  return putBreakpoints(host, withGate(host.breakpoints, nodeId, gate, on, server));
}

/** Scope a node's breakpoint to one server (its name), or to every server (null). */
export function setBreakpointScope(host: CommandHost, nodeId: string, server: string | null): Promise<boolean> {
  const entry = host.breakpoints.nodes[nodeId];
  if (entry === undefined) return Promise.resolve(true);
  const nodes: Breakpoints['nodes'] = { ...host.breakpoints.nodes, [nodeId]: scoped({ ...entry }, server) };
  return putBreakpoints(host, { ...host.breakpoints, nodes });
}

/** `entry` scoped to `server` (null: every server). */
function scoped(entry: NodeBreakpoint, server: string | null): NodeBreakpoint {
  if (server === null) delete entry.server;
  else entry.server = server;
  return entry;
}

/** Clear the breakpoints of one node, or of every node. */
export function clearBreakpoints(host: CommandHost, nodeId?: string): Promise<boolean> {
  const nodes: Breakpoints['nodes'] = {};
  if (nodeId !== undefined) for (const [id, entry] of Object.entries(host.breakpoints.nodes)) if (id !== nodeId) nodes[id] = { ...entry };
  return putBreakpoints(host, { ...host.breakpoints, nodes });
}

/** Turn pausing on an error answer on or off. */
export function setPauseOnError(host: CommandHost, on: boolean): Promise<boolean> {
  return putBreakpoints(host, { ...host.breakpoints, pauseOnError: on });
}

/**
 * `breakpoints` with one gate of a node set or cleared (a node with no gate
 * left is dropped), scoped to `server` when it is given (null: every
 * server); `breakpoints` is not changed.
 */
export function withGate(breakpoints: Breakpoints, nodeId: string, gate: 'before' | 'after', on: boolean, server?: string | null): Breakpoints {
  const nodes: Breakpoints['nodes'] = {};
  for (const [id, entry] of Object.entries(breakpoints.nodes)) nodes[id] = { ...entry };
  const entry: NodeBreakpoint = { ...(nodes[nodeId] ?? {}) };
  if (on) entry[gate] = true;
  else delete entry[gate];
  if (server !== undefined) scoped(entry, server);
  if (entry.before === true || entry.after === true) nodes[nodeId] = entry;
  else delete nodes[nodeId];
  return { ...breakpoints, nodes };
}

/**
 * Delete runs (the runs of a connection, say), one after the other. They
 * leave the list at once, and the page does not go to one of them on the
 * way (each `run.deleted` moves a page off the run it shows, and the
 * next could be the next to go): a page on one of them follows the newest
 * run left. Resolves to how many could not be deleted (they come back).
 */
export async function deleteRuns(host: CommandHost, runIds: readonly string[]): Promise<number> {
  for (const runId of runIds) host.deleting.add(runId);
  const step = newStep();
  step.dirty |= Dirty.Runs;
  if (host.selectedRunId !== null && host.deleting.has(host.selectedRunId)) followNewestLeft(host, step);
  void host.perform(step);
  let failed = 0;
  for (const runId of runIds) {
    try {
      await api.deleteRun(runId);
    } catch (error) {
      // Already gone (another tab, --max-runs): what was asked for.
      if (error instanceof ApiError && error.status === 404) continue;
      failed++;
      host.deleting.delete(runId);
      host.mark(Dirty.Runs);
    }
  }
  return failed;
}

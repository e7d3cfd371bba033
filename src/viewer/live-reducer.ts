// The live reducer: how one live-feed message changes the page's state.
// Deterministic and free of I/O (no DOM, no timers, no requests): it
// changes the state it is given (the run model in place, as the server's
// replay does, since the feed can be a flood) and returns what to redraw
// and what to fetch, which the Store (store.ts) carries out. Its playbook
// is test/viewer-reducer.test.ts.
import type { RunSummary } from '../protocol/run-model.js';
import type { Hold, RunsLoading } from '../protocol/control.js';
import type { LiveMessage } from '../protocol/live-feed.js';
import { runServer } from '../protocol/run-state.js';
import { clearRun, followNewestLeft, followStarting, selectRun } from './run-loading.js';
import { openCall } from './selection.js';
import { Dirty, newStep, type Step, type ViewState } from './view-state.js';

/** Apply one live-feed message to `state`: what to redraw and what to fetch. */
export function receive(state: ViewState, message: LiveMessage): Step {
  const step = newStep();
  switch (message.type) {
    case 'snapshot':
      onSnapshot(state, step, message);
      break;
    case 'run.started':
      onRunStarted(state, step, message.run);
      break;
    case 'run.updated':
      onRunUpdated(state, step, message.run);
      break;
    case 'run.event':
      // A run learns its server's name when initialize is answered: the list names it so (see runServer).
      if (message.event.type === 'run.meta' && 'serverInfo' in message.event.meta) serverKnown(state, step, message.runId, message.event.meta);
      if (message.runId !== state.selectedRunId) break;
      if (state.pending !== null) state.pending.push(message.event);
      else if (state.run !== null && state.run.apply(message.event)) step.dirty |= Dirty.Run;
      break;
    case 'run.deleted':
      onRunDeleted(state, step, message.runId);
      break;
    case 'runs.loaded':
      onRunsLoaded(state, step, message.runs, message.loading);
      break;
    case 'runs.trimmed':
      state.trimmed = { deleted: (state.trimmed?.deleted ?? 0) + message.deleted, maxRuns: message.maxRuns };
      state.trimmedSeen += message.deleted;
      step.dirty |= Dirty.Runs;
      break;
    case 'breakpoints':
      state.breakpoints = message.breakpoints;
      step.dirty |= Dirty.Breakpoints;
      break;
    case 'hold.opened':
      onHoldOpened(state, step, message.hold);
      break;
    case 'hold.updated': {
      const index = state.holds.findIndex((h) => h.holdId === message.hold.holdId);
      if (index === -1) break;
      state.holds = state.holds.map((h, i) => (i === index ? message.hold : h));
      step.dirty |= Dirty.Holds;
      break;
    }
    case 'hold.decided':
    case 'hold.released':
      removeHold(state, step, message.holdId);
      break;
    default:
      break;
  }
  return step;
}

/** A hold is gone (decided, released, or answered by this page). */
export function removeHold(state: ViewState, step: Step, holdId: string): void {
  if (!state.holds.some((h) => h.holdId === holdId)) return;
  state.holds = state.holds.filter((h) => h.holdId !== holdId);
  step.dirty |= Dirty.Holds;
}

/** Everything as it is now (the first message, and each after a reconnection). */
function onSnapshot(state: ViewState, step: Step, message: Extract<LiveMessage, { type: 'snapshot' }>): void {
  state.loaded = true;
  state.runs = message.runs;
  state.runsLoading = message.loading ?? null;
  // The server's total: a note the user dismissed comes back only if more were deleted since.
  if (message.trimmed !== undefined && message.trimmed.deleted !== state.trimmedSeen) state.trimmed = message.trimmed;
  if (message.trimmed !== undefined) state.trimmedSeen = message.trimmed.deleted;
  state.breakpoints = message.breakpoints;
  state.holds = message.holds;
  step.dirty |= Dirty.Runs | Dirty.Breakpoints | Dirty.Holds;
  const chosen = (): boolean => state.runs.some((r) => r.runId === state.selectedRunId);
  // The chosen run is gone (deleted while the page was away, or named
  // by an address from before): follow the newest, as a live deletion does.
  if (!state.followNewest && !chosen()) state.followNewest = true;
  // A (re)connection: what was missed is in the run itself, fetch it again.
  const wanted = state.selectedRunId !== null && chosen() && !state.followNewest ? state.selectedRunId : (state.newestShown()?.runId ?? null);
  if (wanted !== null) selectRun(state, step, wanted, !state.followNewest, true);
  else clearRun(state, step);
}

function onRunStarted(state: ViewState, step: Step, run: RunSummary): void {
  state.runs = [run, ...state.runs.filter((r) => r.runId !== run.runId)];
  step.dirty |= Dirty.Runs;
  // Followed only if the list shows it: with the adapter's runs filtered out, their flood does not move the page.
  if (state.followNewest && state.selectedRunId !== run.runId && state.shows(run)) followStarting(state, step, run);
}

/**
 * Runs the server's start-up load read (see `runs.loaded`): those the page
 * does not have yet take their place by start time (one it has came in a
 * newer message). A page following the newest run with none on view shows it.
 */
function onRunsLoaded(state: ViewState, step: Step, runs: readonly RunSummary[], loading: RunsLoading | null): void {
  state.runsLoading = loading;
  step.dirty |= Dirty.Runs;
  const known = new Set(state.runs.map((run) => run.runId));
  const fresh = runs.filter((run) => !known.has(run.runId));
  if (fresh.length === 0) return;
  // Stable: runs that started in the same millisecond keep the server's order.
  state.runs = [...state.runs, ...fresh].sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
  if (state.followNewest && state.selectedRunId === null) {
    const newest = state.newestShown();
    if (newest !== undefined) selectRun(state, step, newest.runId, false);
  }
}

function onRunUpdated(state: ViewState, step: Step, run: RunSummary): void {
  const index = state.runs.findIndex((r) => r.runId === run.runId);
  if (index === -1) state.runs = [run, ...state.runs];
  else state.runs[index] = run;
  if (state.run !== null && state.run.summary.runId === run.runId) {
    // The summary also changes without an event (a run abandoned when its reporter vanished).
    state.run.summary = { ...run };
    state.run.version++;
    step.dirty |= Dirty.Run;
  }
  step.dirty |= Dirty.Runs;
}

function onRunDeleted(state: ViewState, step: Step, runId: string): void {
  state.deleting.delete(runId);
  state.runs = state.runs.filter((r) => r.runId !== runId);
  state.holds = state.holds.filter((h) => h.runId !== runId);
  step.dirty |= Dirty.Runs | Dirty.Holds;
  if (state.selectedRunId === runId) followNewestLeft(state, step);
}

function onHoldOpened(state: ViewState, step: Step, hold: Hold): void {
  if (!state.holds.some((h) => h.holdId === hold.holdId)) state.holds = [...state.holds, hold];
  step.dirty |= Dirty.Holds;
  // A hold needs attention: show its run if the page is following, and the held call itself
  // (unless the page is on another held call: that one is not taken away).
  if (state.followNewest && state.selectedRunId !== hold.runId) selectRun(state, step, hold.runId, false);
  if (state.selectedRunId === hold.runId && state.run !== null && !state.runLoading) {
    const busy = state.selectedNodeId !== null && state.selectedNodeId !== hold.nodeId && state.holds.some((h) => h.runId === hold.runId && h.nodeId === state.selectedNodeId);
    if (!busy) openCall(state, step, hold.nodeId, hold.instanceId);
  }
}

/** The summary of `runId` takes the server name its meta now has. */
function serverKnown(state: ViewState, step: Step, runId: string, meta: Record<string, unknown>): void {
  const server = runServer(meta);
  const index = state.runs.findIndex((r) => r.runId === runId);
  const run = state.runs[index];
  if (server === undefined || run === undefined || (run.server?.name === server.name && run.server.version === server.version)) return;
  state.runs[index] = { ...run, server };
  if (state.run !== null && state.run.summary.runId === runId) state.run.summary = { ...state.run.summary, server };
  step.dirty |= Dirty.Runs | Dirty.Run;
}

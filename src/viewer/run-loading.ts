// Which run the page shows, and loading it, as transitions of the page's
// state: a fetch is an effect the shell carries out (store.ts), and its
// answer comes back through `runLoaded` / `runFailed` / `metaFetched`. Live
// events that arrive during a fetch wait in `pending` and are applied on
// top of the fetched run. No DOM and no requests here.
import type { RunSummary } from '../protocol/run-model.js';
import { RunModel, type FetchedRun } from './run-model.js';
import { openCall, selectNode } from './selection.js';
import { Dirty, newStep, type Step, type ViewState } from './view-state.js';

/** Show no run. */
export function clearRun(state: ViewState, step: Step): void {
  state.selectedRunId = null;
  state.run = null;
  state.runLoading = false;
  state.runError = null;
  state.selectedNodeId = null;
  state.pending = null;
  step.dirty |= Dirty.Run | Dirty.Selection;
}

/**
 * Show a run: ask for it (a `load` effect), and keep the live events that
 * arrive meanwhile to apply on top of it. `explicit` is a user's choice,
 * which stops following the newest run; `reload` fetches the run shown again.
 */
export function selectRun(state: ViewState, step: Step, runId: string, explicit: boolean, reload = false): void {
  if (explicit) state.followNewest = false;
  if (runId === state.selectedRunId && !reload && (state.run !== null || state.runLoading)) return;
  const sameRun = runId === state.selectedRunId;
  state.selectedRunId = runId;
  if (!sameRun) {
    state.selectedNodeId = null;
    state.expanded.clear();
    state.unfolded.clear();
    state.activeInstance = null;
    state.run = null;
  }
  state.runLoading = true;
  state.runError = null;
  state.pending = [];
  const token = ++state.loadToken;
  step.dirty |= Dirty.Run | Dirty.Selection | Dirty.Runs;
  step.effects.push({ type: 'load', runId, token });
}

/** The run shown is going away: follow the newest run left, or show none. */
export function followNewestLeft(state: ViewState, step: Step): void {
  state.followNewest = true;
  const next = state.newestShown()?.runId;
  if (next !== undefined) selectRun(state, step, next, false);
  else clearRun(state, step);
}

/**
 * Show a run that just started: its events all follow on the live feed,
 * so it is drawn from them as they come, without waiting for a fetch
 * (which a browser may queue behind a flood of feed messages). Only the
 * start's meta is fetched, in the background (a `meta` effect).
 */
export function followStarting(state: ViewState, step: Step, summary: RunSummary): void {
  const token = ++state.loadToken;
  state.selectedRunId = summary.runId;
  state.selectedNodeId = null;
  state.expanded.clear();
  state.unfolded.clear();
  state.activeInstance = null;
  state.runLoading = false;
  state.runError = null;
  state.pending = null;
  const model = RunModel.starting({ ...summary });
  state.run = model;
  step.dirty |= Dirty.Run | Dirty.Selection | Dirty.Runs;
  step.effects.push({ type: 'meta', runId: summary.runId, token, model });
}

/**
 * The run of `load` arrived: it is shown, with the live events that
 * came meanwhile on top, and the node named before it loaded (or else its
 * held call) opened. Nothing for an older load. If this throws (a run the
 * model cannot take), the shell hands the error to {@link runFailed}.
 */
export function runLoaded(state: ViewState, load: { runId: string; token: number }, fetched: FetchedRun): Step {
  const step = newStep();
  if (load.token !== state.loadToken) return step;
  const model = new RunModel(fetched);
  model.openHolds(state.holds);
  for (const event of state.pending ?? []) model.apply(event);
  state.run = model;
  if (state.selectedNodeId !== null && !model.nodes.has(state.selectedNodeId)) state.selectedNodeId = null;
  if (state.openOnLoad && state.selectedNodeId !== null) {
    // Selected again now that it is there, for what a selection opens.
    const nodeId = state.selectedNodeId;
    state.selectedNodeId = null;
    selectNode(state, step, nodeId);
  }
  state.openOnLoad = false;
  if (state.selectedNodeId === null) {
    // A run with a frame held: open the held call.
    const held = state.holds.find((h) => h.runId === load.runId);
    if (held !== undefined) openCall(state, step, held.nodeId, held.instanceId);
  }
  loadDone(state, step);
  return step;
}

/** Load `token` failed: the page says why, and shows no run. Nothing for an older load. */
export function runFailed(state: ViewState, token: number, error: unknown): Step {
  const step = newStep();
  if (token !== state.loadToken) return step;
  state.runError = error instanceof Error ? error.message : 'could not load the run';
  state.run = null;
  loadDone(state, step);
  return step;
}

/** The meta of a run drawn from the live feed arrived: merged in, if the page still shows that run. */
export function metaFetched(state: ViewState, token: number, model: RunModel, meta: Record<string, unknown>): Step {
  const step = newStep();
  if (token !== state.loadToken || state.run !== model) return step;
  model.mergeMeta(meta);
  step.dirty |= Dirty.Run;
  return step;
}

function loadDone(state: ViewState, step: Step): void {
  state.pending = null;
  state.runLoading = false;
  step.dirty |= Dirty.Run | Dirty.Selection;
}

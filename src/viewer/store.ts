// The page's state with its shell: views subscribe and redraw at most once
// per animation frame; live messages go through the live reducer
// (live-reducer.ts) and user actions through the same transitions
// (run-loading.ts, selection.ts); the fetches they ask for are made here.
// The REST commands the page sends are in commands.ts.
import type { RunSummary } from '../protocol/run-model.js';
import type { BreakpointRule, Breakpoints } from '../protocol/control.js';
import type { LiveMessage } from '../protocol/live-feed.js';
import { api } from './api.js';
import { clearBreakpoints, deleteRuns, putBreakpoints, setBreakpoint, setBreakpointScope, setPauseOnError } from './commands.js';
import type { FindQuery } from './find.js';
import { receive, removeHold } from './live-reducer.js';
import { putRules, type RulesSaved } from './rule-commands.js';
import { clearRun, metaFetched, runFailed, runLoaded, selectRun } from './run-loading.js';
import { openCall, selectNode } from './selection.js';
import { Dirty, newStep, ViewState, type Connection, type Effect, type RunFilter, type SourceFilter, type Step } from './view-state.js';

type Listener = (dirty: number) => void;

/** The state of the page, and what redraws it and fetches for it. */
export class Store extends ViewState {
  #listeners: Listener[] = [];
  #dirty = 0;
  #scheduled = false;
  #noticeTimer: ReturnType<typeof setTimeout> | undefined;

  subscribe(listener: Listener): void {
    this.#listeners.push(listener);
  }

  /** Mark parts of the page for the next frame. */
  mark(dirty: number): void {
    this.#dirty |= dirty;
    if (this.#scheduled) return;
    this.#scheduled = true;
    let frame = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = (): void => {
      cancelAnimationFrame(frame);
      if (timer !== undefined) clearTimeout(timer);
      if (!this.#scheduled) return;
      this.#scheduled = false;
      const flags = this.#dirty;
      this.#dirty = 0;
      for (const listener of this.#listeners) listener(flags);
    };
    // requestAnimationFrame does not fire in a hidden tab; a timer keeps the state fresh there too.
    frame = requestAnimationFrame(flush);
    timer = setTimeout(flush, 100);
  }

  /** Draw everything now (first paint). */
  flushAll(): void {
    for (const listener of this.#listeners) listener(0xffff);
  }

  /**
   * Carry out what a transition did: mark what it changed, and make the
   * fetches it asked for. Resolves once they are answered and applied.
   */
  perform(step: Step): Promise<void> {
    if (step.dirty !== 0) this.mark(step.dirty);
    if (step.effects.length === 0) return Promise.resolve();
    return Promise.all(step.effects.map((effect) => this.#fetch(effect))).then(() => {});
  }

  async #fetch(effect: Effect): Promise<void> {
    if (effect.type === 'meta') {
      await api.run(effect.runId).then(
        (fetched) => void this.perform(metaFetched(this, effect.token, effect.model, fetched.meta)),
        () => {},
      );
      return;
    }
    let step: Step;
    try {
      const fetched = await api.run(effect.runId);
      step = runLoaded(this, effect, fetched);
    } catch (error) {
      step = runFailed(this, effect.token, error);
    }
    void this.perform(step);
  }

  /** Show a short message in the corner. */
  notify(text: string): void {
    this.notice = text;
    this.mark(Dirty.Notice);
    if (this.#noticeTimer !== undefined) clearTimeout(this.#noticeTimer);
    this.#noticeTimer = setTimeout(() => {
      this.notice = null;
      this.mark(Dirty.Notice);
    }, 5000);
  }

  /**
   * Open at a run (and a node in it) named before the first snapshot, as a
   * reload's address names them: shown as if the user had chosen it. If the
   * snapshot has no such run, the page follows the newest one instead.
   */
  restore(runId: string, nodeId: string | null): void {
    this.selectedRunId = runId;
    this.selectedNodeId = nodeId;
    this.followNewest = false;
    this.openOnLoad = nodeId !== null;
  }

  /**
   * Go to a run and node named later (the address changed by hand). The
   * run is fetched if it is not the one shown; the node is selected once
   * the run is there (if it has that node). False, and nothing done, for a
   * run that is not in the list.
   */
  goTo(runId: string, nodeId: string | null): boolean {
    if (!this.runs.some((r) => r.runId === runId)) return false;
    if (runId === this.selectedRunId) {
      this.followNewest = false;
      if (this.run !== null && !this.runLoading) this.selectNode(nodeId !== null && this.run.nodes.has(nodeId) ? nodeId : null);
      else {
        // Still loading: the load keeps the node, and lets it go if the run has no such node.
        this.selectedNodeId = nodeId;
        this.openOnLoad = nodeId !== null;
        this.mark(Dirty.Selection);
      }
      return true;
    }
    void this.selectRun(runId, true).then(() => {
      if (this.selectedRunId === runId && this.run !== null && nodeId !== null && this.run.nodes.has(nodeId)) this.selectNode(nodeId);
    });
    return true;
  }

  /** Follow the newest run again, as before any choice. */
  followLatest(): void {
    this.followNewest = true;
    const newest = this.newestShown()?.runId;
    const step = newStep();
    if (newest === undefined) clearRun(this, step);
    else if (newest !== this.selectedRunId) selectRun(this, step, newest, false);
    else step.dirty |= Dirty.Selection;
    void this.perform(step);
  }

  setConnection(state: Connection): void {
    this.connection = state;
    this.mark(Dirty.Connection);
  }

  /** Apply one live-feed message. */
  receive(message: LiveMessage): void {
    void this.perform(receive(this, message));
  }

  /**
   * Open one call: its node selected, the call expanded, scrolled into view
   * in the node's list, and marked as the one open in the timeline.
   */
  openCall(nodeId: string, instanceId: string): void {
    const step = newStep();
    openCall(this, step, nodeId, instanceId);
    void this.perform(step);
  }

  /** Change the find bar's query. */
  setFind(find: FindQuery): void {
    if (find.text === this.find.text && find.status === this.find.status) return;
    this.find = find;
    this.mark(Dirty.Find);
  }

  /** Show the timeline or the waterfall in the right pane. */
  setView(view: 'timeline' | 'waterfall'): void {
    if (view === this.view) return;
    this.view = view;
    this.mark(Dirty.Find);
  }

  /** Delete the finished runs among `runs` (not one that is running); resolves to how many could not be. */
  deleteFinished(runs: readonly RunSummary[]): Promise<number> {
    return this.deleteRuns(runs.filter((run) => run.status !== 'running').map((run) => run.runId));
  }

  removeHold(holdId: string): void {
    const step = newStep();
    removeHold(this, step, holdId);
    void this.perform(step);
  }

  /**
   * Show a run: fetch it, and apply the live events that arrive meanwhile
   * on top of it. `explicit` is a user's choice, which stops following the
   * newest run.
   */
  selectRun(runId: string, explicit: boolean, reload = false): Promise<void> {
    const step = newStep();
    selectRun(this, step, runId, explicit, reload);
    return this.perform(step);
  }

  selectNode(nodeId: string | null): void {
    const step = newStep();
    selectNode(this, step, nodeId);
    void this.perform(step);
  }

  toggleExpanded(instanceId: string): void {
    if (this.expanded.has(instanceId)) this.expanded.delete(instanceId);
    else this.expanded.add(instanceId);
    this.mark(Dirty.Selection);
  }

  toggleFold(nodeId: string): void {
    if (this.unfolded.has(nodeId)) this.unfolded.delete(nodeId);
    else this.unfolded.add(nodeId);
    this.mark(Dirty.Run);
  }

  setFilter(filter: RunFilter): void {
    this.filter = filter;
    this.#filtersChanged();
  }

  setSource(source: SourceFilter): void {
    this.source = source;
    this.#filtersChanged();
  }

  setSearch(text: string): void {
    if (text === this.search) return;
    this.search = text;
    this.#filtersChanged();
  }

  /** The list changed what it shows: a page that follows the newest run follows the newest shown. */
  #filtersChanged(): void {
    this.mark(Dirty.Runs);
    if (!this.followNewest) return;
    const newest = this.runs.find((run) => this.shows(run));
    if (newest !== undefined && newest.runId !== this.selectedRunId) void this.selectRun(newest.runId, false);
  }

  /** See {@link deleteRuns}. */
  deleteRuns(runIds: readonly string[]): Promise<number> {
    return deleteRuns(this, runIds);
  }

  /** See {@link putBreakpoints}. */
  putBreakpoints(next: Breakpoints): Promise<boolean> {
    return putBreakpoints(this, next);
  }

  /** See {@link putRules}. */
  putRules(rules: BreakpointRule[]): Promise<RulesSaved> {
    return putRules(this, rules);
  }

  /** Set or clear one gate of a node's breakpoint; `server` scopes it (a name, null for every server, undefined: as it was). */
  setBreakpoint(nodeId: string, gate: 'before' | 'after', on: boolean, server?: string | null): Promise<boolean> {
    return setBreakpoint(this, nodeId, gate, on, server);
  }

  /** Scope a node's breakpoint to one server, or to every server (null). */
  setBreakpointScope(nodeId: string, server: string | null): Promise<boolean> {
    return setBreakpointScope(this, nodeId, server);
  }

  /** Clear the breakpoints of one node, or of every node. */
  clearBreakpoints(nodeId?: string): Promise<boolean> {
    return clearBreakpoints(this, nodeId);
  }

  setPauseOnError(on: boolean): Promise<boolean> {
    return setPauseOnError(this, on);
  }
}

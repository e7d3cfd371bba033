// The page's state: the run list, the selected run, breakpoints, holds and
// what the user has selected. Live messages and user actions change it;
// views subscribe and redraw at most once per animation frame.
import type { Breakpoints, Hold, RunEvent, RunSummary, Status } from '../report/events.js';
import { runServer } from '../protocol/run-state.js';
import { ApiError, api } from './api.js';
import { NO_FIND, type FindQuery } from './find.js';
import type { Connection, LiveMessage } from './live.js';
import { RunModel } from './run-model.js';

/** What changed, so views redraw only what they show. */
export const Dirty = {
  Runs: 1,
  Run: 2,
  Breakpoints: 4,
  Holds: 8,
  Selection: 16,
  Connection: 32,
  Notice: 64,
  Tick: 128,
  /** The find bar's query, the right pane's view, or the call that is open changed. */
  Find: 256,
} as const;

/** The run-list filter by status. */
export type RunFilter = 'all' | Status;
/** The run-list filter by source: the proxy's runs (`mcp-proxy`) or the adapter's (`mcp-adapter`). */
export type SourceFilter = 'all' | 'proxy' | 'adapter';

/** The `source` of a run that a source filter keeps. */
const SOURCES: Record<Exclude<SourceFilter, 'all'>, string> = { proxy: 'mcp-proxy', adapter: 'mcp-adapter' };

/** Does `run` pass the run list's filters (status, source, and text in its name, case-insensitive)? */
export function passesFilters(run: RunSummary, status: RunFilter, source: SourceFilter, text: string): boolean {
  if (status !== 'all' && run.status !== status) return false;
  if (source !== 'all' && run.source !== SOURCES[source]) return false;
  const needle = text.trim().toLowerCase();
  return needle === '' || run.name.toLowerCase().includes(needle);
}

type Listener = (dirty: number) => void;

/** The state of the page. */
export class Store {
  runs: RunSummary[] = [];
  /** False until the first snapshot arrives (so the empty state does not flash). */
  loaded = false;
  run: RunModel | null = null;
  runLoading = false;
  runError: string | null = null;
  breakpoints: Breakpoints = { pauseOnError: true, nodes: {} };
  holds: Hold[] = [];
  connection: Connection = 'connecting';
  notice: string | null = null;

  selectedRunId: string | null = null;
  /** Until the user picks a run, the page follows the newest one. */
  followNewest = true;
  selectedNodeId: string | null = null;
  /** Instances whose detail is shown. */
  readonly expanded = new Set<string>();
  /** Containers the user unfolded. */
  readonly unfolded = new Set<string>();
  filter: RunFilter = 'all';
  /** The run-list filter by source. */
  source: SourceFilter = 'all';
  /** The run-list filter by text in the run's name. */
  search = '';
  /** Runs this page asked the server to delete: no longer listed nor followed (see {@link Store.deleteRuns}). */
  readonly deleting = new Set<string>();
  /** The find bar: what the timeline, the waterfall and a node's calls are narrowed to. */
  find: FindQuery = NO_FIND;
  /** What the right pane shows. */
  view: 'timeline' | 'waterfall' = 'timeline';
  /** The call opened last (from the timeline, the waterfall, a hold, "next error"): marked in the lists. */
  activeInstance: string | null = null;
  /** A call the node detail scrolls into view at its next render (then cleared). */
  reveal: string | null = null;

  #listeners: Listener[] = [];
  #dirty = 0;
  #scheduled = false;
  #pending: RunEvent[] | null = null;
  #loadToken = 0;
  #noticeTimer: ReturnType<typeof setTimeout> | undefined;
  /** A node was named before its run loaded: open its latest call once it has, as a click on it would. */
  #openOnLoad = false;

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
    this.#openOnLoad = nodeId !== null;
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
        this.#openOnLoad = nodeId !== null;
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
    if (newest === undefined) this.#clearRun();
    else if (newest !== this.selectedRunId) void this.selectRun(newest, false);
    else this.mark(Dirty.Selection);
  }

  setConnection(state: Connection): void {
    this.connection = state;
    this.mark(Dirty.Connection);
  }

  /** Apply one live-feed message. */
  receive(message: LiveMessage): void {
    switch (message.type) {
      case 'snapshot': {
        this.loaded = true;
        this.runs = message.runs;
        this.breakpoints = message.breakpoints;
        this.holds = message.holds;
        this.mark(Dirty.Runs | Dirty.Breakpoints | Dirty.Holds);
        // The chosen run is gone (deleted while the page was away, or named
        // by an address from before): follow the newest, as a live deletion does.
        if (!this.followNewest && !this.runs.some((r) => r.runId === this.selectedRunId)) this.followNewest = true;
        // A (re)connection: what was missed is in the run itself, fetch it again.
        const wanted = this.selectedRunId !== null && this.runs.some((r) => r.runId === this.selectedRunId) && !this.followNewest
          ? this.selectedRunId
          : (this.newestShown()?.runId ?? null);
        if (wanted !== null) void this.selectRun(wanted, !this.followNewest, true);
        else this.#clearRun();
        break;
      }
      case 'run.started': {
        this.runs = [message.run, ...this.runs.filter((r) => r.runId !== message.run.runId)];
        this.mark(Dirty.Runs);
        // Followed only if the list shows it: with the adapter's runs filtered out, their flood does not move the page.
        if (this.followNewest && this.selectedRunId !== message.run.runId && this.shows(message.run)) this.#followStarting(message.run);
        break;
      }
      case 'run.updated': {
        const index = this.runs.findIndex((r) => r.runId === message.run.runId);
        if (index === -1) this.runs = [message.run, ...this.runs];
        else this.runs[index] = message.run;
        if (this.run !== null && this.run.summary.runId === message.run.runId) {
          // The summary also changes without an event (a run abandoned when its reporter vanished).
          this.run.summary = { ...message.run };
          this.run.version++;
          this.mark(Dirty.Run);
        }
        this.mark(Dirty.Runs);
        break;
      }
      case 'run.event': {
        // A run learns its server's name when initialize is answered: the list names it so (see runServer).
        if (message.event.type === 'run.meta' && 'serverInfo' in message.event.meta) this.#serverKnown(message.runId, message.event.meta);
        if (message.runId !== this.selectedRunId) return;
        if (this.#pending !== null) {
          this.#pending.push(message.event);
          return;
        }
        if (this.run !== null && this.run.apply(message.event)) this.mark(Dirty.Run);
        break;
      }
      case 'run.deleted': {
        this.deleting.delete(message.runId);
        this.runs = this.runs.filter((r) => r.runId !== message.runId);
        this.holds = this.holds.filter((h) => h.runId !== message.runId);
        this.mark(Dirty.Runs | Dirty.Holds);
        if (this.selectedRunId === message.runId) {
          this.followNewest = true;
          const next = this.newestShown()?.runId;
          if (next !== undefined) void this.selectRun(next, false);
          else this.#clearRun();
        }
        break;
      }
      case 'breakpoints':
        this.breakpoints = message.breakpoints;
        this.mark(Dirty.Breakpoints);
        break;
      case 'hold.opened': {
        if (!this.holds.some((h) => h.holdId === message.hold.holdId)) this.holds = [...this.holds, message.hold];
        this.mark(Dirty.Holds);
        const hold = message.hold;
        // A hold needs attention: show its run if the page is following, and the held call itself
        // (unless the page is on another held call: that one is not taken away).
        if (this.followNewest && this.selectedRunId !== hold.runId) void this.selectRun(hold.runId, false);
        if (this.selectedRunId === hold.runId && this.run !== null && !this.runLoading) {
          const busy = this.selectedNodeId !== null && this.selectedNodeId !== hold.nodeId && this.holds.some((h) => h.runId === hold.runId && h.nodeId === this.selectedNodeId);
          if (!busy) this.openCall(hold.nodeId, hold.instanceId);
        }
        break;
      }
      case 'hold.updated': {
        const index = this.holds.findIndex((h) => h.holdId === message.hold.holdId);
        if (index === -1) return;
        this.holds = this.holds.map((h, i) => (i === index ? message.hold : h));
        this.mark(Dirty.Holds);
        break;
      }
      case 'hold.decided':
      case 'hold.released':
        this.removeHold(message.holdId);
        break;
      default:
        break;
    }
  }

  /** The summary of `runId` takes the server name its meta now has. */
  #serverKnown(runId: string, meta: Record<string, unknown>): void {
    const server = runServer(meta);
    const index = this.runs.findIndex((r) => r.runId === runId);
    const run = this.runs[index];
    if (server === undefined || run === undefined || (run.server?.name === server.name && run.server.version === server.version)) return;
    this.runs[index] = { ...run, server };
    if (this.run !== null && this.run.summary.runId === runId) this.run.summary = { ...this.run.summary, server };
    this.mark(Dirty.Runs | Dirty.Run);
  }

  /**
   * Open one call: its node selected, the call expanded, scrolled into view
   * in the node's list, and marked as the one open in the timeline.
   */
  openCall(nodeId: string, instanceId: string): void {
    this.selectNode(nodeId);
    this.expanded.add(instanceId);
    this.activeInstance = instanceId;
    this.reveal = instanceId;
    this.mark(Dirty.Selection | Dirty.Find);
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

  /** The hold on a call of the selected run, if it is held. */
  holdOfInstance(instanceId: string): Hold | undefined {
    return this.holds.find((h) => h.runId === this.selectedRunId && h.instanceId === instanceId);
  }

  /** Delete the finished runs among `runs` (not one that is running); resolves to how many could not be. */
  deleteFinished(runs: readonly RunSummary[]): Promise<number> {
    return this.deleteRuns(runs.filter((run) => run.status !== 'running').map((run) => run.runId));
  }

  removeHold(holdId: string): void {
    if (!this.holds.some((h) => h.holdId === holdId)) return;
    this.holds = this.holds.filter((h) => h.holdId !== holdId);
    this.mark(Dirty.Holds);
  }

  #clearRun(): void {
    this.selectedRunId = null;
    this.run = null;
    this.runLoading = false;
    this.runError = null;
    this.selectedNodeId = null;
    this.#pending = null;
    this.mark(Dirty.Run | Dirty.Selection);
  }

  /**
   * Show a run that just started: its events all follow on the live feed,
   * so it is drawn from them as they come, without waiting for a fetch
   * (which a browser may queue behind a flood of feed messages). Only the
   * start's meta is fetched, in the background.
   */
  #followStarting(summary: RunSummary): void {
    const load = ++this.#loadToken;
    this.selectedRunId = summary.runId;
    this.selectedNodeId = null;
    this.expanded.clear();
    this.unfolded.clear();
    this.activeInstance = null;
    this.runLoading = false;
    this.runError = null;
    this.#pending = null;
    const model = RunModel.starting({ ...summary });
    this.run = model;
    this.mark(Dirty.Run | Dirty.Selection | Dirty.Runs);
    api.run(summary.runId).then(
      (fetched) => {
        if (load !== this.#loadToken || this.run !== model) return;
        model.mergeMeta(fetched.meta);
        this.mark(Dirty.Run);
      },
      () => {},
    );
  }

  /**
   * Show a run: fetch it, and apply the live events that arrive meanwhile
   * on top of it. `explicit` is a user's choice, which stops following the
   * newest run.
   */
  async selectRun(runId: string, explicit: boolean, reload = false): Promise<void> {
    if (explicit) this.followNewest = false;
    if (runId === this.selectedRunId && !reload && (this.run !== null || this.runLoading)) return;
    const sameRun = runId === this.selectedRunId;
    this.selectedRunId = runId;
    if (!sameRun) {
      this.selectedNodeId = null;
      this.expanded.clear();
      this.unfolded.clear();
      this.activeInstance = null;
      this.run = null;
    }
    this.runLoading = true;
    this.runError = null;
    this.#pending = [];
    const load = ++this.#loadToken;
    this.mark(Dirty.Run | Dirty.Selection | Dirty.Runs);
    try {
      const fetched = await api.run(runId);
      if (load !== this.#loadToken) return;
      const model = new RunModel(fetched);
      for (const event of this.#pending ?? []) model.apply(event);
      this.run = model;
      if (this.selectedNodeId !== null && !model.nodes.has(this.selectedNodeId)) this.selectedNodeId = null;
      if (this.#openOnLoad && this.selectedNodeId !== null) {
        // Selected again now that it is there, for what a selection opens.
        const nodeId = this.selectedNodeId;
        this.selectedNodeId = null;
        this.selectNode(nodeId);
      }
      this.#openOnLoad = false;
      if (this.selectedNodeId === null) {
        // A run with a frame held: open the held call.
        const held = this.holds.find((h) => h.runId === runId);
        if (held !== undefined) this.openCall(held.nodeId, held.instanceId);
      }
    } catch (error) {
      if (load !== this.#loadToken) return;
      this.runError = error instanceof Error ? error.message : 'could not load the run';
      this.run = null;
    } finally {
      if (load === this.#loadToken) {
        this.#pending = null;
        this.runLoading = false;
        this.mark(Dirty.Run | Dirty.Selection);
      }
    }
  }

  selectNode(nodeId: string | null): void {
    if (nodeId === this.selectedNodeId) return;
    this.selectedNodeId = nodeId;
    if (nodeId !== null && this.run !== null) {
      const entry = this.run.node(nodeId);
      const held = this.holds.find((h) => h.runId === this.selectedRunId && h.nodeId === nodeId);
      if (held !== undefined) this.expanded.add(held.instanceId);
      else {
        const last = entry?.instances[entry.instances.length - 1];
        if (last !== undefined) this.expanded.add(last.instanceId);
      }
    }
    this.mark(Dirty.Selection);
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

  /** Does the run list show `run` (its filters let it through, and it is not being deleted)? */
  shows(run: RunSummary): boolean {
    return !this.deleting.has(run.runId) && passesFilters(run, this.filter, this.source, this.search);
  }

  /**
   * The newest run the list shows; the newest of all (not being deleted)
   * when the filters let none through, so the page still shows something.
   */
  newestShown(): RunSummary | undefined {
    return this.runs.find((run) => this.shows(run)) ?? this.runs.find((run) => !this.deleting.has(run.runId));
  }

  /**
   * Delete runs (the runs of a connection, say), one after the other. They
   * leave the list at once, and the page does not go to one of them on the
   * way (each `run.deleted` moves a page off the run it shows, and the
   * next could be the next to go): a page on one of them follows the newest
   * run left. Resolves to how many could not be deleted (they come back).
   */
  async deleteRuns(runIds: readonly string[]): Promise<number> {
    for (const runId of runIds) this.deleting.add(runId);
    this.mark(Dirty.Runs);
    if (this.selectedRunId !== null && this.deleting.has(this.selectedRunId)) {
      this.followNewest = true;
      const next = this.newestShown()?.runId;
      if (next !== undefined) void this.selectRun(next, false);
      else this.#clearRun();
    }
    let failed = 0;
    for (const runId of runIds) {
      try {
        await api.deleteRun(runId);
      } catch (error) {
        // Already gone (another tab, --max-runs): what was asked for.
        if (error instanceof ApiError && error.status === 404) continue;
        failed++;
        this.deleting.delete(runId);
        this.mark(Dirty.Runs);
      }
    }
    return failed;
  }

  /** The list changed what it shows: a page that follows the newest run follows the newest shown. */
  #filtersChanged(): void {
    this.mark(Dirty.Runs);
    if (!this.followNewest) return;
    const newest = this.runs.find((run) => this.shows(run));
    if (newest !== undefined && newest.runId !== this.selectedRunId) void this.selectRun(newest.runId, false);
  }

  /** Replace the breakpoints on the server; the live feed confirms to every tab. */
  /** Replace the breakpoints on the server; resolves false (with a notice) when it refused them. */
  async putBreakpoints(next: Breakpoints): Promise<boolean> {
    const previous = this.breakpoints;
    this.breakpoints = next;
    this.mark(Dirty.Breakpoints);
    let saved = true;
    try {
      this.breakpoints = await api.putBreakpoints(next);
    } catch (error) {
      saved = false;
      this.breakpoints = previous;
      this.notify(`Could not save breakpoints: ${error instanceof Error ? error.message : 'error'}`);
    }
    this.mark(Dirty.Breakpoints);
    return saved;
  }

  /** Set or clear one gate of a node's breakpoint. */
  setBreakpoint(nodeId: string, gate: 'before' | 'after', on: boolean): Promise<boolean> {
    const nodes: Breakpoints['nodes'] = {};
    for (const [id, entry] of Object.entries(this.breakpoints.nodes)) nodes[id] = { ...entry };
    const entry = { ...(nodes[nodeId] ?? {}) };
    if (on) entry[gate] = true;
    else delete entry[gate];
    if (entry.before === true || entry.after === true) nodes[nodeId] = entry;
    else delete nodes[nodeId];
    return this.putBreakpoints({ pauseOnError: this.breakpoints.pauseOnError, nodes });
  }

  clearBreakpoints(nodeId?: string): Promise<boolean> {
    const nodes: Breakpoints['nodes'] = {};
    if (nodeId !== undefined) for (const [id, entry] of Object.entries(this.breakpoints.nodes)) if (id !== nodeId) nodes[id] = { ...entry };
    return this.putBreakpoints({ pauseOnError: this.breakpoints.pauseOnError, nodes });
  }

  setPauseOnError(on: boolean): Promise<boolean> {
    return this.putBreakpoints({ pauseOnError: on, nodes: this.breakpoints.nodes });
  }

  /** The hold on a node of the selected run, if any. */
  holdOn(nodeId: string): Hold | undefined {
    return this.holds.find((h) => h.runId === this.selectedRunId && h.nodeId === nodeId);
  }
}

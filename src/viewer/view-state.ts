// The page's state as data: the run list, the selected run, breakpoints,
// holds and what the user has selected, with the questions views ask of it.
// No DOM, no timers, no requests: the live reducer and the run loading
// change it (live-reducer.ts, run-loading.ts, selection.ts), and the Store
// (store.ts) is this state plus the shell that redraws and fetches.
import type { RunSummary } from '../protocol/run-model.js';
import type { Breakpoints, Hold, RunsLoading } from '../protocol/control.js';
import type { RunEvent } from '../protocol/ingest.js';
import { NO_FIND, type FindQuery } from './find.js';
import type { RunModel } from './run-model.js';
import { passesFilters, type RunFilter, type SourceFilter } from './run-list-filter.js';

/** The state of the live feed's connection, for the header. */
export type Connection = 'connecting' | 'live' | 'reconnecting';

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

// The run list's filters are its own rules (run-list-filter.ts); the state keeps which are on.
export type { RunFilter, SourceFilter };
export { passesFilters };

/**
 * Something a transition asks the shell to do, because it needs the
 * network: `load` fetches a run and hands it to `runLoaded` (or
 * `runFailed`); `meta` fetches the meta of a run drawn from the live feed
 * and hands it to `metaFetched`. `token` is the load it belongs to: an
 * answer for an older load is dropped.
 */
export type Effect = { type: 'load'; runId: string; token: number } | { type: 'meta'; runId: string; token: number; model: RunModel };

/** What one transition did: the parts of the page to redraw, and what the shell must fetch. */
export interface Step {
  /** {@link Dirty} flags. */
  dirty: number;
  effects: Effect[];
}

/** A step that changed nothing yet (transitions add to it). */
export function newStep(): Step {
  return { dirty: 0, effects: [] };
}

/** The state of the page. */
export class ViewState {
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
  /** While the server is still loading its runs from disk (just after it started): how far it has got. */
  runsLoading: RunsLoading | null = null;
  /** What `--max-runs` deleted while this page was open (the server's count, added up), until the user dismisses it. */
  trimmed: { deleted: number; maxRuns: number } | null = null;
  /** The server's count of what `--max-runs` deleted, as far as this page has heard. */
  trimmedSeen = 0;

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
  /** Runs this page asked the server to delete: no longer listed nor followed (see `Store.deleteRuns`). */
  readonly deleting = new Set<string>();
  /** The find bar: what the timeline, the waterfall and a node's calls are narrowed to. */
  find: FindQuery = NO_FIND;
  /** What the right pane shows. */
  view: 'timeline' | 'waterfall' = 'timeline';
  /** The call opened last (from the timeline, the waterfall, a hold, "next error"): marked in the lists. */
  activeInstance: string | null = null;
  /** A call the node detail scrolls into view at its next render (then cleared). */
  reveal: string | null = null;

  /** Live events of the selected run that arrived while it is fetched (applied on top of it), or null when no fetch is under way. */
  pending: RunEvent[] | null = null;
  /** Counts the loads: an answer for an older one is dropped. */
  loadToken = 0;
  /** A node was named before its run loaded: open its latest call once it has, as a click on it would. */
  openOnLoad = false;

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

  /** The hold on a call of the selected run, if it is held. */
  holdOfInstance(instanceId: string): Hold | undefined {
    return this.holds.find((h) => h.runId === this.selectedRunId && h.instanceId === instanceId);
  }

  /** The hold on a node of the selected run, if any. */
  holdOn(nodeId: string): Hold | undefined {
    return this.holds.find((h) => h.runId === this.selectedRunId && h.nodeId === nodeId);
  }
}

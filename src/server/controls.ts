/**
 * What the server's parts share once it runs: the breakpoints in force,
 * the reporter connections and the runs each owns, and the actions on them
 * that the REST API offers (delete a run, restart its server, send a call
 * again, record who decided a hold, replace the breakpoints) and ingest
 * reads.
 *
 * @module
 */
import { withDecision } from '../protocol/decisions.js';
import type { OtlpStream } from '../export/otlp-stream.js';
import type { Breakpoints, Hold, HoldAction } from '../protocol/control.js';
import type { RunTransfer } from './export-routes.js';
import type { HoldRegistry } from './holds.js';
import { BreakpointsState } from './breakpoints.js';
import type { IngestContext, ReporterConnection } from './ingest.js';
import { SummaryNews } from './summary-news.js';
import type { LiveFeed } from './live-feed.js';
import type { ObservedRunStore } from './observed-store.js';
import type { ApiContext } from './rest-api.js';

/** What {@link createControls} works on. */
export interface ControlsOptions {
  store: ObservedRunStore;
  holds: HoldRegistry;
  feed: LiveFeed;
  /** GraphMind's version, reported by `/api/health`. */
  version: string;
  /** Largest request body, bytes. */
  maxBody: number;
  /** The error gate armed for every reporter to begin with. */
  pauseOnError: boolean;
  transfer: RunTransfer;
  /** The OTLP stream, when the server streams. */
  otlp: OtlpStream | undefined;
  /** A run is gone: its held frames go on, and the viewers are told ({@link runGoneHandler}). */
  runGone: (runId: string) => void;
  /** What `--max-runs` has deleted and said so far (for a viewer's snapshot); undefined while nothing. */
  trimmed?: () => { deleted: number; maxRuns: number } | undefined;
}

/** The shared state and the actions on it (see the module). */
export interface Controls {
  /** For the REST API. */
  api: ApiContext;
  /** For every reporter connection. */
  ingest: IngestContext;
  /** The connection that reports each live run. */
  owners: Map<string, ReporterConnection>;
  /** The breakpoints in force, their version and who has applied them. */
  breakpoints: BreakpointsState;
  /** What `--max-runs` has deleted and said so far; undefined while nothing. */
  trimmed: () => { deleted: number; maxRuns: number } | undefined;
}

/** A run is gone (deleted through the API, or by retention): frames held for it go on, and the viewers are told. */
export function runGoneHandler(holds: HoldRegistry, feed: LiveFeed): (runId: string) => void {
  return (runId) => {
    for (const { holdId, action } of holds.releaseRun(runId)) feed.broadcast({ type: 'hold.released', holdId, action });
    feed.broadcast({ type: 'run.deleted', runId });
  };
}

/** The controls of a server (see the module). */
export function createControls(options: ControlsOptions): Controls {
  const { store, holds, feed, otlp } = options;
  const owners = new Map<string, ReporterConnection>();
  // Rules' hit counts reach the viewers a few times a second at most (at once when one disarms).
  const breakpoints: BreakpointsState = new BreakpointsState(
    { pauseOnError: options.pauseOnError, nodes: {} },
    { onRules: () => feed.broadcast({ type: 'breakpoints', breakpoints: breakpoints.current }) },
  );
  // Every reporter hears whether anyone watches: a hold with no viewer open is then said where its host looks.
  breakpoints.setWatching(feed.size > 0);
  feed.onWatching = (watching) => breakpoints.setWatching(watching);
  const api: ApiContext = {
    version: options.version,
    transfer: options.transfer,
    otlpStats: () => otlp?.stats(),
    recordDecision(hold: Hold, action: HoldAction, by: string): void {
      const state = store.get(hold.runId);
      if (state === undefined) return;
      // Said in the run (a run.meta of the server's own, outside the reporter's sequence), so that its log tells who decided.
      const meta = withDecision(state.meta, { holdId: hold.holdId, action, by, at: new Date().toISOString() });
      const event = { type: 'run.meta' as const, runId: hold.runId, seq: 0, t: Date.now(), meta };
      if (store.append(event) !== undefined) feed.broadcastEvent(hold.runId, event);
    },
    store,
    holds,
    feed,
    maxBody: options.maxBody,
    send: { store, owners, maxBody: options.maxBody },
    deleteRun(runId: string): boolean {
      if (!store.delete(runId, true)) return false;
      options.runGone(runId);
      // A live run's reporter hears of it, and holds nothing more for a run nobody records.
      owners.get(runId)?.send({ type: 'rejected', runId, reason: 'the run was deleted' });
      return true;
    },
    restartRun(runId: string): 'asked' | 'unknown' | 'ended' | 'not-proxy' {
      const state = store.get(runId);
      if (state === undefined) return 'unknown';
      if (state.summary.status !== 'running') return 'ended';
      const owner = owners.get(runId);
      if (state.summary.source !== 'mcp-proxy' || owner === undefined) return 'not-proxy';
      owner.send({ type: 'restart', runId });
      return 'asked';
    },
    getBreakpoints: () => breakpoints.current,
    breakpointsHealth: () => breakpoints.health(),
    setBreakpoints(next: Breakpoints): Promise<void> {
      // Pushed to every reporter; settles once those connected now have applied them (or 2 s passed).
      const applied = breakpoints.set(next);
      feed.broadcast({ type: 'breakpoints', breakpoints: breakpoints.current });
      return applied;
    },
  };
  const news = new SummaryNews(feed, (state) => store.get(state.summary.runId) === state);
  const ingest: IngestContext = { store, holds, feed, breakpoints, news };
  return { api, ingest, owners, breakpoints, trimmed: options.trimmed ?? (() => undefined) };
}

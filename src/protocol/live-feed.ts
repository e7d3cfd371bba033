/**
 * The live feed (`/api/live`): what the server tells viewers and other
 * clients, a snapshot first and then every change as it happens.
 *
 * @module
 */
import type { Breakpoints, Hold, HoldAction, RunsLoading, RunsTrimmed } from './control.js';
import type { RunEvent } from './ingest.js';
import type { Run, RunSummary } from './run-model.js';

/** The live feed's first message on every connection: the current state. */
export interface LiveSnapshot {
  /** The message's type. */
  type: 'snapshot';
  /** Every run's summary, newest first, as `GET /api/runs` lists them. */
  runs: RunSummary[];
  /** The breakpoints now in force. */
  breakpoints: Breakpoints;
  /** The frames held right now and not yet decided, oldest first, as `GET /api/holds` lists them. */
  holds: Hold[];
  /**
   * While the server is still loading its run logs (just after a start):
   * how far it has got. `runs` then lists the runs loaded so far; the rest
   * come in `runs.loaded` messages.
   */
  loading?: RunsLoading;
  /**
   * What `--max-runs` has deleted since the server started (at start-up
   * and since), once it has deleted any: what a `runs.trimmed` message
   * says, added up.
   */
  trimmed?: RunsTrimmed;
}

/**
 * Runs the server's start-up load just read from their logs, while it
 * loads (at most a few messages a second), and once when it is done.
 */
export interface LiveRunsLoaded {
  /** The message's type. */
  type: 'runs.loaded';
  /** The runs loaded since the last such message, in no particular order (a client places them by `startedAt`). */
  runs: RunSummary[];
  /** How far the load has got now; null once every log is loaded (this is the last such message). */
  loading: RunsLoading | null;
}

/**
 * `--max-runs` deleted runs (each has had its `run.deleted`): at most one
 * message a second however many it deletes, and one for what it deleted
 * at start-up. The server says the same on its stderr.
 */
export interface LiveRunsTrimmed {
  /** The message's type. */
  type: 'runs.trimmed';
  /** How many runs were deleted (the oldest that had ended). */
  deleted: number;
  /** The server's `--max-runs`: the runs it keeps. */
  maxRuns: number;
}

/** A run the server did not have: a reporter started it, or it was imported (`POST /api/runs/import`). */
export interface LiveRunStarted {
  /** The message's type. */
  type: 'run.started';
  /** The run's summary. */
  run: RunSummary;
}

/**
 * An event the server applied to a run: every event from a reporter that
 * the server records in the run (each event a group stands for as a
 * message of its own), and the server's own `run.meta` that records a
 * decision. A `run.started` comes as a `run.started` or `run.updated`
 * message instead.
 */
export interface LiveRunEvent {
  /** The message's type. */
  type: 'run.event';
  /** The run the event was applied to. */
  runId: string;
  /**
   * The event, as applied: a client that keeps a copy of the run applies
   * it the same way, skipping those up to the {@link Run.lastSeq} of the
   * copy it fetched.
   */
  event: RunEvent;
}

/**
 * A run's status changed: it finished (after the `run.event` of its
 * `run.finished`), its reporter went away (it ended as `error`), or a
 * reporter reclaimed it (`running` again). Also, at most once per run
 * every 250 ms, when its summary's `calls`, `failedCalls`, `tools`,
 * `client` or `server` changed.
 */
export interface LiveRunUpdated {
  /** The message's type. */
  type: 'run.updated';
  /** The run's summary as it is now. */
  run: RunSummary;
}

/**
 * A run was deleted: through `DELETE /api/runs/:runId`, or by `--max-runs`
 * (a finished run). The `hold.released` of each of its holds comes first.
 */
export interface LiveRunDeleted {
  /** The message's type. */
  type: 'run.deleted';
  /** The run deleted. */
  runId: string;
}

/** The breakpoints were replaced (`PUT /api/breakpoints`). */
export interface LiveBreakpoints {
  /** The message's type. */
  type: 'breakpoints';
  /** The whole new set. */
  breakpoints: Breakpoints;
}

/** A frame started holding. */
export interface LiveHoldOpened {
  /** The message's type. */
  type: 'hold.opened';
  /** The hold, as `GET /api/holds` lists it. */
  hold: Hold;
}

/** The requester of a held frame gave up on it; the hold is still open. */
export interface LiveHoldUpdated {
  /** The message's type. */
  type: 'hold.updated';
  /** The hold as it is now, with its {@link Hold.givenUp}. */
  hold: Hold;
}

/**
 * Someone decided a hold through `POST /api/holds/:holdId`. Its frame goes
 * on when its reporter says so (`hold.released`).
 */
export interface LiveHoldDecided {
  /** The message's type. */
  type: 'hold.decided';
  /** The hold decided. */
  holdId: string;
  /** The action decided. */
  action: HoldAction;
}

/**
 * A held frame went on: its reporter released it, its reporter went away,
 * or its run was deleted.
 */
export interface LiveHoldReleased {
  /** The message's type. */
  type: 'hold.released';
  /** The hold released. */
  holdId: string;
  /**
   * What the frame went on with: the action of the reporter's
   * `hold.released`; `continue` when its reporter went away; when its run
   * was deleted, the decision already made, else `continue`.
   */
  action: HoldAction;
}

/**
 * What the live feed (`/api/live`) sends, one JSON object per message. A
 * client that connects gets a `snapshot` first, then changes as they happen.
 */
export type LiveMessage =
  | LiveSnapshot
  | LiveRunStarted
  | LiveRunEvent
  | LiveRunUpdated
  | LiveRunDeleted
  | LiveRunsLoaded
  | LiveRunsTrimmed
  | LiveBreakpoints
  | LiveHoldOpened
  | LiveHoldUpdated
  | LiveHoldDecided
  | LiveHoldReleased;

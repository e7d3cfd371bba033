/**
 * What the server sends a reporter over the ingest socket: breakpoints,
 * decisions, rejections, restarts, calls to send again, and whether
 * anyone watches.
 *
 * @module
 */
import type { Breakpoints, HoldAction, HoldDecision } from './control.js';

/**
 * The breakpoints now in force, sent to a reporter when it connects and
 * every time they are replaced (`PUT /api/breakpoints`).
 */
export interface BreakpointsToReporter {
  /** The message's type. */
  type: 'breakpoints';
  /** The whole set: it replaces the one the reporter had. */
  breakpoints: Breakpoints;
  /**
   * Their version (a counter): a reporter that has applied them answers
   * with a {@link BreakpointsAck} of it. Servers older than the ack send none.
   */
  version?: number;
}

/**
 * A decision about one of the reporter's holds: one made through
 * `POST /api/holds/:holdId`; or `continue`, sent at once for a
 * `hold.opened` the server does not record (its run is not this
 * connection's or was deleted, or another connection holds a frame under
 * its id) and for an undecided hold of a run deleted while live.
 */
export interface DecisionToReporter {
  /** The message's type. */
  type: 'decision';
  /** The hold decided, as the reporter's `hold.opened` named it. */
  holdId: string;
  /** What to do with the held frame. */
  action: HoldAction;
  /** With `inject` only: the value the decision gave ({@link HoldDecision.value}). Absent with the other actions. */
  value?: unknown;
}

/**
 * The server records nothing more of a run from this connection: another
 * live connection reports it, or it was deleted (said again when the
 * reporter reclaims a deleted run after a reconnect). The bundled gate
 * holds nothing more of that run while the connection lasts.
 */
export interface RejectedToReporter {
  /** The message's type. */
  type: 'rejected';
  /** The run rejected. */
  runId: string;
  /** Why, for people: `run is reported by another connection` or `the run was deleted`. */
  reason: string;
}

/**
 * Restart the MCP server of a live proxy run under its host's session:
 * sent to the connection that reports the run when
 * `POST /api/runs/:runId/restart` is accepted (a running `mcp-proxy`
 * run). The outcome is recorded in the run's `meta.restarts`.
 */
export interface RestartToReporter {
  /** The message's type. */
  type: 'restart';
  /** The run whose server to restart. */
  runId: string;
}

/**
 * Whether anyone watches the debugger's live feed (`/api/live`: an open
 * viewer page, or any other client of the feed), so that a reporter can
 * say when a frame it holds has nobody to decide it. Sent to a reporter
 * when it connects, before the breakpoints (so it is known before anything
 * can hold), and again each time it changes: when the last feed client
 * goes, and when the first one comes. A reporter that never got one (a
 * server older than this message) takes it that someone watches.
 */
export interface ViewersToReporter {
  /** The message's type. */
  type: 'viewers';
  /** True while at least one client is connected to the live feed. */
  watching: boolean;
}

/**
 * Send a recorded call of a live proxy run to its server again (Send
 * again): sent to the connection that reports the run when
 * `POST /api/runs/:runId/instances/:instanceId/send` is accepted. The
 * proxy writes the request to the server under an id of its own, records
 * it as a new call of the run (its `instance.started` carries `sentBy`),
 * and keeps the answer from the host.
 */
export interface SendToReporter {
  /** The message's type. */
  type: 'send';
  /** The live run whose server gets the request. */
  runId: string;
  /** The recorded call it repeats (for the record; the proxy keeps no frames). */
  instanceId: string;
  /** The request's method, e.g. `tools/call`. */
  method: string;
  /** The request's `params` (as recorded, or edited): an object or an array; absent for none. */
  params?: unknown;
  /** Who asked: `viewer`, `api`, `graphmind mcp`, or the request's own `by`. */
  by: string;
}

/** Messages the server sends a reporter over the ingest socket. */
export type ServerToReporter = BreakpointsToReporter | DecisionToReporter | RejectedToReporter | RestartToReporter | ViewersToReporter | SendToReporter;

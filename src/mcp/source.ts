/**
 * Where `graphmind mcp` reads runs from, and how it reaches the debugger's
 * controls. Two readers give the same runs: a running `graphmind serve`
 * through its REST API ({@link DebuggerClient} in debugger-client.ts), and
 * the data directory's logs, read-only ({@link DataDirRuns} in
 * data-dir-runs.ts); {@link FallbackRuns} asks the first and falls back to
 * the second. A debugger that is not there is the loopback client's
 * `DebuggerUnavailable` (src/client/).
 *
 * @module
 */
import type { Breakpoints, Hold, HoldDecision } from '../protocol/control.js';
import type { Run, RunSummary } from '../protocol/run-model.js';

/** Which reader answered: the running debugger, or the data directory's logs. */
export type From = 'debugger' | 'data-dir';

/** Runs, newest first, and who listed them. */
export interface RunList {
  from: From;
  runs: RunSummary[];
}

/** One run (undefined when no run has that id), and who read it. */
export interface RunRead {
  from: From;
  run: Run | undefined;
}

/** Reads recorded runs. */
export interface RunSource {
  /** Every run, newest first (as `GET /api/runs` orders them). */
  listRuns(): Promise<RunList>;
  /** One run whole (as `GET /api/runs/:runId` gives it). `runId` must already match the run id pattern. */
  getRun(runId: string): Promise<RunRead>;
}

/** What only a running debugger can do: its holds and breakpoints. */
export interface DebuggerControl {
  /** Frames held right now, oldest first. */
  listHolds(): Promise<Hold[]>;
  /** Decide a hold, as the viewer does (`POST /api/holds/:holdId`). */
  decideHold(holdId: string, decision: HoldDecision): Promise<void>;
  /** The breakpoints now. */
  getBreakpoints(): Promise<Breakpoints>;
  /** Replace the breakpoints; returns them as the debugger took them. */
  putBreakpoints(breakpoints: Breakpoints): Promise<Breakpoints>;
}

/**
 * One segment loaded into a run store: its runs replayed (see
 * segment-read.ts), but for those it dropped, those with a log of their
 * own (that log is the run's) and those already in memory (recorded again
 * meanwhile: marked dropped in this segment, so that the next start
 * agrees).
 *
 * @module
 */
import type { RunState } from '../protocol/run-state.js';
import type { SegmentLogs } from './segment-logs.js';
import { readDropped, readSegment, type SegmentRead } from './segment-read.js';

/** What {@link loadSegment} needs of the store. */
export interface SegmentLoadTarget {
  /** Does the run have a log of its own in the runs' folder? */
  hasOwnLog(runId: string): boolean;
  /** Is the run in memory already? */
  inMemory(runId: string): boolean;
  /** A run read: it joins the store. */
  add(state: RunState): void;
  /** Told, in one line, of a segment that cannot be read. */
  warn(line: string): void;
}

/** Load segment `n` of `logs` into `target`: the runs loaded, and how many lines were unreadable. */
export function loadSegment(logs: SegmentLogs, n: number, target: SegmentLoadTarget): { runIds: string[]; skippedLines: number } {
  const dropped = readDropped(logs.folder, n);
  const stale = new Set<string>();
  const file = logs.file(n);
  let read: SegmentRead;
  try {
    read = readSegment(file, (runId) => {
      if (dropped.has(runId) || target.hasOwnLog(runId)) return true;
      if (!target.inMemory(runId)) return false;
      stale.add(runId);
      return true;
    });
  } catch (error) {
    target.warn(`skipped ${file}: cannot read it (${error instanceof Error ? error.message : String(error)})`);
    return { runIds: [], skippedLines: 0 };
  }
  logs.readWhole(n);
  for (const [runId, run] of read.runs) {
    logs.adopt(runId, n, run.start, run.end);
    target.add(run.state);
  }
  if (stale.size > 0) logs.dropStale(n, stale);
  return { runIds: [...read.runs.keys()], skippedLines: read.skippedLines };
}

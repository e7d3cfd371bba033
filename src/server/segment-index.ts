/**
 * Where each run in a segment is (the in-memory index of the segments,
 * built again at every start from the segments themselves), and how many
 * runs each segment still keeps. No I/O: segment-logs.ts does the writing.
 *
 * @module
 */

/** One run's place in a segment. */
export interface SegmentRun {
  readonly runId: string;
  /** Its segment. */
  readonly segment: number;
  /** Offset of the segment at or before the run's first line. */
  start: number;
  /** Offset of the segment at or after the end of its last line (the run's lines lie between, among other runs'). */
  end: number;
  /** The turn (of segment-logs' writes) it last had a line in. */
  turn: number;
  /** Its lines are no longer written: a write of its segment failed. */
  stopped: boolean;
}

/** The runs in segments, and the count of runs each segment keeps. */
export class SegmentIndex {
  readonly #runs = new Map<string, SegmentRun>();
  readonly #kept = new Map<number, number>();

  /** How many runs are in segments. */
  get size(): number {
    return this.#runs.size;
  }

  /** The run's place, if it is in a segment. */
  of(runId: string): SegmentRun | undefined {
    return this.#runs.get(runId);
  }

  /** A run is in `segment` from `start` to `end` (a run already in one keeps its place). */
  place(runId: string, segment: number, start: number, end: number): SegmentRun {
    const known = this.#runs.get(runId);
    if (known !== undefined) return known;
    const run: SegmentRun = { runId, segment, start, end, turn: -1, stopped: false };
    this.#runs.set(runId, run);
    this.#kept.set(segment, (this.#kept.get(segment) ?? 0) + 1);
    return run;
  }

  /** The run leaves its segment (dropped, or moved to a log of its own): its place, or undefined if it was in none. */
  remove(runId: string): SegmentRun | undefined {
    const run = this.#runs.get(runId);
    if (run === undefined) return undefined;
    this.#runs.delete(runId);
    this.#kept.set(run.segment, (this.#kept.get(run.segment) ?? 1) - 1);
    return run;
  }

  /** Runs `segment` keeps. */
  kept(segment: number): number {
    return this.#kept.get(segment) ?? 0;
  }

  /** A segment is gone: forget its count. */
  forget(segment: number): void {
    this.#kept.delete(segment);
  }

  /** The segments that have (or had) runs, with how many each keeps. */
  segments(): IterableIterator<[number, number]> {
    return this.#kept.entries();
  }
}

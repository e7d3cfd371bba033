/**
 * The rules of segment files, as pure functions: which runs go to a shared
 * segment, when a run leaves it for a log of its own, when a segment is
 * full and when it can go, and the files' names.
 *
 * A log per run costs a file created, written, closed and (past
 * `--max-runs`) deleted for every run: about 125 µs of system time each,
 * most of what an adapter run cost the debugger. The adapter's runs (one
 * request each, small, thousands a minute from a busy server) are instead
 * appended to a shared segment file, a write per turn of the event loop
 * for all of them; retention marks them dropped, and deletes a segment
 * once none of its runs is kept.
 *
 * @module
 */
import type { RetentionKind } from './run-order.js';

/** A segment is closed, and the next one begun, once it holds this many bytes. */
export const SEGMENT_BYTES = 1024 * 1024;

/**
 * A live run whose lines spread over more than this many bytes of its
 * segment (it grew, or lived while others were written) moves to a log of
 * its own: reading it back from the segment would read all of that.
 */
export const MOVE_SPAN_BYTES = 256 * 1024;

/** The folder of the segments, inside the runs' folder. */
export const SEGMENTS_FOLDER = 'segments';

/** Does a new run of this retention kind start in a segment? Only the adapter's: a session is long, and gets a log of its own. */
export function startsInSegment(kind: RetentionKind): boolean {
  return kind === 'adapter';
}

/** Where a run in a segment stands, for {@link nextLineGoes}. */
export interface SegmentSpan {
  /** The segment it is in. */
  segment: number;
  /** Bytes of the segment from before its first line to after its last (an upper bound). */
  span: number;
}

/**
 * Where a run's next line goes: `segment`, or `move` (to a log of its own,
 * with its lines so far). A run whose segment is no longer the one being
 * written (it was closed, or this is a later start of the server) moves:
 * only the current segment is appended to. So does a run spread over more
 * than {@link MOVE_SPAN_BYTES}.
 */
export function nextLineGoes(run: SegmentSpan, current: number): 'segment' | 'move' {
  if (run.segment !== current) return 'move';
  return run.span > MOVE_SPAN_BYTES ? 'move' : 'segment';
}

/** Is the segment full once it holds `bytes`? */
export function segmentFull(bytes: number): boolean {
  return bytes >= SEGMENT_BYTES;
}

/** Can the segment be deleted? When none of its runs is kept, unless it is the one being written. */
export function segmentDeletable(keptRuns: number, segment: number, current: number): boolean {
  return keptRuns <= 0 && segment !== current;
}

/** The file name of segment `n` (`00000012.seg`): sorted by name, segments are in the order written. */
export function segmentFileName(n: number): string {
  return `${String(n).padStart(8, '0')}.seg`;
}

/** The file of the runs dropped from segment `n` (`00000012.dropped`): one run id a line. */
export function droppedFileName(n: number): string {
  return `${String(n).padStart(8, '0')}.dropped`;
}

/** The number of a segment's file name, or undefined for another file. */
export function segmentOfFileName(name: string): number | undefined {
  const match = /^(\d{1,15})\.seg$/.exec(name);
  return match === null ? undefined : Number(match[1]);
}

/** The segment the server writes first: after every segment there is. */
export function firstSegment(existing: Iterable<number>): number {
  let last = 0;
  for (const n of existing) if (n > last) last = n;
  return last + 1;
}

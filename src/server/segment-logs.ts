/**
 * The logs of the runs kept in segments (see segment-rules.ts): their
 * lines, gathered over a turn of the event loop, go to the current
 * segment in one synchronous write at the end of it (a small write to a
 * file already open costs less than the thread-pool hop of an
 * asynchronous one); the runs dropped are appended to their segment's
 * `.dropped` file in the same turn, and a segment none of whose runs is
 * kept is deleted. A run that outgrows its segment, or gets a line once
 * its segment is closed, moves to a log of its own, which then takes the
 * rest of its lines (the caller's `LogFiles`).
 *
 * @module
 */
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchText } from './batch-text.js';
import { endLastLine } from './end-line.js';
import { SegmentIndex, type SegmentRun } from './segment-index.js';
import { listSegments, readRunLines } from './segment-read.js';
import { DroppedFiles } from './segment-dropped.js';
import { firstSegment, nextLineGoes, segmentDeletable, segmentFileName, segmentFull, SEGMENTS_FOLDER } from './segment-rules.js';

/** Options for {@link SegmentLogs}. */
export interface SegmentLogsOptions {
  /** The runs' folder (`<dataDir>/runs`); the segments are in its `segments` folder. */
  dir: string;
  /** Runs whose lines could not be written to `file` (a full disk): nothing more of them is written. */
  onStopped: (runIds: readonly string[], file: string, error: Error) => void;
  /** A `.dropped` file or a segment that could not be written or deleted (the runs it names may come back at the next start). */
  onWarning: (line: string) => void;
  /** Writes to a segment's descriptor, as `fs.writeSync` (a test passes one that fails as a full disk does). */
  write?: (fd: number, buffer: Buffer, offset: number, length: number) => number;
}

/** The runs kept in segments, and the segment being written (see the module). */
export class SegmentLogs {
  /** Where each run is, and how many runs each segment keeps. */
  readonly index = new SegmentIndex();
  /** The segments' folder. */
  readonly folder: string;
  readonly #runsDir: string;
  readonly #options: SegmentLogsOptions;
  readonly #write: (fd: number, buffer: Buffer, offset: number, length: number) => number;
  /** The segment being written; older ones are only read, and deleted once they keep no run. */
  #current: number;
  #fd: number | undefined;
  /** The current segment's file name, once made. */
  #currentFile: string | undefined;
  /** Bytes of the current segment on disk. */
  #size = 0;
  #pieces: Buffer[] = [];
  /** The batch range being gathered (consecutive elements of one batch: one slice of its bytes). */
  #batch: BatchText | undefined;
  #first = 0;
  #last = 0;
  /** Runs with lines this turn: their span ends where this turn's write does. */
  #touched: SegmentRun[] = [];
  #turn = 0;
  /** The runs dropped, waiting for their `.dropped` files. */
  readonly #dropped: DroppedFiles;
  /** Segments that may keep no run any more. */
  readonly #check = new Set<number>();
  #flushScheduled = false;
  #folderMade = false;
  /** Segments the load read whole (see {@link SegmentLogs.sweep}). */
  readonly #readWhole = new Set<number>();

  constructor(options: SegmentLogsOptions) {
    this.#options = options;
    this.#runsDir = options.dir;
    this.folder = join(options.dir, SEGMENTS_FOLDER);
    this.#dropped = new DroppedFiles(this.folder, () => this.flush());
    this.#write = options.write ?? ((fd, buffer, offset, length) => writeSync(fd, buffer, offset, length));
    // After every segment an earlier start left: those are only read (and deleted when they keep nothing).
    this.#current = firstSegment(listSegments(this.folder));
  }

  /** The segment being written: the load reads the ones before it. */
  get current(): number {
    return this.#current;
  }

  /** The file of segment `n`. */
  file(n: number): string {
    return join(this.folder, segmentFileName(n));
  }

  /** Is the run kept in a segment? */
  holds(runId: string): boolean {
    return this.index.of(runId) !== undefined;
  }

  /** A new run starts in the current segment (its lines follow). */
  start(runId: string): void {
    this.index.place(runId, this.#current, this.#size, this.#size);
  }

  /** A run read from segment `n` by the load, its lines between `start` and `end`. */
  adopt(runId: string, n: number, start: number, end: number): void {
    this.index.place(runId, n, start, end);
  }

  /**
   * Log one line (without its newline) for the run. False when the run is
   * not in a segment (any more: it may just have moved): its own log takes it.
   */
  line(runId: string, line: string): boolean {
    const run = this.#route(runId);
    if (run === 'own') return false;
    if (run === 'stopped') return true;
    this.#endRange();
    this.#pieces.push(Buffer.from(`${line}\n`));
    return true;
  }

  /** Log element `index` of `batch` for the run, as its text arrived; false as for {@link SegmentLogs.line}. */
  batchLine(runId: string, batch: BatchText, index: number): boolean {
    const run = this.#route(runId);
    if (run === 'own') return false;
    if (run === 'stopped') return true;
    if (this.#batch === batch && (index === this.#last + 1 || index === this.#last)) {
      this.#last = index;
      return true;
    }
    this.#endRange();
    this.#batch = batch;
    this.#first = index;
    this.#last = index;
    return true;
  }

  /**
   * The run leaves its segment: said in the segment's `.dropped` file, at
   * the end of this turn, or within a second when retention `trimmed` it
   * (see `DroppedFiles`). False if it was in no segment.
   */
  drop(runId: string, trimmed = false): boolean {
    const run = this.index.remove(runId);
    if (run === undefined) return false;
    this.#dropped.add(run.segment, runId, trimmed);
    // The segment may keep nothing now: looked at with the next flush.
    this.#check.add(run.segment);
    if (!trimmed) this.#flushSoon();
    return true;
  }

  /** Runs of an old segment that another copy replaced (loaded already): dropped there, so that the next start agrees. */
  dropStale(n: number, runIds: Iterable<string>): void {
    for (const runId of runIds) this.#dropped.add(n, runId, false);
    this.#flushSoon();
  }

  /**
   * The run's own log, made now from its lines in the segment if it is in
   * one (an export reads a log file; the run's later lines go there too).
   * Undefined when it is in no segment.
   */
  ownLog(runId: string): string | undefined {
    const run = this.index.of(runId);
    if (run === undefined || run.stopped) return undefined;
    this.#move(run);
    return join(this.#runsDir, `${runId}.jsonl`);
  }

  /** Write what this turn gathered, and the drops; delete the segments that keep no run. */
  flush(): void {
    this.#endRange();
    if (this.#pieces.length > 0) this.#writePieces();
    if (this.#dropped.pending) this.#dropped.write((n) => segmentDeletable(this.index.kept(n), n, this.#current), this.#options.onWarning);
    if (this.#check.size > 0) this.#deleteEmpty();
  }

  /** Segment `n` was read whole by the load (one that could not be read is never deleted). */
  readWhole(n: number): void {
    this.#readWhole.add(n);
  }

  /** Every segment of the load is read: those that keep no run go. */
  sweep(): void {
    for (const [n] of this.index.segments()) this.#check.add(n);
    for (const n of this.#readWhole) this.#check.add(n);
    this.#readWhole.clear();
    this.flush();
  }

  /** Write what is pending and close the files (on shutdown). */
  close(): void {
    this.#dropped.takeTrimmed();
    this.flush();
    this.#closeCurrent();
    this.#dropped.closeAll();
  }

  /** Where the run's next line goes: the segment (touched this turn), its own log (moved now if need be), or nowhere. */
  #route(runId: string): SegmentRun | 'own' | 'stopped' {
    const run = this.index.of(runId);
    if (run === undefined) return 'own';
    if (run.stopped) return 'stopped';
    if (nextLineGoes({ segment: run.segment, span: run.end - run.start }, this.#current) === 'move') {
      return this.#move(run) ? 'own' : 'stopped';
    }
    if (run.turn !== this.#turn) {
      run.turn = this.#turn;
      this.#touched.push(run);
    }
    this.#flushSoon();
    return run;
  }

  /** Flush at the end of this turn. */
  #flushSoon(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    queueMicrotask(() => {
      this.#flushScheduled = false;
      this.flush();
    });
  }

  /** Move a run to a log of its own with its lines so far (written whole, then renamed into place); false if that failed. */
  #move(run: SegmentRun): boolean {
    // Its lines gathered this turn first: the segment must hold all of them.
    this.flush();
    if (run.stopped) return false;
    const file = join(this.#runsDir, `${run.runId}.jsonl`);
    const temporary = `${file}.${process.pid}.moving`;
    try {
      writeFileSync(temporary, readRunLines(this.file(run.segment), run.runId, run.start, run.end), { mode: 0o600 });
      renameSync(temporary, file);
    } catch (error) {
      unlinkQuietly(temporary);
      run.stopped = true;
      this.#options.onStopped([run.runId], file, error as Error);
      return false;
    }
    // Its own log is the run's from now on; the segment says it dropped it, should that log be deleted later.
    this.drop(run.runId);
    return true;
  }

  #endRange(): void {
    if (this.#batch === undefined) return;
    const lines = this.#batch.lines(this.#first, this.#last);
    this.#pieces.push(typeof lines === 'string' ? Buffer.from(lines) : lines);
    this.#batch = undefined;
  }

  #writePieces(): void {
    const pieces = this.#pieces;
    const touched = this.#touched;
    this.#pieces = [];
    this.#touched = [];
    this.#turn++;
    const bytes = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
    const file = (this.#currentFile ??= this.file(this.#current));
    let written = 0;
    try {
      const fd = this.#open(file);
      while (written < bytes.length) written += this.#write(fd, bytes, written, bytes.length - written);
      this.#size += written;
    } catch (error) {
      // What was cut mid-line is ended if the disk takes a newline; the next start skips it if not.
      if (written > 0) tryEndLine(file);
      for (const run of touched) run.stopped = true;
      this.#options.onStopped(touched.map((run) => run.runId), file, error as Error);
      this.#rotate();
      return;
    }
    for (const run of touched) run.end = this.#size;
    if (segmentFull(this.#size)) this.#rotate();
  }

  #open(file: string): number {
    if (this.#fd !== undefined) return this.#fd;
    if (!this.#folderMade) {
      mkdirSync(this.folder, { recursive: true, mode: 0o700 });
      this.#folderMade = true;
    }
    const fd = openSync(file, 'a', 0o600);
    this.#fd = fd;
    this.#size = fstatSync(fd).size;
    return fd;
  }

  /** The current segment is done with: the next line begins the next one. */
  #rotate(): void {
    this.#closeCurrent();
    this.#check.add(this.#current);
    this.#current++;
    this.#currentFile = undefined;
    this.#size = 0;
  }

  #closeCurrent(): void {
    if (this.#fd !== undefined) closeQuietly(this.#fd);
    this.#fd = undefined;
  }

  #deleteEmpty(): void {
    for (const n of this.#check) {
      if (!segmentDeletable(this.index.kept(n), n, this.#current)) continue;
      this.#dropped.remove(n);
      unlinkQuietly(this.file(n));
      this.index.forget(n);
    }
    this.#check.clear();
  }
}

function tryEndLine(file: string): void {
  try {
    endLastLine(file);
  } catch {
    // Still full: the next start skips the torn line.
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // closed already
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone already
  }
}

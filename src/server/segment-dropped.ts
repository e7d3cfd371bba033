/**
 * The `.dropped` files of the segments: the runs each segment no longer
 * keeps (deleted, trimmed by retention, moved to a log of their own), one
 * run id a line, so that the next start does not bring them back.
 *
 * @module
 */
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { droppedFileName } from './segment-rules.js';

/** `.dropped` files kept open at once (retention drops from the oldest segment: one is the usual case). */
const MAX_OPEN = 8;

/**
 * How long the runs retention drops wait to be written, ms: a write per
 * turn for them would cost as much as the segment's own. Lost in a crash,
 * they only make the next start's retention delete them again.
 */
const TRIMMED_WRITE_MS = 1000;

/** The runs dropped from segments, waiting to be written to their `.dropped` files (see the module). */
export class DroppedFiles {
  readonly #folder: string;
  /** Runs to write with the next {@link DroppedFiles.write}, by segment. */
  readonly #now = new Map<number, string[]>();
  /** Runs retention dropped, by segment, written within {@link TRIMMED_WRITE_MS}. */
  readonly #trimmed = new Map<number, string[]>();
  #timer: NodeJS.Timeout | undefined;
  readonly #fds = new Map<number, number>();
  readonly #onTimer: () => void;

  /** `onTimer`: the trimmed runs are due (the owner writes them with its next flush). */
  constructor(folder: string, onTimer: () => void) {
    this.#folder = folder;
    this.#onTimer = onTimer;
  }

  /** Anything to write now? */
  get pending(): boolean {
    return this.#now.size > 0;
  }

  /** The run leaves segment `n`: written with the next write (or, `trimmed`, within a second). */
  add(n: number, runId: string, trimmed: boolean): void {
    const into = trimmed ? this.#trimmed : this.#now;
    let ids = into.get(n);
    if (ids === undefined) into.set(n, (ids = []));
    ids.push(runId);
    if (!trimmed || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.takeTrimmed();
      this.#onTimer();
    }, TRIMMED_WRITE_MS);
    // Unref'd: the owner's close writes what waits.
    this.#timer.unref();
  }

  /** The runs retention dropped are written with the next write. */
  takeTrimmed(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const [n, runIds] of this.#trimmed) {
      const ids = this.#now.get(n);
      if (ids === undefined) this.#now.set(n, runIds);
      else ids.push(...runIds);
    }
    this.#trimmed.clear();
  }

  /** Append what waits to each segment's file, but for segments `skip` says are going; a failure is told to `warn`. */
  write(skip: (n: number) => boolean, warn: (line: string) => void): void {
    for (const [n, runIds] of this.#now) {
      if (skip(n)) continue;
      const file = join(this.#folder, droppedFileName(n));
      try {
        let fd = this.#fds.get(n);
        if (fd === undefined) {
          if (this.#fds.size >= MAX_OPEN) this.#close(this.#fds.keys().next().value as number);
          fd = openSync(file, 'a', 0o600);
          this.#fds.set(n, fd);
        }
        writeSync(fd, `${runIds.join('\n')}\n`);
      } catch (error) {
        warn(`could not write ${file} (${error instanceof Error ? error.message : String(error)}): ${runIds.length} deleted run(s) may come back at the next start`);
      }
    }
    this.#now.clear();
  }

  /** Segment `n` is deleted: its file too, and what waited for it. */
  remove(n: number): void {
    this.#close(n);
    this.#trimmed.delete(n);
    this.#now.delete(n);
    try {
      unlinkSync(join(this.#folder, droppedFileName(n)));
    } catch {
      // there was none
    }
  }

  /** Close the files (what waits is the owner's to write first). */
  closeAll(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const n of [...this.#fds.keys()]) this.#close(n);
  }

  #close(n: number): void {
    const fd = this.#fds.get(n);
    this.#fds.delete(n);
    if (fd === undefined) return;
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
  }
}

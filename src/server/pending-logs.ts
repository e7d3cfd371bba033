import type { BatchText } from './batch-text.js';
import type { LogFiles } from './log-files.js';

/** A live run's log: its file, and the lines appended since the last write. */
interface RunLog {
  file: string;
  /** Whole lines, each ending in a newline, not yet handed to the file. */
  pending: Array<string | Buffer>;
  /** Consecutive events of one batch appended last, not yet in `pending`. */
  batch: BatchText | undefined;
  first: number;
  last: number;
}

/**
 * The lines each live run's log is given, gathered over a turn of the event
 * loop and handed to its file in one write at the end of it. A run of
 * consecutive events of one ingest batch is kept as a range of the batch's
 * text (logged as it arrived, not stringified again).
 */
export class PendingLogs {
  readonly #logs = new Map<string, RunLog>();
  /** Logs with pending lines, in the order they got them. */
  #dirty: RunLog[] = [];
  #flushScheduled = false;
  readonly #files: LogFiles;
  readonly #fileOf: (runId: string) => string;

  /** `fileOf` names a run's log file. */
  constructor(files: LogFiles, fileOf: (runId: string) => string) {
    this.#files = files;
    this.#fileOf = fileOf;
  }

  /** The runs whose logs are open. */
  runIds(): string[] {
    return [...this.#logs.keys()];
  }

  /** Log one line (without its newline) for the run. */
  line(runId: string, line: string): void {
    const log = this.#log(runId);
    this.#endRange(log);
    const { pending } = log;
    const previous = pending[pending.length - 1];
    if (typeof previous === 'string') pending[pending.length - 1] = `${previous}${line}\n`;
    else pending.push(`${line}\n`);
  }

  /** Log the element `index` of `batch` for the run, as its text arrived. */
  batchLine(runId: string, batch: BatchText, index: number): void {
    const log = this.#log(runId);
    if (log.batch === batch && log.last === index - 1) {
      log.last = index;
    } else if (log.batch === batch && log.last === index) {
      // Another event of the same element (a group of calls): its line is already there.
    } else {
      this.#endRange(log);
      log.batch = batch;
      log.first = index;
      log.last = index;
    }
  }

  /** Write every pending line now. */
  flush(): void {
    const dirty = this.#dirty;
    this.#dirty = [];
    for (const log of dirty) this.#writePending(log);
  }

  /** The run's log is done with for now: its last lines go out, then its file is closed. Resolves once they are written. */
  close(runId: string): Promise<void> {
    const log = this.#logs.get(runId);
    if (log !== undefined) {
      this.#logs.delete(runId);
      this.#writePending(log);
    }
    return this.#files.end(this.#fileOf(runId));
  }

  /** The run's open log, opened if need be; marked to be written at the end of this turn. */
  #log(runId: string): RunLog {
    let log = this.#logs.get(runId);
    if (log === undefined) {
      log = { file: this.#fileOf(runId), pending: [], batch: undefined, first: 0, last: 0 };
      this.#logs.set(runId, log);
    }
    if (log.pending.length === 0 && log.batch === undefined) {
      this.#dirty.push(log);
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        queueMicrotask(() => {
          this.#flushScheduled = false;
          this.flush();
        });
      }
    }
    return log;
  }

  /** Move the batch lines being gathered into `pending`. */
  #endRange(log: RunLog): void {
    if (log.batch === undefined) return;
    log.pending.push(log.batch.lines(log.first, log.last));
    log.batch = undefined;
  }

  #writePending(log: RunLog): void {
    this.#endRange(log);
    this.#files.write(log.file, log.pending);
    log.pending = [];
  }
}

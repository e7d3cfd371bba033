import { appendFileSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { RUN_ID_PATTERN, type RunSummary } from '../protocol/run-model.js';
import type { RunEvent } from '../protocol/ingest.js';
import type { BatchText } from './batch-text.js';
import { LogFiles, MAX_OPEN_LOGS } from './log-files.js';
import { diskErrorLine } from './disk-error.js';
import { readRunLog } from '../export/read-run-log.js';
import { RunState } from '../protocol/run-state.js';

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

/** Ids of deleted runs remembered, so that a live reporter's later events cannot bring one back. */
const MAX_DELETED = 10_000;

/** Options for {@link RunStore}. */
export interface RunStoreOptions {
  /** Where the logs live: `<dataDir>/runs`. */
  dir: string;
  /**
   * Runs kept. Past it the oldest finished runs are deleted; a running one
   * never is (its reporter is live), so live runs may exceed it until they
   * finish. @default 200
   */
  maxRuns?: number;
  /** Told of every run that retention deletes (a delete asked for through {@link RunStore.delete} is the caller's to announce). */
  onRetentionDelete?: (runId: string) => void;
  /**
   * Log files open at once. Past it the log written least recently is
   * closed, and reopened to append when it is next written. @default 64
   */
  maxOpenLogs?: number;
  /**
   * Told, in one line, of a log that cannot be loaded (not a regular file,
   * unreadable) or written (once per run: its log stops there).
   * @default writes `graphmind: <line>` on stderr
   */
  onWarning?: (line: string) => void;
}

/**
 * The recorded runs: one append-only JSONL log of events per run on disk,
 * and the replayed state of each in memory. A crash loses at most the last
 * partial line, which the next load skips.
 *
 * Lines appended in one turn of the event loop (an ingest batch) go to the
 * log in one write, at the end of that turn. A bounded number of logs are
 * open at once ({@link RunStoreOptions.maxOpenLogs}); the others are
 * reopened when next written.
 */
export class RunStore {
  readonly dir: string;
  readonly maxRuns: number;
  readonly #onRetentionDelete: ((runId: string) => void) | undefined;
  readonly #runs = new Map<string, RunState>();
  readonly #logs = new Map<string, RunLog>();
  readonly #files: LogFiles;
  readonly #warn: (line: string) => void;
  /** Logs with pending lines, in the order they got them. */
  #dirty: RunLog[] = [];
  #flushScheduled = false;
  /** Runs deleted on request in this server's life (the last {@link MAX_DELETED}), oldest first: they stay deleted. */
  readonly #deleted = new Set<string>();
  #trimScheduled = false;
  /**
   * Told when a run's log stops being written (a full disk): the run's
   * summary then says why in `recordingStopped`. serve tells the viewers.
   */
  onRecordingStopped: ((state: RunState) => void) | undefined;

  constructor(options: RunStoreOptions) {
    this.dir = options.dir;
    this.maxRuns = options.maxRuns ?? 200;
    this.#onRetentionDelete = options.onRetentionDelete;
    const onWarning = options.onWarning ?? ((line: string) => process.stderr.write(`graphmind: ${line}\n`));
    // One line each: an error's message could carry a newline.
    this.#warn = (line) => onWarning(line.replace(/[\r\n]+/g, ' '));
    this.#files = new LogFiles({
      maxOpen: options.maxOpenLogs ?? MAX_OPEN_LOGS,
      onError: (file, error) => this.#recordingStopped(file, error),
    });
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  /**
   * Rebuild every run from its log. Returns how many lines were unreadable.
   * Only regular files are read (a symlink to one is followed); anything
   * else named like a log, or a log that cannot be read, is skipped with a
   * warning.
   */
  load(): { runs: number; skippedLines: number } {
    let skippedLines = 0;
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const runId = name.slice(0, -'.jsonl'.length);
      if (!RUN_ID_PATTERN.test(runId)) continue;
      skippedLines += this.#loadLog(runId, join(this.dir, name));
    }
    // --max-runs may be smaller than what an earlier start kept.
    this.#enforceRetention(undefined);
    return { runs: this.#runs.size, skippedLines };
  }

  /** A run's log cannot be written any more: said once on stderr, and on the run's summary for the viewers. */
  #recordingStopped(file: string, error: Error): void {
    const runId = basename(file, '.jsonl');
    const reason = diskErrorLine(file, error);
    this.#warn(`the log of run ${runId} stopped: ${reason}; the run goes on in memory, but after a restart it ends here`);
    const state = this.#runs.get(runId);
    if (state === undefined) return;
    state.summary.recordingStopped = reason;
    // A new revision: GET /api/runs/:runId must not serve the copy it cached before.
    state.revision++;
    this.onRecordingStopped?.(state);
  }

  /** Rebuild one run from its log, line by line (see `readRunLog`); returns how many lines were unreadable. */
  #loadLog(runId: string, file: string): number {
    const read = readRunLog(file, runId);
    if (!read.ok) {
      this.#warn(`skipped ${file}: ${read.reason}`);
      return 0;
    }
    if (!read.endsWithNewline) {
      // A torn last line has no newline: end it, so what is appended next starts a line of its own.
      try {
        appendFileSync(file, '\n');
      } catch (error) {
        this.#warn(`cannot end the torn last line of ${file} (${errorText(error)})`);
      }
    }
    // A run whose log does not end with its end was live when the old server stopped: readRunLog made it live
    // again and abandoned it (its reporter is gone with the old server; it may still reclaim it).
    const state = read.state;
    if (state === undefined) return read.skippedLines;
    this.#runs.set(runId, state);
    return read.skippedLines;
  }

  /** Run summaries, newest first (runs that started in the same millisecond: the one recorded last first; see {@link #newestFirst}). */
  list(): RunSummary[] {
    return this.#newestFirst().map((state) => ({ ...state.summary }));
  }

  /**
   * The runs by start time, newest first; a tie goes to the one recorded
   * later (the map keeps the order runs were recorded or loaded in, and the
   * sort is stable). Loaded runs are in the order their files were listed,
   * so after a restart such a tie is the file system's.
   */
  #newestFirst(): RunState[] {
    return [...this.#runs.values()].reverse().sort((a, b) => (a.summary.startedAt < b.summary.startedAt ? 1 : a.summary.startedAt > b.summary.startedAt ? -1 : 0));
  }

  get(runId: string): RunState | undefined {
    return this.#runs.get(runId);
  }

  has(runId: string): boolean {
    return this.#runs.has(runId);
  }

  /** True for a run deleted on request in this server's life (one of the last 10,000): it stays deleted. */
  isDeleted(runId: string): boolean {
    return this.#deleted.has(runId);
  }

  /**
   * Apply an event and append it to the run's log. A `run.started` for an
   * unknown id creates the run, unless that run was deleted: a deleted run
   * stays deleted. Returns the run if the event changed it.
   *
   * A `run.started` for a run already here (the reclaim a reporter sends
   * after a reconnect, or to a restarted server) makes it live again but is
   * not logged: the log already starts with it.
   *
   * `batch` and `index` say where the event's text is, if the caller has it
   * (the text it arrived as): it is logged as is instead of stringified again.
   */
  append(event: RunEvent, batch?: BatchText, index = 0): RunState | undefined {
    let state = this.#runs.get(event.runId);
    if (state === undefined) {
      if (event.type !== 'run.started' || this.#deleted.has(event.runId)) return undefined;
      state = new RunState(event.runId, event.t);
      this.#runs.set(event.runId, state);
      this.#enforceRetention(event.runId);
    } else if (event.type === 'run.started') {
      return state.apply(event) ? state : undefined;
    }
    if (!state.apply(event)) return undefined;
    const log = this.#log(event.runId);
    if (batch === undefined) {
      this.#pushLine(log, JSON.stringify(event));
    } else if (log.batch === batch && log.last === index - 1) {
      log.last = index;
    } else if (log.batch === batch && log.last === index) {
      // Another event of the same element (a group of calls): its line is already there.
    } else {
      this.#endRange(log);
      log.batch = batch;
      log.first = index;
      log.last = index;
    }
    if (event.type === 'run.finished') {
      void this.#closeLog(event.runId);
      this.#trimSoon();
    }
    return state;
  }

  /** Mark a run as ended in error (its reporter vanished), in memory and on disk. */
  abandon(runId: string, t: number): RunState | undefined {
    const state = this.#runs.get(runId);
    if (state === undefined || state.summary.status !== 'running') return undefined;
    const event: RunEvent = { type: 'run.finished', runId, seq: 0, t, status: 'error' };
    state.apply(event);
    this.#pushLine(this.#log(runId), JSON.stringify(event));
    void this.#closeLog(runId);
    this.#trimSoon();
    return state;
  }

  /**
   * Remove a run from memory and disk. With `stayDeleted` (a delete someone
   * asked for) later events for it are ignored, a `run.started` too: its
   * reporter may still be live. Retention deletes only runs that ended, and
   * without it: the reporter of an abandoned run that comes back reclaims
   * it as a new run.
   */
  delete(runId: string, stayDeleted = false): boolean {
    if (!this.#runs.delete(runId)) return false;
    if (stayDeleted) {
      this.#deleted.add(runId);
      if (this.#deleted.size > MAX_DELETED) this.#deleted.delete(this.#deleted.values().next().value as string);
    }
    const file = this.#file(runId);
    const closed = this.#closeLog(runId);
    // A run of that id made later gets a log of its own, even if this one could not be written.
    this.#files.discard(file);
    unlinkQuietly(file);
    // Logs open synchronously, so nothing should create the file again; should anything have, it goes once the log is closed.
    void closed.then(() => {
      if (!this.#runs.has(runId)) unlinkQuietly(file);
    });
    return true;
  }

  /** Close every open log (on shutdown); resolves once all are written. */
  close(): Promise<void> {
    for (const runId of [...this.#logs.keys()]) void this.#closeLog(runId);
    // Logs of runs that finished earlier may still be writing: wait for them too.
    return this.#files.endAll();
  }

  /** Write every pending line now. */
  flush(): void {
    const dirty = this.#dirty;
    this.#dirty = [];
    for (const log of dirty) this.#writePending(log);
  }

  /** The run's open log, opened if need be; marked to be written at the end of this turn. */
  #log(runId: string): RunLog {
    let log = this.#logs.get(runId);
    if (log === undefined) {
      log = { file: this.#file(runId), pending: [], batch: undefined, first: 0, last: 0 };
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

  /** Queue one line (without its newline). */
  #pushLine(log: RunLog, line: string): void {
    this.#endRange(log);
    const { pending } = log;
    const previous = pending[pending.length - 1];
    if (typeof previous === 'string') pending[pending.length - 1] = `${previous}${line}\n`;
    else pending.push(`${line}\n`);
  }

  /** Move the batch lines being gathered into `pending`. */
  #endRange(log: RunLog): void {
    if (log.batch === undefined) return;
    log.pending.push(log.batch.lines(log.first, log.last));
    log.batch = undefined;
  }

  #file(runId: string): string {
    return join(this.dir, `${runId}.jsonl`);
  }

  #writePending(log: RunLog): void {
    this.#endRange(log);
    this.#files.write(log.file, log.pending);
    log.pending = [];
  }

  /** The run's log is done with for now: its last lines go out, then its file is closed. Resolves once they are written. */
  #closeLog(runId: string): Promise<void> {
    const log = this.#logs.get(runId);
    if (log !== undefined) {
      this.#logs.delete(runId);
      this.#writePending(log);
    }
    return this.#files.end(this.#file(runId));
  }

  /**
   * A run just ended, so live runs that were kept over the limit may now be
   * trimmed. Not at once: the caller announces the end first, and a viewer
   * must not hear of a run after it heard it was deleted.
   */
  #trimSoon(): void {
    if (this.#trimScheduled || this.#runs.size <= this.maxRuns) return;
    this.#trimScheduled = true;
    queueMicrotask(() => {
      this.#trimScheduled = false;
      this.#enforceRetention(undefined);
    });
  }

  /**
   * Delete the oldest finished runs while there are more than `maxRuns`
   * (`keep` aside, the run being created). A running run is never deleted:
   * its reporter is live and would lose its session's record, and its
   * holds, mid-way. If only live runs are left over the limit they all
   * stay, and are trimmed as they finish.
   */
  #enforceRetention(keep: string | undefined): void {
    if (this.#runs.size <= this.maxRuns) return;
    const finishedOldestFirst = this.#newestFirst()
      .reverse()
      .filter((state) => state.summary.runId !== keep && state.summary.status !== 'running');
    for (const state of finishedOldestFirst) {
      if (this.#runs.size <= this.maxRuns) break;
      this.delete(state.summary.runId);
      this.#onRetentionDelete?.(state.summary.runId);
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

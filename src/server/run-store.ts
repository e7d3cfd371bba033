import { existsSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { RunSummary } from '../protocol/run-model.js';
import type { RunEvent } from '../protocol/ingest.js';
import type { BatchText } from './batch-text.js';
import { PendingLogs } from './pending-logs.js';
import { LogFiles, MAX_OPEN_LOGS } from './log-files.js';
import { diskErrorLine } from './disk-error.js';
import { RunState } from '../protocol/run-state.js';
import { readLogToAppend, RunLoader, runIdOfLogName, type LoadProgress } from './run-loader.js';
import { RETENTION_KINDS, retentionKind } from './run-order.js';
import { COMPLETED_RUN_EVENTS, CompletedRecord, CompletedSummaries, isCompletedRun } from './completed-record.js';
import { RunTable } from './run-table.js';
import { SegmentLogs } from './segment-logs.js';
import type { RunStoreOptions } from './run-store-options.js';
import { loadSegment, type SegmentLoadTarget } from './segment-load.js';
import { listSegments } from './segment-read.js';
import { startsInSegment } from './segment-rules.js';

export type { RunStoreOptions } from './run-store-options.js';

/** Ids of deleted runs remembered, so that a live reporter's later events cannot bring one back. */
const MAX_DELETED = 10_000;

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
  readonly #onRetention: ((deleted: number) => void) | undefined;
  /** The runs in memory; a small run that arrived whole is kept as its summary until it is opened (see {@link RunStore.appendCompleted}). */
  readonly #runs = new RunTable();
  readonly #summaries = new CompletedSummaries();
  /** The background load, while it runs (see {@link RunStore.loadInBackground}). */
  #loader: RunLoader | undefined;
  readonly #logs: PendingLogs;
  readonly #files: LogFiles;
  /** The runs kept in segments (see {@link RunStoreOptions.segments}). */
  readonly #segments: SegmentLogs;
  readonly #segmentsOn: boolean;
  readonly #warn: (line: string) => void;
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
    this.#onRetention = options.onRetention;
    const onWarning = options.onWarning ?? ((line: string) => process.stderr.write(`graphmind: ${line}\n`));
    // One line each: an error's message could carry a newline.
    this.#warn = (line) => onWarning(line.replace(/[\r\n]+/g, ' '));
    this.#files = new LogFiles({
      maxOpen: options.maxOpenLogs ?? MAX_OPEN_LOGS,
      onError: (file, error) => this.#recordingStopped(file, error),
    });
    this.#logs = new PendingLogs(this.#files, (runId) => this.#file(runId));
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.#segmentsOn = options.segments === true;
    this.#segments = new SegmentLogs({ dir: this.dir, onStopped: (runIds, file, error) => this.#segmentStopped(runIds, file, error), onWarning: this.#warn });
  }

  /**
   * Rebuild every run from its log. Returns how many lines were unreadable.
   * Only regular files are read (a symlink to one is followed); anything
   * else named like a log, or a log that cannot be read, is skipped with a
   * warning.
   */
  load(): { runs: number; skippedLines: number } {
    let skippedLines = 0;
    const own = new Map<string, string>();
    for (const name of readdirSync(this.dir)) {
      const runId = runIdOfLogName(name);
      if (runId !== undefined) own.set(runId, name);
    }
    const target = this.#segmentTarget((runId) => own.has(runId));
    for (const n of listSegments(this.#segments.folder)) if (n < this.#segments.current) skippedLines += loadSegment(this.#segments, n, target).skippedLines;
    for (const [runId, name] of own) skippedLines += this.#loadLog(runId, join(this.dir, name));
    this.#segments.sweep();
    // --max-runs may be smaller than what an earlier start kept.
    this.#enforceRetention(undefined);
    return { runs: this.#runs.size, skippedLines };
  }

  /** A run's log cannot be written any more: said once on stderr, and on the run's summary for the viewers. */
  #recordingStopped(file: string, error: Error): void {
    this.#segmentStopped([basename(file, '.jsonl')], file, error);
  }

  /** The logs of these runs (in one segment, or one run's own log) cannot be written any more: said once, and on each run's summary. */
  #segmentStopped(runIds: readonly string[], file: string, error: Error): void {
    const reason = diskErrorLine(file, error);
    const which = runIds.length === 1 ? `the log of run ${runIds[0]}` : `the logs of ${runIds.length} runs (${runIds.slice(0, 3).join(', ')}${runIds.length > 3 ? ', …' : ''})`;
    this.#warn(`${which} stopped: ${reason}; ${runIds.length === 1 ? 'the run goes' : 'the runs go'} on in memory, but after a restart ${runIds.length === 1 ? 'it ends' : 'they end'} here`);
    for (const runId of runIds) {
      const state = this.#runs.state(runId);
      if (state === undefined) continue;
      state.summary.recordingStopped = reason;
      // A new revision: GET /api/runs/:runId must not serve the copy it cached before.
      state.revision++;
      this.onRecordingStopped?.(state);
    }
  }

  /** How a segment's runs join this store. */
  #segmentTarget(hasOwnLog: (runId: string) => boolean): SegmentLoadTarget {
    return { hasOwnLog, inMemory: (runId) => this.#runs.has(runId), add: (state) => this.#runs.add(state), warn: this.#warn };
  }

  /**
   * Rebuild every run from its log in the background, a slice of logs per
   * turn of the event loop (see `RunLoader`); resolves once all are loaded,
   * with how many lines were unreadable. Meanwhile the store works as
   * usual: {@link RunStore.list} lists the runs loaded so far,
   * {@link RunStore.loading} says how far the load is, and a run asked for
   * by id (an event, a read, a delete) is loaded at once. Retention waits
   * for the end of the load.
   */
  async loadInBackground(onSlice?: (runs: readonly RunState[], progress: LoadProgress) => void): Promise<{ runs: number; skippedLines: number }> {
    const loader = new RunLoader({
      dir: this.dir,
      loadOne: (runId, file) => this.#loadLog(runId, file),
      segments: {
        list: () => listSegments(this.#segments.folder).filter((n) => n < this.#segments.current),
        load: (n, hasOwnLog) => loadSegment(this.#segments, n, this.#segmentTarget(hasOwnLog)),
      },
      onSlice: onSlice && ((runIds, progress) => onSlice(runIds.flatMap((runId) => this.#runs.state(runId) ?? []), progress)),
    });
    this.#loader = loader;
    let complete: boolean;
    try {
      complete = await loader.start();
    } finally {
      this.#loader = undefined;
    }
    if (complete) {
      this.#segments.sweep();
      this.#enforceRetention(undefined);
    }
    return { runs: this.#runs.size, skippedLines: loader.skippedLines };
  }

  /** How far the background load is, while it runs; undefined once every run is loaded. */
  get loading(): LoadProgress | undefined {
    return this.#loader?.progress;
  }

  /** A run not loaded yet is loaded now, out of turn: someone needs it (a reclaim, a read, a delete). */
  #claim(runId: string): void {
    if (this.#loader !== undefined && !this.#runs.has(runId)) this.#loader.claim(runId);
  }

  /** Rebuild one run from its log, line by line (see `readRunLog`); returns how many lines were unreadable. */
  #loadLog(runId: string, file: string): number {
    // Recorded meanwhile (its log appeared after the load began): the run in memory is the whole of it.
    if (this.#runs.has(runId)) return 0;
    const read = readLogToAppend(file, runId, this.#warn);
    if (read === undefined) return 0;
    // A run whose log does not end with its end was live when the old server stopped: readRunLog made it live
    // again and abandoned it (its reporter is gone with the old server; it may still reclaim it).
    const state = read.state;
    if (state === undefined) return read.skippedLines;
    this.#runs.add(state);
    return read.skippedLines;
  }

  /** Run summaries, newest first (runs that started in the same millisecond: the one recorded last first; see `RunOrder`). */
  list(): RunSummary[] {
    return this.#runs.list();
  }

  /** The run, loaded at once if the background load has not come to it yet. */
  get(runId: string): RunState | undefined {
    this.#claim(runId);
    return this.#runs.state(runId);
  }

  /** True if the run is here (loaded at once if the background load has not come to it yet). */
  has(runId: string): boolean {
    this.#claim(runId);
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
    let state = this.#runs.state(event.runId);
    // A reclaim during the background load: the run's log is loaded first, so that it is neither lost nor logged twice.
    if (state === undefined && event.type === 'run.started' && this.#loader !== undefined) state = this.get(event.runId);
    if (state === undefined) {
      if (event.type !== 'run.started' || this.#deleted.has(event.runId)) return undefined;
      state = new RunState(event.runId, event.t);
      // Applied first: its source says which retention kind it counts against.
      if (!state.apply(event)) return undefined;
      this.#runs.add(state);
      if (this.#segmentsOn && startsInSegment(retentionKind(state.summary.source))) this.#segments.start(event.runId);
      this.#enforceRetention(event.runId);
    } else if (event.type === 'run.started') {
      return state.apply(event) ? state : undefined;
    } else if (!state.apply(event)) {
      return undefined;
    }
    this.#log(event, batch, index);
    if (event.type === 'run.finished') {
      if (!this.#segments.holds(event.runId)) void this.#logs.close(event.runId);
      this.#trimSoon();
    }
    return state;
  }

  /**
   * A small run that arrived whole (`events[from…]`, see
   * completed-record.ts), applied in one step: logged as the one element
   * of `batch` it came as, listed, counted against `--max-runs`, and kept
   * as its summary until somebody opens it. False when it must be applied
   * event by event instead (the first run of its shape, a run already here
   * or deleted, a load under way, no text to log it as).
   */
  appendCompleted(events: readonly RunEvent[], from: number, batch: BatchText | undefined, index: number): boolean {
    const start = events[from] as RunEvent;
    const runId = start.runId;
    if (batch === undefined || this.#loader !== undefined || this.#runs.has(runId) || this.#deleted.has(runId) || !isCompletedRun(events, from)) return false;
    const summary = this.#summaries.summaryOf(events, from);
    if (summary === undefined) return false;
    const own = from === 0 && events.length === COMPLETED_RUN_EVENTS ? events : events.slice(from, from + COMPLETED_RUN_EVENTS);
    this.#runs.add(new CompletedRecord(summary, own));
    if (this.#segmentsOn && startsInSegment(retentionKind(summary.source))) this.#segments.start(runId);
    this.#enforceRetention(runId);
    this.#log(start, batch, index);
    if (!this.#segments.holds(runId)) void this.#logs.close(runId);
    this.#trimSoon();
    return true;
  }

  /** Log the event: in its segment if the run is in one, in its own log if not. */
  #log(event: RunEvent, batch: BatchText | undefined, index: number): void {
    const segments = this.#segments;
    if (batch === undefined) {
      const line = JSON.stringify(event);
      if (!segments.line(event.runId, line)) this.#logs.line(event.runId, line);
    } else if (!segments.batchLine(event.runId, batch, index)) {
      this.#logs.batchLine(event.runId, batch, index);
    }
  }

  /** Mark a run as ended in error (its reporter vanished), in memory and on disk. */
  abandon(runId: string, t: number): RunState | undefined {
    // (A run kept as its summary has ended: never running.)
    const state = this.#runs.stored(runId);
    if (state === undefined || state.summary.status !== 'running' || state instanceof CompletedRecord) return undefined;
    const event: RunEvent = { type: 'run.finished', runId, seq: 0, t, status: 'error' };
    state.apply(event);
    this.#log(event, undefined, 0);
    if (!this.#segments.holds(runId)) void this.#logs.close(runId);
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
    this.#claim(runId);
    const state = this.#runs.stored(runId);
    if (state === undefined) return false;
    this.#runs.unlist(state);
    this.#forget(runId, stayDeleted);
    return true;
  }

  /** Remove a run (already out of the order) from memory and disk; `trimmed` by retention. */
  #forget(runId: string, stayDeleted: boolean, trimmed = false): void {
    this.#runs.forget(runId);
    if (stayDeleted) {
      this.#deleted.add(runId);
      if (this.#deleted.size > MAX_DELETED) this.#deleted.delete(this.#deleted.values().next().value as string);
    }
    // In a segment: marked dropped there (the segment goes once it keeps no run).
    if (this.#segments.drop(runId, trimmed)) return;
    const file = this.#file(runId);
    const closed = this.#logs.close(runId);
    // A run of that id made later gets a log of its own, even if this one could not be written.
    this.#files.discard(file);
    unlinkQuietly(file);
    // Logs open synchronously, so nothing should create the file again; should anything have, it goes once the log
    // is closed. Looked for first: a failed unlink (the usual case) costs an exception, for every run retention trims.
    void closed.then(() => {
      if (!this.#runs.has(runId) && existsSync(file)) unlinkQuietly(file);
    });
  }

  /** Close every open log (on shutdown); resolves once all are written. */
  close(): Promise<void> {
    // A load still under way stops: nothing it would read could be written or trimmed any more.
    this.#loader?.stop();
    this.#segments.close();
    for (const runId of this.#logs.runIds()) void this.#logs.close(runId);
    // Logs of runs that finished earlier may still be writing: wait for them too.
    return this.#files.endAll();
  }

  /** Write every pending line now. */
  flush(): void {
    this.#segments.flush();
    this.#logs.flush();
  }

  /**
   * The file of the run's log, for an export to read: a run in a segment
   * gets a log of its own now, with its lines so far (and its later lines).
   */
  logFile(runId: string): string {
    return this.#segments.ownLog(runId) ?? this.#file(runId);
  }

  #file(runId: string): string {
    return join(this.dir, `${runId}.jsonl`);
  }

  /**
   * A run just ended, so live runs that were kept over the limit may now be
   * trimmed. Not at once: the caller announces the end first, and a viewer
   * must not hear of a run after it heard it was deleted.
   */
  #trimSoon(): void {
    if (this.#trimScheduled || this.#runs.size <= this.maxRuns || this.#loader !== undefined) return;
    this.#trimScheduled = true;
    queueMicrotask(() => {
      this.#trimScheduled = false;
      this.#enforceRetention(undefined);
    });
  }

  /**
   * Delete the oldest finished runs of each retention kind (the adapter's
   * runs, and sessions: see `RetentionKind`) while that kind has more than
   * `maxRuns` (`keep` aside, the run being created). A running run is never deleted:
   * its reporter is live and would lose its session's record, and its
   * holds, mid-way. If only live runs are left over the limit they all
   * stay, and are trimmed as they finish.
   */
  #enforceRetention(keep: string | undefined): void {
    // During the background load the oldest runs may not be loaded yet: retention waits for the end of it.
    if (this.#runs.size <= this.maxRuns || this.#loader !== undefined) return;
    let deleted = 0;
    for (const kind of RETENTION_KINDS) {
      const oldest = this.#runs.takeOldest(kind, this.maxRuns, keep);
      for (const state of oldest) {
        this.#forget(state.summary.runId, false, true);
        this.#onRetentionDelete?.(state.summary.runId);
      }
      deleted += oldest.length;
    }
    if (deleted > 0) this.#onRetention?.(deleted);
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

/**
 * The run logs of a data directory, loaded in the background: the
 * directory is listed without blocking, then the logs are read a slice at
 * a time (about 10 ms of work), each slice followed by a turn of the event
 * loop, so that the server answers health checks, viewers and reporters
 * while thousands of logs load. A log somebody needs before its turn (a
 * reporter reclaiming its run, a viewer asking for it) is loaded at once,
 * alone, by {@link RunLoader.claim}.
 *
 * @module
 */
import { appendFileSync, existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_ID_PATTERN } from '../protocol/run-model.js';
import { readRunLog, type RunLogRead } from '../export/read-run-log.js';

/** How far a load has got, in runs: those read (or found unreadable) out of those found. */
export interface LoadProgress {
  /** Runs read so far (logs of their own, those that could not be read included, and runs of the segments read). */
  loaded: number;
  /** Runs found: logs of their own in the directory (0 while it is still being listed), and runs of the segments read so far. */
  total: number;
}

/** Options for {@link RunLoader}. */
export interface RunLoaderOptions {
  /** The directory of the logs (`<dataDir>/runs`). */
  dir: string;
  /** Load one run's log now; returns how many of its lines could not be read. */
  loadOne(runId: string, file: string): number;
  /** Told after each slice of the runs it loaded, and of the progress. */
  onSlice?: (runIds: readonly string[], progress: LoadProgress) => void;
  /** Work per slice before the event loop gets a turn, ms. @default 10 */
  sliceMs?: number;
  /**
   * The segments to load (see segment-rules.ts), oldest first, and how to
   * load one (told which runs have a log of their own: those are skipped).
   * They are loaded first, a segment a slice. @default none
   */
  segments?: {
    list(): number[];
    load(segment: number, hasOwnLog: (runId: string) => boolean): { runIds: string[]; skippedLines: number };
  };
}

/** The run id of a log's file name, or undefined for a file that is not a run's log. */
export function runIdOfLogName(name: string): string | undefined {
  if (!name.endsWith('.jsonl')) return undefined;
  const runId = name.slice(0, -'.jsonl'.length);
  return RUN_ID_PATTERN.test(runId) ? runId : undefined;
}

/**
 * Read a run's log to go on appending to it: a torn last line (no newline:
 * a crash mid-write) is ended on disk first, so that what is appended next
 * starts a line of its own. Undefined, said to `warn`, for a log that
 * cannot be read.
 */
export function readLogToAppend(file: string, runId: string, warn: (line: string) => void): Extract<RunLogRead, { ok: true }> | undefined {
  // Large values kept as text: the server keeps every run in memory (see ReadRunLogOptions).
  const read = readRunLog(file, runId, { rawValues: true });
  if (!read.ok) {
    warn(`skipped ${file}: ${read.reason}`);
    return undefined;
  }
  if (!read.endsWithNewline) {
    try {
      appendFileSync(file, '\n');
    } catch (error) {
      warn(`cannot end the torn last line of ${file} (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  return read;
}

/** Loads a directory's run logs in the background (see the module). */
export class RunLoader {
  readonly #options: RunLoaderOptions;
  /** Logs found and not loaded yet, in the order listed; undefined until the listing is done. */
  #waiting: Set<string> | undefined;
  /** Logs loaded out of turn before the listing was done: the listing skips them. */
  readonly #claimed = new Set<string>();
  #total = 0;
  /** Run ids with a log of their own, as listed (a segment's lines of such a run are not the run's). */
  readonly #own = new Set<string>();
  /** Segments not loaded yet, oldest first. */
  #segments: number[] = [];
  /** Runs the segments loaded so far held. */
  #segmentRuns = 0;
  #done = false;
  #stopped = false;
  /** Unreadable lines met so far. */
  skippedLines = 0;

  constructor(options: RunLoaderOptions) {
    this.#options = options;
  }

  /** True once every log found has been loaded. */
  get done(): boolean {
    return this.#done;
  }

  /** How far the load has got. */
  get progress(): LoadProgress {
    const waiting = this.#waiting?.size ?? 0;
    return { loaded: this.#total - waiting + this.#segmentRuns, total: this.#total + this.#segmentRuns };
  }

  /**
   * List the directory, then load every log, a slice per turn; resolves
   * true when all are loaded, false when {@link RunLoader.stop} stopped it.
   */
  async start(): Promise<boolean> {
    const names = await readdir(this.#options.dir);
    const waiting = new Set<string>();
    for (const name of names) {
      const runId = runIdOfLogName(name);
      if (runId === undefined) continue;
      this.#total++;
      this.#own.add(runId);
      if (!this.#claimed.has(runId)) waiting.add(runId);
    }
    this.#claimed.clear();
    this.#segments = this.#options.segments?.list() ?? [];
    this.#waiting = waiting;
    const sliceMs = this.#options.sliceMs ?? 10;
    // The segments first, a segment a slice: a run asked for by id before they are read makes them read at once.
    while (this.#segments.length > 0 && !this.#stopped) {
      const runIds = this.#loadSegment(this.#segments.shift() as number);
      this.#options.onSlice?.(runIds, this.progress);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    while (waiting.size > 0 && !this.#stopped) {
      const until = performance.now() + sliceMs;
      const slice: string[] = [];
      // Set iteration sees the deletes (claims included) made meanwhile: each slice starts at the first still waiting.
      for (const runId of waiting) {
        waiting.delete(runId);
        this.#loadNow(runId);
        slice.push(runId);
        if (performance.now() >= until) break;
      }
      this.#options.onSlice?.(slice, this.progress);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.#done = true;
    return !this.#stopped;
  }

  /** Load nothing more (the server is closing). */
  stop(): void {
    this.#stopped = true;
  }

  /**
   * Load `runId`'s log now if it has not been loaded yet and exists; true
   * if it was loaded by this call. Before the listing is done, a log is
   * looked for on disk.
   */
  claim(runId: string): boolean {
    if (this.#done) return false;
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      // Not a log of its own: it may be in a segment not read yet. Those are read now (the runs go out with the next slice).
      if (!this.#own.has(runId)) return this.#claimSegments();
      if (!waiting.delete(runId)) return false;
    } else {
      if (this.#claimed.has(runId) || !existsSync(this.#file(runId))) return false;
      this.#claimed.add(runId);
    }
    this.#loadNow(runId);
    return true;
  }

  /** Read every segment not read yet, now; true if there was one. */
  #claimSegments(): boolean {
    if (this.#segments.length === 0) return false;
    const segments = this.#segments;
    this.#segments = [];
    for (const segment of segments) this.#loadSegment(segment);
    return true;
  }

  #loadSegment(segment: number): string[] {
    const loaded = this.#options.segments?.load(segment, (runId) => this.#own.has(runId));
    if (loaded === undefined) return [];
    this.#segmentRuns += loaded.runIds.length;
    this.skippedLines += loaded.skippedLines;
    return loaded.runIds;
  }

  #loadNow(runId: string): void {
    this.skippedLines += this.#options.loadOne(runId, this.#file(runId));
  }

  #file(runId: string): string {
    return join(this.#options.dir, `${runId}.jsonl`);
  }
}

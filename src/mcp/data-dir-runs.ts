/**
 * The runs of a data directory, read straight from their logs
 * (`<dataDir>/runs/<runId>.jsonl`) when no debugger is running. Read-only:
 * nothing here creates, ends, trims or deletes a file.
 *
 * A run's summary is read from the two ends of its log when they settle
 * it (log-ends.ts), else from the replay of the whole log; either is read
 * again only when the log changed (its inode, size or modification time).
 * Summaries are kept for every log, whole runs for the few read last.
 *
 * @module
 */
import { existsSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { RUN_ID_PATTERN, type Run, type RunSummary } from '../protocol/run-model.js';
import { readRunLog } from '../export/read-run-log.js';
import { readRegularFile } from '../export/regular-file.js';
import { summaryFromEnds } from './log-ends.js';
import type { RunList, RunRead, RunSource } from './source.js';
import type { RunState } from '../protocol/run-state.js';
import { readSegmentedRuns, segmentsVersion } from '../server/segment-read.js';

/** Options for {@link DataDirRuns}. */
export interface DataDirRunsOptions {
  /** The data directory; its logs are in `runs/` below it. */
  dataDir: string;
  /** Told, once per log and version of it, of a log that cannot be read. @default nothing */
  onWarning?: (line: string) => void;
  /** Whole runs kept between calls. @default 4 */
  keepRuns?: number;
}

/** What is kept of one log, with the version of the file it was read from. */
interface Entry {
  version: string;
  summary: RunSummary | undefined;
}

/** A {@link RunSource} over a data directory's logs. */
export class DataDirRuns implements RunSource {
  readonly #dir: string;
  readonly #warn: (line: string) => void;
  readonly #keepRuns: number;
  readonly #summaries = new Map<string, Entry>();
  /** Whole runs, least recently read first. */
  readonly #runs = new Map<string, { version: string; run: Run }>();
  readonly #warned = new Set<string>();
  /** The runs kept in segments (the adapter's, see server/segment-rules.ts), read again when the segments change. */
  #segmented: { version: string; runs: Map<string, RunState> } = { version: '', runs: new Map() };

  constructor(options: DataDirRunsOptions) {
    this.#dir = join(options.dataDir, 'runs');
    this.#warn = options.onWarning ?? (() => {});
    this.#keepRuns = Math.max(1, options.keepRuns ?? 4);
  }

  async listRuns(): Promise<RunList> {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch {
      // No runs directory yet (nothing recorded), or not readable: no runs.
      return { from: 'data-dir', runs: [] };
    }
    const found: RunSummary[] = [];
    const seen = new Set<string>();
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      const runId = name.slice(0, -'.jsonl'.length);
      if (!RUN_ID_PATTERN.test(runId)) continue;
      seen.add(runId);
      const summary = this.#summary(runId);
      if (summary !== undefined) found.push(summary);
    }
    for (const [runId, state] of this.#segmentRuns()) if (!seen.has(runId)) found.push(summaryOf(state.summary));
    for (const runId of this.#summaries.keys()) if (!seen.has(runId)) this.#summaries.delete(runId);
    // As the server orders the runs it loads: listing order, reversed, then by start time, newest first (a stable sort).
    found.reverse().sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
    return { from: 'data-dir', runs: found };
  }

  async getRun(runId: string): Promise<RunRead> {
    if (!RUN_ID_PATTERN.test(runId)) return { from: 'data-dir', run: undefined };
    const file = this.#file(runId);
    const version = versionOf(file);
    // No log of its own: it may be in a segment.
    if (version === undefined) return { from: 'data-dir', run: this.#segmentRuns().get(runId)?.toRun() };
    const kept = this.#runs.get(runId);
    if (kept !== undefined && kept.version === version) {
      this.#runs.delete(runId);
      this.#runs.set(runId, kept);
      return { from: 'data-dir', run: kept.run };
    }
    const loaded = this.#load(runId, file, version);
    if (loaded === undefined) return { from: 'data-dir', run: undefined };
    const { run } = loaded;
    this.#runs.delete(runId);
    this.#runs.set(runId, { version: loaded.version, run });
    while (this.#runs.size > this.#keepRuns) this.#runs.delete(this.#runs.keys().next().value as string);
    return { from: 'data-dir', run };
  }

  /** A log's run summary, read again only if the log changed since it was last read. */
  #summary(runId: string): RunSummary | undefined {
    const file = this.#file(runId);
    const entry = this.#summaries.get(runId);
    if (entry !== undefined) {
      const version = versionOf(file);
      if (version === undefined) return undefined;
      if (entry.version === version) return entry.summary;
    }
    const ends = summaryOfEnds(file, runId);
    if (ends?.summary !== undefined) {
      this.#summaries.set(runId, { version: ends.version, summary: ends.summary });
      return ends.summary;
    }
    const version = ends?.version ?? versionOf(file);
    return version === undefined ? undefined : this.#load(runId, file, version)?.summary;
  }

  /**
   * Replay a log (`version` is what its stat said before) and remember its
   * summary, under the version of the file as it was opened. Undefined
   * when it cannot be read or holds no run.
   */
  #load(runId: string, file: string, version: string): { run: Run; summary: RunSummary; version: string } | undefined {
    const read = readRunLog(file, runId);
    if (!read.ok) {
      if (!this.#warned.has(`${file} ${version}`)) {
        this.#warned.add(`${file} ${version}`);
        this.#warn(`skipped ${file}: ${read.reason}`);
      }
      this.#summaries.set(runId, { version, summary: undefined });
      return undefined;
    }
    const opened = versionText(read.stats);
    const run = read.state?.toRun();
    const summary = run === undefined ? undefined : summaryOf(run);
    this.#summaries.set(runId, { version: opened, summary });
    return run === undefined || summary === undefined ? undefined : { run, summary, version: opened };
  }

  /** The runs in segments, as they are now. */
  #segmentRuns(): Map<string, RunState> {
    const version = segmentsVersion(this.#dir);
    if (version === this.#segmented.version) return this.#segmented.runs;
    const runs = new Map<string, RunState>();
    if (version !== '') for (const [runId, run] of readSegmentedRuns(this.#dir, (id) => existsSync(this.#file(id))).runs) runs.set(runId, run.state);
    this.#segmented = { version, runs };
    return runs;
  }

  #file(runId: string): string {
    return join(this.#dir, `${runId}.jsonl`);
  }
}

/** The summary fields of a run, copied. */
function summaryOf(run: RunSummary): RunSummary {
  return { runId: run.runId, name: run.name, source: run.source, status: run.status, startedAt: run.startedAt, endedAt: run.endedAt };
}

/**
 * The summary of a log from its two ends (undefined when they do not
 * settle it), with the version of the file read; undefined when it cannot
 * be opened as a regular file (the replay then says why).
 */
function summaryOfEnds(file: string, runId: string): { version: string; summary: RunSummary | undefined } | undefined {
  // Opened as the replay opens it (a FIFO is not waited on); the replay says why one cannot be read.
  const read = readRegularFile(file, (fd, stats) => ({ version: versionText(stats), summary: summaryFromEnds(fd, stats.size, runId) }));
  return read.ok ? read.value : undefined;
}

/** What tells one version of a file from the next; undefined when there is no such file. */
function versionOf(file: string): string | undefined {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch {
    return undefined;
  }
  return versionText(stats);
}

function versionText(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.isFile() ? 'f' : 'x'}`;
}

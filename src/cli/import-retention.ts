/**
 * `graphmind import` into a data directory no debugger serves: the log is
 * written where the next `graphmind serve` loads it, and that start trims
 * the directory to `--max-runs`, oldest first, counting each retention
 * kind apart (the adapter's runs, and sessions: everything else; see
 * server/run-order.ts). An import that would make the next start delete
 * runs of its own kind (perhaps the one just imported, if it is the
 * oldest) says so and writes nothing, unless `--allow-trim` is given.
 *
 * @module
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readRunLog } from '../export/read-run-log.js';
import { readRegularFile } from '../export/regular-file.js';
import type { RunEvent } from '../protocol/ingest.js';
import { startFromHead } from '../mcp/log-ends.js';
import { retentionKind, type RetentionKind } from '../server/run-order.js';
import { runIdOfLogName } from '../server/run-loader.js';
import { readSegmentedRuns } from '../server/segment-read.js';

/** serve's `--max-runs` default, which `graphmind import --max-runs` matches. */
export const DEFAULT_MAX_RUNS = 200;

/** Runs of each retention kind (see `RetentionKind`): what `--max-runs` counts, each kind apart. */
export type KindCounts = Record<RetentionKind, number>;

/**
 * The source of the log `file` of run `runId` as the next start reads it:
 * from its first line (its `run.started`) when that settles it, else from
 * the replay of the whole log. Undefined for a log the start would skip
 * (not a regular file, unreadable, no run in it).
 */
function logSource(file: string, runId: string): string | undefined {
  // Opened as the start opens it (a FIFO is not waited on); what it cannot read is skipped.
  const head = readRegularFile(file, (fd, stats) => startFromHead(fd, stats.size, runId));
  if (!head.ok) return undefined;
  if (head.value !== undefined) return head.value.source;
  const read = readRunLog(file, runId);
  return read.ok ? read.state?.summary.source : undefined;
}

/**
 * The runs in `<dataDir>/runs` that the next start loads, by retention
 * kind: logs of their own (the kind from each log's `run.started`) and the
 * runs kept in segments with no log of their own there (the adapter's;
 * those a segment dropped left out). `incoming`, the run about to be
 * written as a log of its own, is not counted where a segment keeps it:
 * its log will be the one loaded.
 */
export function runsByKind(dataDir: string, incoming?: string): KindCounts {
  const counts: KindCounts = { adapter: 0, session: 0 };
  const dir = join(dataDir, 'runs');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return counts;
  }
  const ownLogs = new Set<string>();
  for (const name of names) {
    const runId = runIdOfLogName(name);
    if (runId === undefined) continue;
    const source = logSource(join(dir, name), runId);
    if (source === undefined) continue;
    ownLogs.add(runId);
    counts[retentionKind(source)]++;
  }
  const segmented = readSegmentedRuns(dir, (runId) => ownLogs.has(runId) || runId === incoming).runs;
  for (const run of segmented.values()) counts[retentionKind(run.state.summary.source)]++;
  return counts;
}

/** The retention kind of a run from its own log's events: its first `run.started`'s source, as the next start reads it. */
export function importedKind(events: readonly RunEvent[]): RetentionKind {
  for (const event of events) if (event.type === 'run.started') return retentionKind(event.source);
  return retentionKind('');
}

/** How many runs of `kind` the next start deletes once one more of that kind is added to `here`, at `maxRuns`. */
export function trimmedByNextStart(here: KindCounts, kind: RetentionKind, maxRuns: number): number {
  return Math.max(0, here[kind] + 1 - maxRuns);
}

/** `3 sessions`, `1 adapter run`: runs of a kind, counted. */
function runsOf(kind: RetentionKind, count: number): string {
  const noun = kind === 'adapter' ? 'adapter run' : 'session';
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * What `graphmind import` says about retention before it writes a run of
 * retention kind `kind` into `dataDir`, which holds `here`: nothing
 * (`undefined`) when the next start trims nothing of that kind; a refusal
 * when it would and `--allow-trim` was not given; a warning when it was.
 * The other kind is named only when there are runs of it (they are
 * counted apart, and never trimmed for this one).
 */
export function retentionNotice(dataDir: string, here: KindCounts, kind: RetentionKind, maxRuns: number, allowTrim: boolean): { refuse: boolean; line: string } | undefined {
  const trimmed = trimmedByNextStart(here, kind, maxRuns);
  if (trimmed === 0) return undefined;
  const other: RetentionKind = kind === 'adapter' ? 'session' : 'adapter';
  const mine = here[kind];
  const held =
    here[other] === 0
      ? `${mine} run${mine === 1 ? '' : 's'}`
      : `${mine + here[other]} runs, ${runsOf(kind, mine).replace(/^\d+ /, `${mine} of them `)} like this one (the ${runsOf(other, here[other])} ${here[other] === 1 ? 'is' : 'are'} counted apart),`;
  const oldest = here[other] === 0 ? `the ${trimmed} oldest` : `the ${runsOf(kind, trimmed).replace(/^(\d+) /, '$1 oldest ')}`;
  const what = `${dataDir} holds ${held} and --max-runs is ${maxRuns}: with this one the next graphmind serve deletes ${oldest} (this run among them if it is older than the rest)`;
  if (!allowTrim) return { refuse: true, line: `${what}; nothing was imported. Give --allow-trim to import it anyway, or a larger --max-runs to import and to serve` };
  return { refuse: false, line: `${what} (--allow-trim)` };
}

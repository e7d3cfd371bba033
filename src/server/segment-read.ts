/**
 * Segments read back: a whole segment replayed into its runs (the start's
 * load), one run's lines read from its part of a segment (an export, a run
 * moving to a log of its own), and the runs a segment dropped. Read-only:
 * `graphmind mcp`, `export`, `replay` and `verify` reading a data directory
 * with no server running use it too.
 *
 * @module
 */
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '../protocol/ingest.js';
import { validateEvent } from '../protocol/validate-event.js';
import { RunState } from '../protocol/run-state.js';
import { expandCompletedGroup } from '../report/completed-group.js';
import { readLines } from '../export/log-lines.js';
import { droppedFileName, segmentFileName, segmentOfFileName, SEGMENTS_FOLDER } from './segment-rules.js';

/** The run a segment's line is of, and its events; undefined for a line that is not one run's events (torn, damaged). */
export function segmentLineEvents(line: Buffer): { runId: string; events: RunEvent[] } | undefined {
  let items: unknown[] | undefined;
  try {
    items = expandCompletedGroup(JSON.parse(line.toString('utf8')));
  } catch {
    return undefined;
  }
  if (items === undefined || items.length === 0) return undefined;
  const events: RunEvent[] = [];
  for (const item of items) {
    const event = validateEvent(item);
    if (event === undefined || (events.length > 0 && event.runId !== events[0]?.runId)) return undefined;
    events.push(event);
  }
  return { runId: (events[0] as RunEvent).runId, events };
}

/** A run read from a segment: its state, and where its lines are. */
export interface SegmentedRun {
  state: RunState;
  start: number;
  end: number;
}

/** A segment after {@link readSegment}. */
export interface SegmentRead {
  runs: Map<string, SegmentedRun>;
  /** Lines that are no run's events (a torn last line among them). */
  skippedLines: number;
  /** Bytes read. */
  bytes: number;
}

/**
 * Replay segment `file` into its runs, but for those `skip` says no to (a
 * run dropped, or with a log of its own). A run whose lines do not end
 * with its end was live when its server stopped: as in a log of its own
 * (see `readRunLog`), it ends in error at its last event. Throws what the
 * file system says when the file cannot be read.
 */
export function readSegment(file: string, skip: (runId: string) => boolean): SegmentRead {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  const runs = new Map<string, SegmentedRun>();
  const endedLast = new Set<string>();
  let skippedLines = 0;
  let offset = 0;
  try {
    if (!fstatSync(fd).isFile()) throw new Error('not a regular file');
    const read = readLines(fd, (line) => {
      const start = offset;
      offset += line.length + 1;
      if (line.length === 0) return;
      const found = segmentLineEvents(line);
      if (found === undefined) {
        skippedLines++;
        return;
      }
      if (skip(found.runId)) return;
      let run = runs.get(found.runId);
      for (const event of found.events) {
        run ??= { state: new RunState(found.runId, event.t), start, end: offset };
        run.state.apply(event);
        if (event.type === 'run.finished') endedLast.add(found.runId);
        else endedLast.delete(found.runId);
      }
      if (run === undefined) return;
      run.end = offset;
      runs.set(found.runId, run);
    });
    skippedLines += read.tooLong;
    for (const [runId, run] of runs) {
      if (!endedLast.has(runId)) run.state.resume();
      run.state.abandon(run.state.lastT);
    }
    return { runs, skippedLines, bytes: read.bytes };
  } finally {
    closeSync(fd);
  }
}

/**
 * The lines of run `runId` between `start` and `end` of segment `file`,
 * each with its newline, in order (the other runs' lines, and a torn last
 * line, left out).
 */
export function readRunLines(file: string, runId: string, start: number, end: number): Buffer {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  let bytes: Buffer;
  try {
    bytes = Buffer.allocUnsafe(Math.max(0, end - start));
    let got = 0;
    while (got < bytes.length) {
      const read = readSync(fd, bytes, got, bytes.length - got, start + got);
      if (read === 0) break;
      got += read;
    }
    bytes = bytes.subarray(0, got);
  } finally {
    closeSync(fd);
  }
  const id = Buffer.from(runId);
  const kept: Buffer[] = [];
  let from = 0;
  for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, from)) {
    const line = bytes.subarray(from, newline);
    // Most lines are other runs': looked at for the id before being parsed.
    if (line.indexOf(id) !== -1 && segmentLineEvents(line)?.runId === runId) kept.push(bytes.subarray(from, newline + 1));
    from = newline + 1;
  }
  return Buffer.concat(kept);
}

/** The run ids a segment dropped (its `.dropped` file); none when there is no such file. */
export function readDropped(segmentsDir: string, segment: number): Set<string> {
  let text: string;
  try {
    text = readFileSync(join(segmentsDir, droppedFileName(segment)), 'utf8');
  } catch {
    return new Set();
  }
  return new Set(text.split('\n').filter((line) => line.length > 0));
}

/** The segments in `segmentsDir`, oldest first (none when there is no such folder). */
export function listSegments(segmentsDir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(segmentsDir);
  } catch {
    return [];
  }
  return names.flatMap((name) => segmentOfFileName(name) ?? []).sort((a, b) => a - b);
}

/**
 * Every run kept in the segments of the runs' folder `runsDir` with no log
 * of its own there (that one is the run's), oldest segment first, and the
 * lines no run could use. What `graphmind mcp` and the commands reading a
 * data directory with no server running see of the segments.
 */
export function readSegmentedRuns(runsDir: string, hasOwnLog: (runId: string) => boolean): { runs: Map<string, SegmentedRun & { segment: number }>; skippedLines: number } {
  const dir = join(runsDir, SEGMENTS_FOLDER);
  const runs = new Map<string, SegmentedRun & { segment: number }>();
  let skippedLines = 0;
  for (const segment of listSegments(dir)) {
    const dropped = readDropped(dir, segment);
    let read: SegmentRead;
    try {
      read = readSegment(join(dir, segmentFileName(segment)), (runId) => dropped.has(runId) || runs.has(runId) || hasOwnLog(runId));
    } catch {
      continue;
    }
    skippedLines += read.skippedLines;
    for (const [runId, run] of read.runs) runs.set(runId, { ...run, segment });
  }
  return { runs, skippedLines };
}

/** Run `runId`'s lines from the segments of `runsDir` (with no server running), or undefined when no segment keeps it. */
export function readSegmentedRunLines(runsDir: string, runId: string): Buffer | undefined {
  const found = readSegmentedRuns(runsDir, () => false).runs.get(runId);
  if (found === undefined) return undefined;
  return readRunLines(join(runsDir, SEGMENTS_FOLDER, segmentFileName(found.segment)), runId, found.start, found.end);
}

/** What tells one state of the segments folder from the next (its files, their sizes and times); '' when there is none. */
export function segmentsVersion(runsDir: string): string {
  const dir = join(runsDir, SEGMENTS_FOLDER);
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return '';
  }
  return names
    .map((name) => {
      try {
        const stats = statSync(join(dir, name));
        return `${name}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
      } catch {
        return name;
      }
    })
    .join('|');
}

/**
 * Run `runId`'s lines from the segments of `runsDir` copied to a file of
 * their own in a temporary folder (an export reads a file), with the way
 * to remove it; undefined when no segment keeps the run.
 */
export function segmentedRunCopy(runsDir: string, runId: string): { file: string; remove(): void } | undefined {
  const lines = readSegmentedRunLines(runsDir, runId);
  if (lines === undefined) return undefined;
  const folder = mkdtempSync(join(tmpdir(), 'graphmind-run-'));
  const file = join(folder, `${runId}.jsonl`);
  writeFileSync(file, lines, { mode: 0o600 });
  return { file, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

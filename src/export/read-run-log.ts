/**
 * One run's log read back, read-only: the line reader, the expansion of
 * groups and completed runs, the event check and the replay in `RunState`.
 * The server's start-up load uses it (and then ends a torn last line on
 * disk, see `RunStore`), and so does `graphmind mcp` reading a data
 * directory with no server running, which never writes: a run read either
 * way is the same run.
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { expandCompletedGroup } from '../report/completed-group.js';
import type { RunEvent } from '../protocol/ingest.js';
import { validateEvent } from '../protocol/validate-event.js';
import { RunState } from '../protocol/run-state.js';
import { readLines } from './log-lines.js';
import { rawJsonOfText } from '../json/raw-json.js';

/** Lines at least this long have their large inputs and outputs kept as text, when asked ({@link ReadRunLogOptions.rawValues}). */
const RAW_LINE_BYTES = 1024;
/** An input or output whose JSON text is at least this long is large. */
const RAW_VALUE_CHARS = 512;

/** Options for {@link readRunLog}. */
export interface ReadRunLogOptions {
  /**
   * Keep the calls' large inputs and outputs as their JSON text outside the
   * JavaScript heap (`RawJson`, as the server's ingest keeps them), not as
   * parsed objects: what a server that keeps its runs in memory wants (the
   * garbage collector then has few objects to walk, none of them large).
   * @default false (parsed, for readers that look into them)
   */
  rawValues?: boolean;
}

/** A run log after {@link readRunLog}. */
export type RunLogRead =
  /**
   * Read: the run (undefined when the log held no event of it), how many
   * lines could not be used, and whether the file ends with a newline (a
   * torn last line does not).
   */
  | { ok: true; state: RunState | undefined; skippedLines: number; stats: Stats; endsWithNewline: boolean }
  /** Not read: why, in a few words (not a regular file, cannot open or read it). */
  | { ok: false; reason: string };

/**
 * The events one log line stands for, checked as the server checks them;
 * undefined for a line that is not such (damaged, torn, edited, another run's).
 */
export function eventsOfLine(line: Buffer, runId: string): RunEvent[] | undefined {
  let items: unknown[] | undefined;
  try {
    items = expandCompletedGroup(JSON.parse(line.toString('utf8')));
  } catch {
    return undefined;
  }
  if (items === undefined) return undefined;
  const events: RunEvent[] = [];
  for (const item of items) {
    const event = validateEvent(item);
    if (event === undefined || event.runId !== runId) return undefined;
    events.push(event);
  }
  return events;
}

/**
 * Replay the log `file` of run `runId`. Only a regular file is read (a
 * symlink to one is followed; a FIFO or a device is not waited on). A run
 * whose log does not end with its `run.finished` was live when its server
 * stopped: like the server's load, it is made live again and then
 * abandoned, so it shows as ended in `error` at its last event.
 */
export function readRunLog(file: string, runId: string, options: ReadRunLogOptions = {}): RunLogRead {
  const raw = options.rawValues === true;
  let fd: number;
  try {
    // Non-blocking: opening a FIFO would otherwise wait for a writer.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return { ok: false, reason: `cannot open it (${errorText(error)})` };
  }
  try {
    const stats = fstatSync(fd);
    // A device would never end (/dev/zero), a FIFO never start.
    if (!stats.isFile()) return { ok: false, reason: `it is ${fileKind(stats)}, not a regular file` };
    let state: RunState | undefined;
    let skippedLines = 0;
    let endedLast = false;
    const read = readLines(fd, (line) => {
      if (line.length === 0) return;
      const events = eventsOfLine(line, runId);
      if (events === undefined || events.length === 0) {
        skippedLines++;
        return;
      }
      for (const event of events) {
        if (raw && line.length >= RAW_LINE_BYTES) keepLargeValuesRaw(event);
        state ??= new RunState(runId, event.t);
        state.apply(event);
        endedLast = event.type === 'run.finished';
      }
    });
    skippedLines += read.tooLong;
    const run = state as RunState | undefined;
    if (run !== undefined) {
      if (!endedLast) run.resume();
      run.abandon(run.lastT);
    }
    return { ok: true, state: run, skippedLines, stats, endsWithNewline: read.endsWithNewline };
  } catch (error) {
    return { ok: false, reason: `cannot read it (${errorText(error)})` };
  } finally {
    closeSync(fd);
  }
}

/** An event's input and output, when large objects or arrays, as their text ({@link ReadRunLogOptions.rawValues}). */
function keepLargeValuesRaw(event: RunEvent): void {
  const values = event as { input?: unknown; output?: unknown };
  for (const key of ['input', 'output'] as const) {
    const value = values[key];
    if (typeof value !== 'object' || value === null) continue;
    const text = JSON.stringify(value);
    if (text.length >= RAW_VALUE_CHARS) values[key] = rawJsonOfText(text);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What a file that is not a regular file is, for a warning. */
function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'something else';
}

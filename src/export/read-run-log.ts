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
import type { Stats } from 'node:fs';
import { expandCompletedGroup } from '../report/completed-group.js';
import type { RunEvent } from '../protocol/ingest.js';
import { validateEvent } from '../protocol/validate-event.js';
import { RunState } from '../protocol/run-state.js';
import { readLines } from './log-lines.js';
import { readRegularFile } from './regular-file.js';
import { RawJson } from '../json/raw-json.js';
import { jsonValueEnd } from '../json/strict-json.js';

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
  const read = readRegularFile(file, (fd, stats): RunLogRead => {
    let state: RunState | undefined;
    let skippedLines = 0;
    let endedLast = false;
    const lines = readLines(fd, (line) => {
      if (line.length === 0) return;
      const events = eventsOfLine(line, runId);
      if (events === undefined || events.length === 0) {
        skippedLines++;
        return;
      }
      for (const event of events) {
        if (raw && events.length === 1 && line.length >= RAW_LINE_BYTES) keepLargeValuesRaw(event, line);
        state ??= new RunState(runId, event.t);
        state.apply(event);
        endedLast = event.type === 'run.finished';
      }
    });
    skippedLines += lines.tooLong;
    const run = state as RunState | undefined;
    if (run !== undefined) {
      if (!endedLast) run.resume();
      run.abandon(run.lastT);
    }
    return { ok: true, state: run, skippedLines, stats, endsWithNewline: lines.endsWithNewline };
  });
  return read.ok ? read.value : read;
}

const TYPE_KEY = Buffer.from('"type"');
const INPUT_KEY = Buffer.from('"input"');
const OUTPUT_KEY = Buffer.from('"output"');

/**
 * An event's input and output, when large, as their JSON text
 * ({@link ReadRunLogOptions.rawValues}): the bytes of its log line (which
 * `JSON.parse` read them from), copied. Only for a line that is the event
 * itself (its `type` is the event's, not a group's); a value written
 * another way than the scan expects stays parsed.
 */
function keepLargeValuesRaw(event: RunEvent, line: Buffer): void {
  const ranges = topLevelRanges(line);
  if (ranges === undefined || ranges.type === undefined || line.toString('utf8', ranges.type[0], ranges.type[1]) !== JSON.stringify(event.type)) return;
  const values = event as { input?: unknown; output?: unknown };
  for (const [key, range] of [['input', ranges.input], ['output', ranges.output]] as const) {
    if (range === undefined || range[1] - range[0] < RAW_VALUE_CHARS || typeof values[key] !== 'object' || values[key] === null) continue;
    const bytes = Buffer.from(line.subarray(range[0], range[1]));
    values[key] = new RawJson(bytes, 0, bytes.length);
  }
}

type Range = [number, number];

/** Where a line's top-level `type`, `input` and `output` values are (the last of each, as `JSON.parse` keeps); undefined for a line that is not one object. */
function topLevelRanges(line: Buffer): { type?: Range; input?: Range; output?: Range } | undefined {
  const end = line.length;
  const found: { type?: Range; input?: Range; output?: Range } = {};
  let k = skipSpace(line, 0);
  if (line[k] !== 0x7b) return undefined;
  k = skipSpace(line, k + 1);
  if (line[k] === 0x7d) return found;
  for (;;) {
    const keyStart = k;
    const keyEnd = line[k] === 0x22 ? jsonValueEnd(line, k, end) : -1;
    if (keyEnd === -1) return undefined;
    k = skipSpace(line, keyEnd);
    if (line[k] !== 0x3a) return undefined;
    const valueStart = skipSpace(line, k + 1);
    const valueEnd = jsonValueEnd(line, valueStart, end);
    if (valueEnd === -1) return undefined;
    const key = line.subarray(keyStart, keyEnd);
    if (key.equals(TYPE_KEY)) found.type = [valueStart, valueEnd];
    else if (key.equals(INPUT_KEY)) found.input = [valueStart, valueEnd];
    else if (key.equals(OUTPUT_KEY)) found.output = [valueStart, valueEnd];
    k = skipSpace(line, valueEnd);
    if (line[k] === 0x7d) return found;
    if (line[k] !== 0x2c) return undefined;
    k = skipSpace(line, k + 1);
  }
}

function skipSpace(line: Buffer, at: number): number {
  let k = at;
  while (k < line.length && (line[k] === 0x20 || line[k] === 0x0a || line[k] === 0x0d || line[k] === 0x09)) k++;
  return k;
}

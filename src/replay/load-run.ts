/**
 * A recorded run read from a file: a run log (what `graphmind export
 * --format jsonl` writes, and what the debugger keeps per run), or an
 * mcp-recorder cassette. A log line that is not an event of the run (a
 * torn last line, a damaged one) is skipped, as the debugger skips it.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { readLines } from '../export/log-lines.js';
import { eventsOfLine } from '../export/read-run-log.js';
import { runIdOfLine } from '../export/log-replay.js';
import { readRegularFile } from '../export/regular-file.js';
import { setImmediate as nextTurn } from 'node:timers';
import { HIDDEN } from '../report/hide.js';
import { isCassette, runOfCassette } from './cassette.js';
import { CallsOfEvents, NOT_RECORDED_KEY } from './calls-of-events.js';
import type { RecordedCall, RecordedRun, RunReading } from './recorded-run.js';

/** A file read as a recorded run, or why it could not be. */
export type LoadedRun = { ok: true; run: RecordedRun; skippedLines: number } | { ok: false; reason: string };

/** Lines of a run log folded into calls: what was read, and how many lines were not events of the run. */
class LogFold {
  readonly calls = new CallsOfEvents();
  runId: string | undefined;
  skippedLines = 0;
  lines = 0;
  events = 0;
  firstLine: string | undefined;

  line(line: Buffer): void {
    if (line.length === 0) return;
    this.lines++;
    if (this.lines === 1) this.firstLine = line.subarray(0, 64).toString('utf8');
    this.runId ??= runIdOfLine(line);
    const found = this.runId === undefined ? undefined : eventsOfLine(line, this.runId);
    if (found === undefined || found.length === 0) {
      this.skippedLines++;
      return;
    }
    for (const event of found) this.calls.apply(event);
    this.events += found.length;
  }

  /** The run, or undefined when no line was an event of one. */
  done(label: string | undefined, fallback: string): LoadedRun | undefined {
    if (this.events === 0) return undefined;
    return { ok: true, run: this.calls.run(label ?? this.runId ?? fallback), skippedLines: this.skippedLines };
  }
}

const NOT_A_RUN = 'it is not a run log (no line is an event of a run) nor an mcp-recorder cassette';

/** A run log given whole (as the debugger's API exports it). */
export function loadRunFromBytes(body: Buffer, label: string): LoadedRun {
  const fold = new LogFold();
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf(0x0a, start);
    if (end === -1) end = body.length;
    fold.line(body.subarray(start, end));
    start = end + 1;
  }
  return fold.done(label, label) ?? { ok: false, reason: NOT_A_RUN };
}

/** Read `file` (see the module). `label` names it in lines (default: the run id, or the file). */
export function loadRun(file: string, label?: string): LoadedRun {
  const read = readRegularFile(
    file,
    (fd): LoadedRun => {
      const fold = new LogFold();
      const lines = readLines(fd, (line) => fold.line(line));
      fold.skippedLines += lines.tooLong;
      const loaded = fold.done(label, file);
      if (loaded !== undefined) return loaded;
      // No event: a cassette (one JSON document), or not a run at all.
      if (fold.firstLine?.trimStart().startsWith('{') === true) return loadCassette(file, label);
      return { ok: false, reason: NOT_A_RUN };
    },
    { nameKind: false },
  );
  return read.ok ? read.value : read;
}

/** Largest log read a slice at a time (it is held whole in memory meanwhile); a larger one is read whole first. */
const SLICED_MAX_BYTES = 64 * 1024 * 1024;
/** Longest stretch of reading between two turns of the event loop, ms. */
const SLICE_MS = 8;

/**
 * Start reading the run log `file`, for a replay that answers while the
 * rest is read: the first slice is read now, the rest by
 * {@link RunReading.readRest}. A log that names a value the recording
 * lacks (hidden, too large: its marker is in the bytes), a large one, or a
 * file that is not a run log is read whole first, as {@link loadRun} reads
 * it (a replay must refuse the first before it answers anything).
 */
export function startLoadRun(file: string, label?: string): { ok: true; reading: RunReading } | LoadedRun {
  // Whatever cannot be read here is read again by loadRun, which says why.
  const whole = readRegularFile(file, (fd, stats) => (stats.size > SLICED_MAX_BYTES ? undefined : readFileSync(fd)));
  if (!whole.ok || whole.value === undefined) return loadRun(file, label);
  const bytes = whole.value;
  if (bytes.includes(JSON.stringify(HIDDEN)) || bytes.includes(JSON.stringify(NOT_RECORDED_KEY))) return loadRun(file, label);
  const fold = new LogFold();
  let at = 0;
  /** Fold lines until `deadline` (ms, performance.now()); true when the bytes are all read. */
  const slice = (deadline: number): boolean => {
    let lines = 0;
    while (at < bytes.length) {
      let end = bytes.indexOf(0x0a, at);
      if (end === -1) end = bytes.length;
      fold.line(bytes.subarray(at, end));
      at = end + 1;
      if (++lines % 64 === 0 && performance.now() > deadline) return at >= bytes.length;
    }
    return true;
  };
  const done = slice(performance.now() + SLICE_MS);
  if (done || fold.events === 0) {
    const loaded = fold.done(label, file);
    if (loaded?.ok === true) return { ok: true, reading: { run: loaded.run, readRest: (told) => told(true) } };
    return loadRun(file, label);
  }
  // The run a replay answers from holds the calls read with their answers: one whose answer is further on waits for it.
  const all = fold.calls.calls;
  const run: RecordedRun = { label: label ?? fold.runId ?? file, calls: all.slice(0, fold.calls.settled), missing: [] };
  const readRest = (told: (complete: boolean) => void): void => {
    const step = (): void => {
      const complete = slice(performance.now() + SLICE_MS);
      const upTo = complete ? all.length : fold.calls.settled;
      for (let i = run.calls.length; i < upTo; i++) run.calls.push(all[i] as RecordedCall);
      if (complete) run.missing = fold.calls.run(run.label).missing;
      told(complete);
      if (!complete) nextTurn(step);
    };
    nextTurn(step);
  };
  return { ok: true, reading: { run, readRest } };
}

function loadCassette(file: string, label: string | undefined): LoadedRun {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { ok: false, reason: `${NOT_A_RUN} (not JSON)` };
  }
  if (!isCassette(value)) return { ok: false, reason: `${NOT_A_RUN} (no version and interactions)` };
  const read = runOfCassette(value, label ?? file);
  return read.ok ? { ok: true, run: read.run, skippedLines: 0 } : read;
}

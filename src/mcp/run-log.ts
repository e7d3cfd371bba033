/**
 * One run's log read back, read-only: the server's own pieces (the line
 * reader, the group expansion, the event check and the replay in
 * `RunState`) applied the way its start-up load applies them, so a run
 * read here is the run the server would serve after a restart. Unlike the
 * server this never writes: a torn last line is skipped (or applied, when
 * it happens to be whole JSON) without being ended on disk.
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { expandCompletedGroup } from '../report/completed-group.js';
import type { RunEvent } from '../report/events.js';
import { readLines } from '../server/log-lines.js';
import { RunState } from '../server/run-state.js';
import { validateEvent } from '../server/validate-event.js';

/** A run log after {@link readRunLog}. */
export type RunLogRead =
  /** Read: the run (undefined when the log held no event of it) and how many lines could not be used. */
  | { ok: true; state: RunState | undefined; skippedLines: number; stats: Stats }
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
export function readRunLog(file: string, runId: string): RunLogRead {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO would otherwise wait for a writer.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return { ok: false, reason: `cannot open it (${errorText(error)})` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, reason: 'it is not a regular file' };
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
    return { ok: true, state: run, skippedLines, stats };
  } catch (error) {
    return { ok: false, reason: `cannot read it (${errorText(error)})` };
  } finally {
    closeSync(fd);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

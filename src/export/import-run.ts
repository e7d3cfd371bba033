/**
 * A run log someone sent you, checked before it is loaded: every line an
 * event of one run (as the server checks what it loads), the first of
 * them its `run.started`. `graphmind import` and the server's
 * `POST /api/runs/import` both read a log this way.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { RUN_ID_PATTERN } from '../protocol/run-model.js';
import type { RunEvent } from '../protocol/ingest.js';
import { LogReplay } from './log-replay.js';

/** A log ready to load. */
export interface ImportedLog {
  runId: string;
  /** Every event, in order (a group of calls as its calls). */
  events: RunEvent[];
  /** The log's lines, without their newlines (the ones that hold events). */
  lines: Buffer[];
  /** Lines that were not events of the run (damaged, or another run's): left out, as the server's load leaves them. */
  skippedLines: number;
  /** Did the log end with the run's end? */
  ended: boolean;
}

/** Split bytes into lines (without their newlines); a last line without one counts too. */
export function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (;;) {
    const end = bytes.indexOf(0x0a, start);
    if (end === -1) break;
    lines.push(bytes.subarray(start, end));
    start = end + 1;
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
}

/** Read a run log for an import: the log, or what is wrong with it (one line). */
export function readImport(bytes: Buffer): ImportedLog | string {
  const replay = new LogReplay();
  const events: RunEvent[] = [];
  const kept: Buffer[] = [];
  replay.onEvent = (event) => events.push(event);
  for (const line of splitLines(bytes)) {
    const before = events.length;
    replay.line(line);
    if (events.length > before) kept.push(line);
  }
  const runId = replay.runId;
  if (runId === undefined || events.length === 0) return 'this is not a GraphMind run log (no line of it is a run event)';
  if (!RUN_ID_PATTERN.test(runId)) return `the run id in this log is not one GraphMind takes: ${JSON.stringify(runId.slice(0, 80))}`;
  if (events[0]?.type !== 'run.started') return 'this run log does not begin with the run\'s start (run.started): it is a part of a log, not a whole one';
  return { runId, events, lines: kept, skippedLines: replay.skippedLines, ended: replay.endedLast };
}

/** A fresh run id for an imported run (`--new-id`): `imp_<time>_<random>`. */
export function newImportId(): string {
  return `imp_${Date.now().toString(36)}_${randomBytes(9).toString('base64url')}`;
}

/**
 * The log under another run id: each event with `runId` replaced, one per
 * line (a group of calls comes out as its calls).
 */
export function renamed(log: ImportedLog, runId: string): ImportedLog {
  const events = log.events.map((event) => ({ ...event, runId }));
  return { ...log, runId, events, lines: events.map((event) => Buffer.from(JSON.stringify(event))) };
}

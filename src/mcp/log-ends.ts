/**
 * A run's summary from the two ends of its log, read-only: the first line
 * (the run's `run.started`: name, source, start) and the last (its
 * `run.finished`: status, end). Listing a data directory of 10,000 runs
 * must not replay 10,000 logs; a log whose ends do not settle the summary
 * is left to the caller, who replays it whole.
 *
 * The server writes a log's line only for an event it applied, so a log
 * that ends with its `run.finished` ended there, with that status; and
 * the first `run.started` (with a sequence number) is the one that named
 * the run. Anything else (a damaged or torn end, a run that never
 * finished, a first line that is not its start) is not settled here.
 *
 * @module
 */
import { readSync } from 'node:fs';
import type { RunEvent, RunStartedEvent } from '../protocol/ingest.js';
import type { RunSummary } from '../protocol/run-model.js';
import { isoTime } from '../protocol/run-replay.js';
import { eventsOfLine } from '../export/read-run-log.js';

/** Bytes read at each end of a log: far more than a `run.started` or a `run.finished` takes. */
export const END_BYTES = 8 * 1024;

const NEWLINE = 0x0a;

/** The read buffer, made once: listing reads thousands of logs, one at a time. */
let shared: Buffer | undefined;

/**
 * The `run.started` that named run `runId`, from the first line of the log
 * open at `fd` (`size` bytes long), or undefined when that line is not one
 * (or is longer than {@link END_BYTES}). Also how many bytes of the log's
 * head it read into the shared buffer. Reading errors are thrown.
 */
function readHead(fd: number, size: number, runId: string): { first: RunStartedEvent | undefined; headBytes: number; buffer: Buffer } {
  const buffer = (shared ??= Buffer.allocUnsafe(2 * END_BYTES));
  if (size === 0) return { first: undefined, headBytes: 0, buffer };
  const headBytes = readFully(fd, buffer, 0, Math.min(size, END_BYTES), 0);
  const head = firstLine(buffer.subarray(0, headBytes), headBytes === size);
  const first = head === undefined ? undefined : eventsOfLine(head, runId)?.[0];
  return { first: first !== undefined && first.type === 'run.started' && first.seq !== 0 ? first : undefined, headBytes, buffer };
}

/**
 * The `run.started` that named run `runId` (its name, source and start),
 * read from the first line of the log open at `fd` (`size` bytes long, as
 * its fstat said) alone; undefined when that line does not settle it (the
 * caller replays the log). Reading errors are thrown to the caller.
 */
export function startFromHead(fd: number, size: number, runId: string): RunStartedEvent | undefined {
  return readHead(fd, size, runId).first;
}

/**
 * The summary of run `runId` from the log open at `fd` (`size` bytes
 * long, as its fstat said), or undefined when its ends do not settle it.
 * Reading errors are thrown to the caller.
 */
export function summaryFromEnds(fd: number, size: number, runId: string): RunSummary | undefined {
  const { first, headBytes, buffer } = readHead(fd, size, runId);
  if (first === undefined) return undefined;
  let tailBytes: Buffer;
  if (size <= END_BYTES) {
    tailBytes = buffer.subarray(0, headBytes);
  } else {
    const start = Math.max(END_BYTES, size - END_BYTES);
    const read = readFully(fd, buffer, END_BYTES, size - start, start);
    tailBytes = buffer.subarray(END_BYTES, END_BYTES + read);
  }
  const tail = lastLine(tailBytes, size <= END_BYTES);
  if (tail === undefined) return undefined;
  const events = eventsOfLine(tail, runId);
  const last: RunEvent | undefined = events?.[events.length - 1];
  if (last === undefined || last.type !== 'run.finished') return undefined;
  return { runId, name: first.name, source: first.source, status: last.status, startedAt: isoTime(first.t), endedAt: isoTime(last.t) };
}

/** Read `length` bytes at `position` into `buffer` at `offset` (fewer only at the file's end); how many were read. */
function readFully(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const read = readSync(fd, buffer, offset + done, length - done, position + done);
    if (read === 0) break;
    done += read;
  }
  return done;
}

/**
 * The first line that is not empty (empty lines are skipped as the log's
 * reader skips them); undefined if it may go on past `bytes` (`whole`:
 * `bytes` is the whole file, so its last line ends at its end).
 */
function firstLine(bytes: Buffer, whole: boolean): Buffer | undefined {
  let start = 0;
  for (;;) {
    const newline = bytes.indexOf(NEWLINE, start);
    if (newline === -1) return whole && start < bytes.length ? bytes.subarray(start) : undefined;
    if (newline > start) return bytes.subarray(start, newline);
    start = newline + 1;
  }
}

/**
 * The last line that is not empty, newline or not (a torn last line is
 * read too, as the log's reader reads it); undefined if it may begin
 * before `bytes` (`whole`: `bytes` starts at the file's start).
 */
function lastLine(bytes: Buffer, whole: boolean): Buffer | undefined {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === NEWLINE) end--;
  if (end === 0) return undefined;
  const newline = bytes.lastIndexOf(NEWLINE, end - 1);
  if (newline === -1) return whole ? bytes.subarray(0, end) : undefined;
  return bytes.subarray(newline + 1, end);
}

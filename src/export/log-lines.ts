import { readSync } from 'node:fs';
import { constants } from 'node:buffer';

/** Bytes read from a log at a time when loading it: what a log costs in memory, besides its longest line. */
export const LOG_READ_CHUNK_BYTES = 4 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * The read buffer of the default size, made once and lent to one call at a
 * time: a start that loads thousands of small logs must not allocate 4 MiB
 * for each of them.
 */
let shared: Buffer | undefined;
let sharedInUse = false;

/** Options for {@link readLines}. */
export interface ReadLinesOptions {
  /** Bytes read at a time. @default 4194304 (4 MiB, {@link LOG_READ_CHUNK_BYTES}) */
  chunkBytes?: number;
  /**
   * Longer lines are not kept but counted in `tooLong`: no string could hold
   * one. @default buffer.constants.MAX_STRING_LENGTH
   */
  maxLineBytes?: number;
}

/** What {@link readLines} found besides the lines. */
export interface ReadLinesResult {
  /** Bytes read. */
  bytes: number;
  /** False when the last line has no newline (a torn write): it was handed on all the same. */
  endsWithNewline: boolean;
  /** Lines longer than `maxLineBytes`, skipped. */
  tooLong: number;
}

/**
 * Read the file open at `fd` from its start to its end, a chunk at a time,
 * and call `onLine` with each line, without its newline. The buffer handed
 * over is valid only during the call. A last line without a newline is
 * handed on too. Memory stays bounded by the chunk and the longest line,
 * whatever the file's size: a whole log read into one string fails past
 * V8's string limit (about 512 MiB).
 *
 * Reading errors are thrown to the caller.
 */
export function readLines(fd: number, onLine: (line: Buffer) => void, options: ReadLinesOptions = {}): ReadLinesResult {
  const chunkBytes = Math.max(1, options.chunkBytes ?? LOG_READ_CHUNK_BYTES);
  const maxLineBytes = options.maxLineBytes ?? constants.MAX_STRING_LENGTH;
  // Borrow the shared buffer when it fits and is free (a caller's onLine could read another log).
  const borrow = chunkBytes === LOG_READ_CHUNK_BYTES && !sharedInUse;
  const chunk = borrow ? (shared ??= Buffer.allocUnsafe(chunkBytes)) : Buffer.allocUnsafe(chunkBytes);
  if (borrow) sharedInUse = true;
  try {
    return readInto(fd, chunk, onLine, maxLineBytes);
  } finally {
    if (borrow) sharedInUse = false;
  }
}

function readInto(fd: number, chunk: Buffer, onLine: (line: Buffer) => void, maxLineBytes: number): ReadLinesResult {
  const chunkBytes = chunk.length;
  /** The start of the current line, from earlier chunks (copies: the chunk is reused). */
  let pieces: Buffer[] = [];
  let piecesBytes = 0;
  /** The current line is too long: drop it up to its newline. */
  let dropping = false;
  let tooLong = 0;
  let bytes = 0;
  for (;;) {
    const read = readSync(fd, chunk, 0, chunkBytes, bytes);
    if (read === 0) break;
    bytes += read;
    // Only the bytes just read: what lies past them is an earlier read's (or nothing's).
    const filled = read === chunkBytes ? chunk : chunk.subarray(0, read);
    let start = 0;
    for (;;) {
      const newline = filled.indexOf(NEWLINE, start);
      if (newline === -1) break;
      const length = piecesBytes + newline - start;
      if (dropping || length > maxLineBytes) {
        tooLong++;
      } else if (pieces.length === 0) {
        onLine(filled.subarray(start, newline));
      } else {
        // Joined once, when the line is whole: not once per chunk.
        onLine(Buffer.concat([...pieces, filled.subarray(start, newline)]));
      }
      pieces = [];
      piecesBytes = 0;
      dropping = false;
      start = newline + 1;
    }
    if (start < read && !dropping) {
      piecesBytes += read - start;
      if (piecesBytes > maxLineBytes) {
        dropping = true;
        pieces = [];
      } else {
        pieces.push(Buffer.from(filled.subarray(start, read)));
      }
    }
  }
  const torn = dropping || piecesBytes > 0;
  if (dropping) tooLong++;
  else if (torn) onLine(pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces));
  return { bytes, endsWithNewline: !torn, tooLong };
}

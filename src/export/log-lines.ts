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
  const splitter = new LineSplitter(onLine, maxLineBytes);
  let bytes = 0;
  for (;;) {
    const read = readSync(fd, chunk, 0, chunk.length, bytes);
    if (read === 0) break;
    bytes += read;
    // Only the bytes just read: what lies past them is an earlier read's (or nothing's).
    splitter.push(read === chunk.length ? chunk : chunk.subarray(0, read));
  }
  const { endsWithNewline, tooLong } = splitter.end();
  return { bytes, endsWithNewline, tooLong };
}

/**
 * Cuts bytes pushed a chunk at a time into lines: the one rule of
 * {@link readLines} and of the exports' reader (export-pump.ts), which
 * reads without blocking. Each line is handed to `onLine` without its
 * newline, valid only during the call; a line longer than `maxLineBytes`
 * is dropped up to its newline and counted.
 */
export class LineSplitter {
  /** The start of the current line, from earlier chunks (copies: a chunk is reused). */
  #pieces: Buffer[] = [];
  #piecesBytes = 0;
  /** The current line is too long: drop it up to its newline. */
  #dropping = false;
  #tooLong = 0;
  readonly #onLine: (line: Buffer) => void;
  readonly #maxLineBytes: number;

  /** @param maxLineBytes - longer lines are counted, not kept (default: the longest string V8 makes) */
  constructor(onLine: (line: Buffer) => void, maxLineBytes: number = constants.MAX_STRING_LENGTH) {
    this.#onLine = onLine;
    this.#maxLineBytes = maxLineBytes;
  }

  /** Bytes of the line begun and not yet ended. */
  get partialBytes(): number {
    return this.#piecesBytes;
  }

  /**
   * Take the next bytes; `stop` (asked after each line) ends the chunk
   * early, returning where it stopped (the bytes after it are not taken).
   * Returns the bytes taken.
   */
  push(filled: Buffer, stop?: () => boolean): number {
    let start = 0;
    for (;;) {
      const newline = filled.indexOf(NEWLINE, start);
      if (newline === -1) break;
      const length = this.#piecesBytes + newline - start;
      if (this.#dropping || length > this.#maxLineBytes) {
        this.#tooLong++;
      } else if (this.#pieces.length === 0) {
        this.#onLine(filled.subarray(start, newline));
      } else {
        // Joined once, when the line is whole: not once per chunk.
        this.#onLine(Buffer.concat([...this.#pieces, filled.subarray(start, newline)]));
      }
      this.#pieces = [];
      this.#piecesBytes = 0;
      this.#dropping = false;
      start = newline + 1;
      if (stop?.() === true) return start;
    }
    if (start < filled.length && !this.#dropping) {
      this.#piecesBytes += filled.length - start;
      if (this.#piecesBytes > this.#maxLineBytes) {
        this.#dropping = true;
        this.#pieces = [];
      } else {
        this.#pieces.push(Buffer.from(filled.subarray(start)));
      }
    }
    return filled.length;
  }

  /** No more bytes: a last line without a newline (a torn write) is handed on too. */
  end(): { endsWithNewline: boolean; tooLong: number } {
    const torn = this.#dropping || this.#piecesBytes > 0;
    if (this.#dropping) this.#tooLong++;
    else if (torn) this.#onLine(this.#pieces.length === 1 ? (this.#pieces[0] as Buffer) : Buffer.concat(this.#pieces));
    this.#pieces = [];
    this.#piecesBytes = 0;
    this.#dropping = false;
    return { endsWithNewline: !torn, tooLong: this.#tooLong };
  }
}

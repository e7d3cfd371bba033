/**
 * The exports' reader and writer: a run log read a chunk at a time
 * without blocking (asynchronous reads, lines cut by the one
 * {@link LineSplitter}), each line handed to a consumer, and what the
 * consumer made written to a stream as it goes, honouring its
 * backpressure. The work is done in slices of at most {@link SLICE_MS}
 * between two turns of the event loop, so that a debugger exporting a run
 * of gigabytes still answers everything else; it stops as soon as the
 * stream closes (the client went away) or the consumer has its snapshot.
 *
 * @module
 */
import { open, type FileHandle } from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import type { Writable } from 'node:stream';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { LineSplitter } from './log-lines.js';

/** Longest stretch of work between two turns of the event loop, ms. */
export const SLICE_MS = 20;
/** Bytes read at a time. */
const CHUNK_BYTES = 1024 * 1024;
/** Output pieces shorter than this are joined before they are written. */
const JOIN_BYTES = 64 * 1024;
/** How often the end of a log is looked at again while the snapshot waits for lines still being written, ms. */
const POLL_MS = 20;

/** The stream went away (the client closed the connection) before the export ended. */
export class ExportAborted extends Error {
  constructor() {
    super('the export was abandoned: its reader went away');
  }
}

/** What the pump reads for: one call per line, and what it has to write. */
export interface LineConsumer {
  /** Take one line (without its newline); true when the snapshot is complete (read no further). */
  line(line: Buffer): boolean;
  /** Text (or bytes) made since the last call, to be written (the consumer forgets it). */
  take(): Array<string | Buffer>;
  /**
   * At the end of the file: should the pump wait for more lines (the run's
   * log is still being written up to the snapshot)? Asked each time the
   * end is reached; the pump stops waiting after `waitMs` without growth.
   */
  wantsMore(): boolean;
  /**
   * Do work put off because the slice was used up (output not made yet),
   * until `performance.now()` passes `until`, which is also the end of the
   * slice for the lines that follow; true while some is left.
   */
  work?(until: number): boolean;
  /** Work was put off: take no more lines until {@link LineConsumer.work} has done it. */
  readonly behind?: boolean;
}

/** Where the output goes: a stream, opened (headers sent) only when the first byte is written. */
export interface ExportSink {
  stream: Writable;
  /** Called once, before the first write. */
  start?: () => void;
}

/** What {@link pumpLog} read. */
export interface PumpResult {
  /** Bytes of the log taken. */
  bytes: number;
  /** Lines too long to keep (counted, skipped). */
  tooLong: number;
}

/** Open `file` to read: a regular file only (a FIFO or a device is not waited on, nor read for ever). */
export async function openLog(file: string): Promise<FileHandle | string> {
  let handle: FileHandle;
  try {
    handle = await open(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  } catch (error) {
    return `cannot open it (${error instanceof Error ? error.message : String(error)})`;
  }
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    return 'it is not a regular file';
  }
  return handle;
}

/** Writes to a sink, a slice at a time, waiting while it is full, failing once it is gone. */
export class SinkWriter {
  readonly #sink: ExportSink;
  #started = false;
  #gone = false;
  /** Bytes written. */
  written = 0;

  constructor(sink: ExportSink) {
    this.#sink = sink;
    const stream = sink.stream;
    const gone = (): void => {
      this.#gone = true;
    };
    stream.once('close', gone);
    stream.once('error', gone);
  }

  /** Has anything been written (the headers sent)? */
  get started(): boolean {
    return this.#started;
  }

  /** Write `pieces` (joined when small), waiting for the stream to drain when it asks to. */
  async write(pieces: ReadonlyArray<string | Buffer>): Promise<void> {
    let batch: Array<string | Buffer> = [];
    let batchLength = 0;
    for (const piece of pieces) {
      if (piece.length === 0) continue;
      if (batchLength + piece.length < JOIN_BYTES) {
        batch.push(piece);
        batchLength += piece.length;
        continue;
      }
      if (batch.length > 0) await this.#one(joined(batch));
      batch = [];
      batchLength = 0;
      if (piece.length < JOIN_BYTES) {
        batch.push(piece);
        batchLength = piece.length;
      } else {
        await this.#one(piece);
      }
    }
    if (batch.length > 0) await this.#one(joined(batch));
  }

  /** Open the sink without writing (an export of nothing). */
  begin(): void {
    if (this.#started) return;
    this.#started = true;
    this.#sink.start?.();
  }

  async #one(chunk: string | Buffer): Promise<void> {
    if (this.#gone) throw new ExportAborted();
    this.begin();
    const stream = this.#sink.stream;
    this.written += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (stream.write(chunk)) return;
    await new Promise<void>((resolve, reject) => {
      const done = (): void => {
        stream.off('drain', done);
        stream.off('close', fail);
        resolve();
      };
      const fail = (): void => {
        stream.off('drain', done);
        reject(new ExportAborted());
      };
      stream.once('drain', done);
      stream.once('close', fail);
    });
  }
}

/** Small pieces as one chunk: text joined, or bytes when any piece is bytes. */
function joined(batch: ReadonlyArray<string | Buffer>): string | Buffer {
  if (batch.length === 1) return batch[0] as string | Buffer;
  if (batch.every((piece) => typeof piece === 'string')) return batch.join('');
  return Buffer.concat(batch.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece)));
}

/**
 * Between two slices: a turn of the event loop, then the consumer's work
 * put off, a slice at a time, each written as it is made. Returns when the
 * slice that is left began.
 */
export async function catchUp(consumer: LineConsumer, writer: SinkWriter): Promise<number> {
  for (;;) {
    await nextTurn();
    const sliceStart = performance.now();
    const more = consumer.work?.(sliceStart + SLICE_MS) === true;
    await writer.write(consumer.take());
    if (!more) return sliceStart;
  }
}

/** Options for {@link pumpLog}. */
export interface PumpOptions {
  /** How long to wait at the end of the log for lines still being written, ms. @default 5000 */
  waitMs?: number;
}

/**
 * Read `handle` from its start, a line at a time, into `consumer`, and
 * write what it makes to `writer`; until the consumer has its snapshot or
 * the log ends (and the consumer wants no more). A torn last line is
 * handed on, as at a server's start.
 */
export async function pumpLog(handle: FileHandle, consumer: LineConsumer, writer: SinkWriter, options: PumpOptions = {}): Promise<PumpResult> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let done = false;
  const splitter = new LineSplitter((line) => {
    if (consumer.line(line)) done = true;
  });
  /** The next byte to read. */
  let offset = 0;
  let rest = chunk.subarray(0, 0);
  let sliceStart = performance.now();
  let waited = 0;
  const waitMs = options.waitMs ?? 5000;
  // A chunk's lines stop when the snapshot is complete, when the consumer is behind, or when the slice is used up.
  const stop = (): boolean => done || consumer.behind === true || performance.now() - sliceStart > SLICE_MS;
  consumer.work?.(sliceStart + SLICE_MS);
  while (!done) {
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, offset);
    if (bytesRead === 0) {
      if (!consumer.wantsMore() || waited >= waitMs) break;
      await writer.write(consumer.take());
      await sleep(POLL_MS);
      waited += POLL_MS;
      continue;
    }
    waited = 0;
    offset += bytesRead;
    rest = chunk.subarray(0, bytesRead);
    while (rest.length > 0 && !done) {
      rest = rest.subarray(splitter.push(rest, stop));
      await writer.write(consumer.take());
      if (performance.now() - sliceStart > SLICE_MS || consumer.behind === true) sliceStart = await catchUp(consumer, writer);
    }
  }
  const tooLong = done ? 0 : splitter.end().tooLong;
  await writer.write(consumer.take());
  return { bytes: offset - rest.length - (done ? splitter.partialBytes : 0), tooLong };
}

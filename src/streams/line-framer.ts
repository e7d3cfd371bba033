import { Transform, type TransformCallback } from 'node:stream';
import { newFrame, type Direction, type Frame, type FrameBatch } from './frame.js';

/** 64 MiB: the default frame-assembly ceiling. */
export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;
/** 64 KiB: a line still incomplete past this may be relayed in pieces. */
export const DEFAULT_STREAM_LINES_OVER = 64 * 1024;
/** 1 MiB: a line relayed in pieces keeps its bytes up to this length. */
export const DEFAULT_KEEP_STREAMED_BYTES = 1024 * 1024;
/** What is kept of a longer streamed line: its first bytes. */
const STREAMED_HEAD_BYTES = 4096;
const EMPTY = Buffer.alloc(0);

/** Options for {@link LineFramer}. */
export interface LineFramerOptions {
  /** Which way the frames travel; stamped on every frame. */
  direction: Direction;
  /**
   * Largest line assembled into a frame. A line that grows past it switches
   * the framer to raw mode for the rest of the stream: bytes keep flowing as
   * `raw` frames, nothing is parsed any more.
   * @default 67108864 (64 MiB)
   */
  maxFrameBytes?: number;
  /**
   * How many frames may wait in the readable buffer before the framer stops
   * pulling from its source.
   * @default 16
   */
  highWaterMark?: number;
  /**
   * Asked when a line is still incomplete after `streamLinesOver` bytes:
   * may its bytes go on now, in pieces, before the line is complete? Say
   * yes only when nothing downstream could hold the line (no debugger
   * attached). A line relayed in pieces costs no copy and no wait; its
   * pieces are `raw` frames with `partOf` set, followed by the line's own
   * frame with `streamed` set.
   * @default () => false (lines are always assembled whole)
   */
  canStream?: () => boolean;
  /** @default 65536 (64 KiB) */
  streamLinesOver?: number;
  /**
   * A streamed line keeps its bytes (in its frame's `raw`) up to this
   * length; a longer one keeps only its first bytes and its `size`.
   * @default 1048576 (1 MiB)
   */
  keepStreamedBytes?: number;
}

/**
 * Bytes in, frames out: one {@link FrameBatch} per input chunk, holding the
 * lines that chunk completed. Each frame holds the exact bytes of one line,
 * its `\n` and any `\r` included; nothing is decoded, trimmed or re-encoded.
 *
 * A line contained in one chunk is a zero-copy view of that chunk. A line
 * spread over several chunks is kept as a list of slices and concatenated
 * once, when its newline arrives; or, when `canStream` allows it and the
 * line is long, relayed in pieces as they arrive (see `canStream`).
 *
 * Emits `'degraded'` with `{ direction, bytes }` when a line outgrows
 * `maxFrameBytes`; from then on every chunk is passed on as a `raw` frame.
 */
export class LineFramer extends Transform {
  /** Which way the frames travel; stamped on every frame. */
  readonly direction: Direction;
  /** Largest line assembled into a frame (see {@link LineFramerOptions.maxFrameBytes}). */
  readonly maxFrameBytes: number;
  #parts: Buffer[] = [];
  #partBytes = 0;
  #seq = 0;
  #degraded = false;
  #batch: FrameBatch = [];
  readonly #canStream: () => boolean;
  readonly #streamOver: number;
  readonly #keepLimit: number;
  /** The frame of the line being relayed in pieces, if any. */
  #streaming: Frame | undefined;
  #kept: Buffer[] = [];
  #keptBytes = 0;
  #lineBytes = 0;
  #headOnly = false;
  /** When the chunk being framed was read: the time of every frame it completes. */
  #chunkAt = Number.NaN;

  constructor(options: LineFramerOptions) {
    super({
      writableObjectMode: false,
      readableObjectMode: true,
      readableHighWaterMark: options.highWaterMark ?? 16,
      // A whole pipe read (64 KiB) is taken without pausing the source.
      writableHighWaterMark: 256 * 1024,
    });
    this.direction = options.direction;
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.#canStream = options.canStream ?? (() => false);
    this.#streamOver = options.streamLinesOver ?? DEFAULT_STREAM_LINES_OVER;
    this.#keepLimit = options.keepStreamedBytes ?? DEFAULT_KEEP_STREAMED_BYTES;
  }

  /** True once the stream has fallen back to raw byte relaying. */
  get degraded(): boolean {
    return this.#degraded;
  }

  /**
   * Forget the line in progress and any fallback to raw bytes: what comes
   * next is a new stream (a restarted server's output), framed from
   * scratch. Frame numbers go on from where they were.
   */
  reset(): void {
    this.#parts = [];
    this.#partBytes = 0;
    this.#degraded = false;
    this.#batch = [];
    this.#streaming = undefined;
    this.#kept = [];
    this.#keptBytes = 0;
    this.#lineBytes = 0;
    this.#headOnly = false;
  }

  /** Node's Transform hook: frame one chunk (see {@link LineFramer.frame}) and push the batch it completed. */
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const batch = this.frame(chunk);
    if (batch !== undefined) this.push(batch);
    callback();
  }

  /**
   * Frame one chunk without the stream machinery: what `_transform` does,
   * for a caller that drives the framer directly (as {@link createRelay}
   * does). Returns the frames the chunk completed, or `undefined` if it
   * completed none.
   */
  frame(chunk: Buffer): FrameBatch | undefined {
    this.#chunkAt = Date.now();
    this.#frameChunk(chunk);
    return this.#takeBatch();
  }

  /**
   * The stream has ended: what `_flush` does. Returns the last bytes of a
   * stream that ended without a newline, as a frame, or `undefined`.
   */
  frameEnd(): FrameBatch | undefined {
    this.#chunkAt = Date.now();
    // A stream that ends without a final newline: its last bytes are still
    // part of the conversation, so relay them as they are.
    if (this.#streaming !== undefined) this.#endStreamed(false);
    else if (this.#partBytes > 0) {
      const rest = Buffer.concat(this.#parts, this.#partBytes);
      this.#parts = [];
      this.#partBytes = 0;
      this.#emit(rest, false);
    }
    return this.#takeBatch();
  }

  #takeBatch(): FrameBatch | undefined {
    if (this.#batch.length === 0) return undefined;
    const batch = this.#batch;
    this.#batch = [];
    return batch;
  }

  #frameChunk(chunk: Buffer): void {
    if (this.#degraded) {
      this.#emit(chunk, false);
      return;
    }
    let start = 0;
    let newline = chunk.indexOf(10);
    if (this.#streaming !== undefined) {
      // The rest of a line already on its way: pass this piece on too.
      const stop = newline === -1 ? chunk.length : newline + 1;
      if (!this.#streamPiece(stop === chunk.length ? chunk : chunk.subarray(0, stop))) return;
      if (newline === -1) return;
      this.#endStreamed(true);
      start = stop;
      newline = chunk.indexOf(10, start);
    }
    while (newline !== -1) {
      const end = newline + 1;
      if (this.#partBytes === 0) {
        if (end - start > this.maxFrameBytes) {
          this.#degrade(chunk.subarray(start));
          return;
        }
        // A chunk that is exactly one line (one call at a time) is the frame itself: no view to make.
        this.#emit(start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end), true);
      } else {
        const total = this.#partBytes + end - start;
        if (total > this.maxFrameBytes) {
          this.#parts.push(chunk.subarray(start));
          this.#degrade();
          return;
        }
        this.#parts.push(chunk.subarray(start, end));
        const line = Buffer.concat(this.#parts, total);
        this.#parts = [];
        this.#partBytes = 0;
        this.#emit(line, true);
      }
      start = end;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      this.#parts.push(start === 0 ? chunk : chunk.subarray(start));
      this.#partBytes += chunk.length - start;
      if (this.#partBytes > this.maxFrameBytes) this.#degrade();
      else if (this.#partBytes > this.#streamOver && this.#canStream()) this.#startStreaming();
    }
  }

  /** Relay the incomplete line's bytes so far, and the rest as it comes. */
  #startStreaming(): void {
    const line = newFrame(EMPTY, this.direction, ++this.#seq, true, this.#chunkAt);
    line.streamed = true;
    this.#streaming = line;
    this.#kept = [];
    this.#keptBytes = 0;
    this.#lineBytes = 0;
    this.#headOnly = false;
    const parts = this.#parts;
    this.#parts = [];
    this.#partBytes = 0;
    for (const part of parts) this.#streamPiece(part);
  }

  /** One piece of the streamed line; false if it made the line too long (the stream degrades). */
  #streamPiece(piece: Buffer): boolean {
    const line = this.#streaming as Frame;
    this.#lineBytes += piece.length;
    if (this.#lineBytes > this.maxFrameBytes) {
      this.#streaming = undefined;
      this.#kept = [];
      this.#degrade(piece, this.#lineBytes);
      return false;
    }
    const frame = newFrame(piece, this.direction, line.seq, false, this.#chunkAt);
    frame.type = 'raw';
    frame.partOf = line;
    this.#batch.push(frame);
    if (this.#headOnly) return true;
    if (this.#keptBytes + piece.length <= this.#keepLimit) {
      this.#kept.push(piece);
      this.#keptBytes += piece.length;
    } else {
      // Too long to keep whole: keep a copy of its first bytes, for a look at it.
      const head = Buffer.allocUnsafe(Math.min(STREAMED_HEAD_BYTES, this.#keptBytes));
      let at = 0;
      for (const part of this.#kept) {
        if (at === head.length) break;
        at += part.copy(head, at, 0, Math.min(part.length, head.length - at));
      }
      this.#kept = [head];
      this.#keptBytes = head.length;
      this.#headOnly = true;
    }
    return true;
  }

  /** The streamed line is complete: its frame follows its last piece. */
  #endStreamed(terminated: boolean): void {
    const line = this.#streaming as Frame;
    const kept = this.#kept;
    line.raw = kept.length === 1 ? (kept[0] as Buffer) : Buffer.concat(kept, this.#keptBytes);
    line.size = this.#lineBytes;
    line.terminated = terminated;
    line.at = this.#chunkAt;
    this.#batch.push(line);
    this.#streaming = undefined;
    this.#kept = [];
    this.#keptBytes = 0;
  }

  /** Node's Transform hook at the end of input: push the last bytes (see {@link LineFramer.frameEnd}). */
  override _flush(callback: TransformCallback): void {
    const batch = this.frameEnd();
    if (batch !== undefined) this.push(batch);
    callback();
  }

  #emit(raw: Buffer, terminated: boolean): void {
    const frame = newFrame(raw, this.direction, ++this.#seq, terminated, this.#chunkAt);
    if (this.#degraded) frame.type = 'raw';
    this.#batch.push(frame);
  }

  /** Fall back to raw bytes; `lineBytes` is the length of the line that was too long, when already known. */
  #degrade(extra?: Buffer, lineBytes?: number): void {
    let bytes = extra?.length ?? 0;
    for (const part of this.#parts) bytes += part.length;
    if (lineBytes !== undefined) bytes = lineBytes;
    this.#degraded = true;
    for (const part of this.#parts) this.#emit(part, false);
    if (extra) this.#emit(extra, false);
    this.#parts = [];
    this.#partBytes = 0;
    this.emit('degraded', { direction: this.direction, bytes });
  }
}

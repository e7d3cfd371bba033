import { Transform, type TransformCallback } from 'node:stream';
import { newFrame, type Direction, type FrameBatch } from './frame.js';

/** 64 MiB: the default frame-assembly ceiling. */
export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;

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
}

/**
 * Bytes in, frames out: one {@link FrameBatch} per input chunk, holding the
 * lines that chunk completed. Each frame holds the exact bytes of one line,
 * its `\n` and any `\r` included; nothing is decoded, trimmed or re-encoded.
 *
 * A line contained in one chunk is a zero-copy view of that chunk. A line
 * spread over several chunks is kept as a list of slices and concatenated
 * once, when its newline arrives.
 *
 * Emits `'degraded'` with `{ direction, bytes }` when a line outgrows
 * `maxFrameBytes`; from then on every chunk is passed on as a `raw` frame.
 */
export class LineFramer extends Transform {
  readonly direction: Direction;
  readonly maxFrameBytes: number;
  #parts: Buffer[] = [];
  #partBytes = 0;
  #seq = 0;
  #degraded = false;
  #batch: FrameBatch = [];

  constructor(options: LineFramerOptions) {
    super({
      writableObjectMode: false,
      readableObjectMode: true,
      readableHighWaterMark: options.highWaterMark ?? 16,
    });
    this.direction = options.direction;
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  /** True once the stream has fallen back to raw byte relaying. */
  get degraded(): boolean {
    return this.#degraded;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#frameChunk(chunk);
    this.#pushBatch();
    callback();
  }

  #pushBatch(): void {
    if (this.#batch.length === 0) return;
    const batch = this.#batch;
    this.#batch = [];
    this.push(batch);
  }

  #frameChunk(chunk: Buffer): void {
    if (this.#degraded) {
      this.#emit(chunk, false);
      return;
    }
    let start = 0;
    let newline = chunk.indexOf(10);
    while (newline !== -1) {
      const end = newline + 1;
      if (this.#partBytes === 0) {
        if (end - start > this.maxFrameBytes) {
          this.#degrade(chunk.subarray(start));
          return;
        }
        this.#emit(chunk.subarray(start, end), true);
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
    }
  }

  override _flush(callback: TransformCallback): void {
    // A stream that ends without a final newline: its last bytes are still
    // part of the conversation, so relay them as they are.
    if (this.#partBytes > 0) {
      const rest = Buffer.concat(this.#parts, this.#partBytes);
      this.#parts = [];
      this.#partBytes = 0;
      this.#emit(rest, false);
    }
    this.#pushBatch();
    callback();
  }

  #emit(raw: Buffer, terminated: boolean): void {
    const frame = newFrame(raw, this.direction, ++this.#seq, terminated);
    if (this.#degraded) frame.type = 'raw';
    this.#batch.push(frame);
  }

  #degrade(extra?: Buffer): void {
    let bytes = extra?.length ?? 0;
    for (const part of this.#parts) bytes += part.length;
    this.#degraded = true;
    for (const part of this.#parts) this.#emit(part, false);
    if (extra) this.#emit(extra, false);
    this.#parts = [];
    this.#partBytes = 0;
    this.emit('degraded', { direction: this.direction, bytes });
  }
}

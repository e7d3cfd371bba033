import { Writable } from 'node:stream';
import type { FrameBatch } from './frame.js';

/** Options for {@link FrameWriter}. */
export interface FrameWriterOptions {
  /** Where the bytes go: a child's stdin, `process.stdout`, a socket… */
  destination: NodeJS.WritableStream & Writable;
  /**
   * End the destination when this writer ends. Set `false` for a
   * destination you do not own, such as `process.stdout`.
   * @default true
   */
  end?: boolean;
  /**
   * Batches queued before backpressure applies.
   * @default 16
   */
  highWaterMark?: number;
}

/**
 * The sink of one direction: writes each frame's bytes whole and in order.
 *
 * Frames that were neighbours in one input chunk are written as one view of
 * that chunk (no copy), and the separate pieces of one batch are corked into
 * a single vectored write, so the relay makes no more system calls than a
 * plain byte pipe does. A destination that could not take everything at
 * once holds the writer's callback until `'drain'`, which propagates
 * backpressure up the pipeline to the source.
 */
export class FrameWriter extends Writable {
  /** Where the bytes go; its errors destroy this writer (see {@link FrameWriter.redirect}). */
  get destination(): NodeJS.WritableStream & Writable {
    return this.#destination;
  }
  #destination: NodeJS.WritableStream & Writable;
  readonly #end: boolean;
  /** The bytes written last stopped inside a line: its end has not gone out yet. */
  #midLine = false;
  /** Bytes of {@link FrameWriter.writeBytes} waiting for the line in progress to end. */
  #waiting: Buffer[] = [];
  readonly #onDestinationError = (error: Error): void => {
    this.destroy(error);
  };

  constructor(options: FrameWriterOptions) {
    super({ objectMode: true, highWaterMark: options.highWaterMark ?? 16 });
    this.#destination = options.destination;
    this.#end = options.end ?? true;
    this.#destination.on('error', this.#onDestinationError);
  }

  /**
   * Write to `next` from now on (a restarted server's stdin). The old
   * destination is let go: its errors no longer concern this writer, and a
   * line left unfinished in it, with the lines of ours waiting behind it,
   * is given up.
   */
  redirect(next: NodeJS.WritableStream & Writable): void {
    const old = this.#destination;
    old.off('error', this.#onDestinationError);
    // A late error of the old destination must not become an uncaught one.
    old.on('error', () => {});
    this.#destination = next;
    next.on('error', this.#onDestinationError);
    this.#midLine = false;
    this.#waiting = [];
  }

  /**
   * If the bytes written last stopped inside a line (a long line passed on
   * in pieces whose source went away), end that line with a newline, so
   * that what comes next starts a line of its own. The reader gets a broken
   * line either way; not a broken conversation.
   */
  endLine(): void {
    if (!this.#midLine) return;
    const dest = this.#destination;
    if (!dest.writableEnded && !dest.destroyed) dest.write(Buffer.from('\n'));
    this.#midLine = false;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const raw of waiting) this.writeBytes(raw);
  }

  /**
   * Write whole lines that did not come through the pipeline (a synthesised
   * answer, a re-sent request) to the destination, after everything already
   * written. Never into a line: if the bytes written last stopped inside
   * one (a long line passed on in pieces, or a direction relayed raw), they
   * wait for that line's newline and go right after it.
   */
  writeBytes(raw: Buffer): void {
    if (this.#destination.writableEnded || this.#destination.destroyed) return;
    if (this.#midLine) this.#waiting.push(raw);
    else this.#destination.write(raw);
  }

  /** Write `view`, keeping track of where the line stands; waiting lines of ours go in at its first line end. */
  #put(dest: NodeJS.WritableStream & Writable, view: Buffer): boolean {
    if (view.length === 0) return dest.write(view);
    if (this.#waiting.length > 0) {
      const nl = view.indexOf(0x0a);
      if (nl !== -1) {
        const waiting = this.#waiting;
        this.#waiting = [];
        let ok = dest.write(view.subarray(0, nl + 1));
        for (const raw of waiting) ok = dest.write(raw);
        if (nl + 1 < view.length) ok = dest.write(view.subarray(nl + 1));
        this.#midLine = view[view.length - 1] !== 0x0a;
        return ok;
      }
    }
    this.#midLine = view[view.length - 1] !== 0x0a;
    return dest.write(view);
  }

  /** Node's Writable hook: write the batch (see {@link FrameWriter.writeBatch}), calling back at once or once the destination drains. */
  override _write(batch: FrameBatch, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.writeBatch(batch)) callback();
    else this.whenDrained(callback);
  }

  /**
   * Write a batch's bytes to the destination: what `_write` does, for a
   * caller that drives the writer directly (as {@link createRelay} does).
   *
   * @returns `false` if the destination is holding bytes it could not pass
   *   on yet: write no more until {@link whenDrained} calls back.
   */
  writeBatch(batch: FrameBatch): boolean {
    const dest = this.#destination;
    if (dest.destroyed || dest.writableEnded) return true;
    let ok = true;
    let corked = false;
    // Adjacent slices of the same chunk are written as one wider view of
    // it: no copy, one write. Separate pieces are corked into one writev.
    let first: Buffer | undefined;
    let length = 0;
    // Where a frame must start to continue the current view: its memory and offset.
    let memory: ArrayBufferLike | undefined;
    let next = -1;
    for (const frame of batch) {
      // Its bytes already went out, piece by piece, ahead of it.
      if (frame.streamed) continue;
      const raw = frame.raw;
      const offset = raw.byteOffset;
      if (offset === next && raw.buffer === memory) {
        length += raw.length;
        next += raw.length;
        continue;
      }
      if (first !== undefined) {
        if (!corked) {
          corked = true;
          dest.cork();
        }
        ok = this.#put(dest, length === first.length ? first : Buffer.from(first.buffer, first.byteOffset, length));
      }
      first = raw;
      length = raw.length;
      memory = raw.buffer;
      next = offset + raw.length;
    }
    if (first !== undefined) ok = this.#put(dest, length === first.length ? first : Buffer.from(first.buffer, first.byteOffset, length));
    if (corked) dest.uncork();
    return ok || dest.writableLength === 0;
  }

  /** Call `callback` once the destination has drained (or closed). */
  whenDrained(callback: () => void): void {
    const dest = this.#destination;
    const done = (): void => {
      dest.off('drain', done);
      dest.off('close', done);
      callback();
    };
    dest.on('drain', done);
    dest.on('close', done);
  }

  /** Node's Writable hook at the end: write the lines still waiting, then end the destination unless the `end` option was `false`. */
  override _final(callback: (error?: Error | null) => void): void {
    // A line left unfinished at the end: what waited for it goes out after all.
    for (const raw of this.#waiting) if (!this.#destination.writableEnded && !this.#destination.destroyed) this.#destination.write(raw);
    this.#waiting = [];
    if (this.#end && !this.#destination.writableEnded) this.#destination.end();
    callback();
  }
}

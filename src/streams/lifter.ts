import { Transform, type TransformCallback } from 'node:stream';
import type { FrameBatch } from './frame.js';

/** Options for {@link Lifter}. */
export interface LifterOptions {
  /**
   * Batches buffered on each side before backpressure applies.
   * @default 16
   */
  highWaterMark?: number;
}

/**
 * The stage where injected values become wire frames. Frames that were not
 * replaced by a gate pass through untouched, bytes and all; this relay has
 * no injection yet, so today every frame is one of those.
 */
export class Lifter extends Transform {
  constructor(options: LifterOptions = {}) {
    const hwm = options.highWaterMark ?? 16;
    super({ objectMode: true, readableHighWaterMark: hwm, writableHighWaterMark: hwm });
  }

  override _transform(batch: FrameBatch, _encoding: BufferEncoding, callback: TransformCallback): void {
    callback(null, batch);
  }
}

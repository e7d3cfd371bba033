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
 * The stage after the gate, where what a gate let through becomes what the
 * writer writes. Every frame passes untouched, bytes and all: the proxy's
 * gate already hands over injected answers as finished frames, lifted into
 * their method's result shape by `liftResult` (src/gates/lift.ts) when the
 * decision is taken. The stage stays in the pipeline so that a relay of
 * your own can put a transform of its own here.
 */
export class Lifter extends Transform {
  constructor(options: LifterOptions = {}) {
    const hwm = options.highWaterMark ?? 16;
    super({ objectMode: true, readableHighWaterMark: hwm, writableHighWaterMark: hwm });
  }

  override _transform(batch: FrameBatch, _encoding: BufferEncoding, callback: TransformCallback): void {
    callback(null, this.lift(batch));
  }

  /**
   * What `_transform` does, for a caller that drives the stage directly (as
   * {@link createRelay} does): returns the frames to write.
   */
  lift(batch: FrameBatch): FrameBatch {
    return batch;
  }
}

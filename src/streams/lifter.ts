import { Transform, type TransformCallback } from 'node:stream';
import { newFrame, type Direction, type Frame, type FrameBatch, type MadeFrame } from './frame.js';
import { madeBytes } from './made-frame.js';

/** Options for {@link Lifter}. */
export interface LifterOptions {
  /**
   * Batches buffered on each side before backpressure applies.
   * @default 16
   */
  highWaterMark?: number;
}

/**
 * A frame that a gate's decision makes instead of one from the wire, to go
 * out in `direction`: its bytes are written by the {@link Lifter} (see
 * {@link MadeFrame}).
 */
export function madeFrame(made: MadeFrame, direction: Direction, seq: number): Frame {
  const frame = newFrame(EMPTY, direction, seq, true);
  frame.made = made;
  return frame;
}

const EMPTY = Buffer.alloc(0);

/**
 * The stage after the gate, where a decision becomes bytes. Frames read
 * from the wire pass untouched, bytes and all. A frame the gate made
 * instead ({@link madeFrame}: an injected answer, an abort's error, a
 * replacement notification) is given its bytes here: an injected value is
 * lifted into the result shape its request's method must return (see
 * `liftResult`, stamped for the session's era), and the answer carries the
 * request's id exactly as the request spelled it.
 */
export class Lifter extends Transform {
  constructor(options: LifterOptions = {}) {
    const hwm = options.highWaterMark ?? 16;
    super({ objectMode: true, readableHighWaterMark: hwm, writableHighWaterMark: hwm });
  }

  /** Node's Transform hook: give made frames their bytes (see {@link Lifter.lift}) and pass the batch on. */
  override _transform(batch: FrameBatch, _encoding: BufferEncoding, callback: TransformCallback): void {
    callback(null, this.lift(batch));
  }

  /**
   * What `_transform` does, for a caller that drives the stage directly (as
   * {@link createRelay} does): returns the frames to write, made frames
   * with their bytes.
   */
  lift(batch: FrameBatch): FrameBatch {
    for (let i = 0; i < batch.length; i++) {
      const frame = batch[i] as Frame;
      if (frame.made !== undefined && frame.raw.length === 0) {
        const raw = madeBytes(frame.made);
        frame.raw = raw;
        frame.size = raw.length;
      }
    }
    return batch;
  }
}

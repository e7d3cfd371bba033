import { Transform, type TransformCallback } from 'node:stream';
import type { Frame } from './frame.js';

/**
 * What a {@link GateTransform} asks about each frame. Return `undefined` to
 * let the frame pass at once (the fast path), or a promise of the frames to
 * forward in its place: `[frame]` to continue, another frame to replace it,
 * `[]` to drop it.
 */
export interface FrameGate {
  check(frame: Frame): Promise<readonly Frame[]> | undefined;
}

/** Options for {@link GateTransform}. */
export interface GateTransformOptions {
  /**
   * The decision core. Without one every frame passes.
   * @default undefined
   */
  gate?: FrameGate;
  /**
   * Objects buffered on each side before backpressure applies.
   * @default 16
   */
  highWaterMark?: number;
}

/**
 * The stream shell around a gate. While the gate holds a frame this
 * transform does not call its callback, so nothing behind the frame moves
 * and the source is paused by backpressure: a held frame means the
 * conversation in that direction is stopped, in order.
 *
 * A gate that throws or rejects lets the frame through unchanged: the relay
 * fails open.
 */
export class GateTransform extends Transform {
  gate: FrameGate | undefined;

  constructor(options: GateTransformOptions = {}) {
    const hwm = options.highWaterMark ?? 16;
    super({ objectMode: true, readableHighWaterMark: hwm, writableHighWaterMark: hwm });
    this.gate = options.gate;
  }

  override _transform(frame: Frame, _encoding: BufferEncoding, callback: TransformCallback): void {
    let held: Promise<readonly Frame[]> | undefined;
    try {
      held = this.gate?.check(frame);
    } catch {
      held = undefined;
    }
    if (held === undefined) {
      callback(null, frame);
      return;
    }
    held.then(
      (frames) => {
        for (const out of frames) this.push(out);
        callback();
      },
      () => callback(null, frame),
    );
  }
}

import { Transform, type TransformCallback } from 'node:stream';
import type { Direction, Frame, FrameBatch } from './frame.js';

/**
 * What a {@link GateTransform} asks about each frame. Return `undefined` to
 * let the frame pass at once (the fast path), or a promise of the frames to
 * forward in its place: `[frame]` to continue, another frame to replace it,
 * `[]` to drop it.
 */
export interface FrameGate {
  /** Pass `frame` at once (`undefined`), or hold it: the promise settles with what goes on in its place. */
  check(frame: Frame): Promise<readonly Frame[]> | undefined;
  /**
   * Could a frame travelling in `direction` be held right now? When this
   * says no, the relay may pass a long line on in pieces as it arrives
   * instead of assembling it first (such a line can no longer be held).
   * Without this method the relay assumes yes and always assembles.
   */
  mayHold?(direction: Direction): boolean;
  /**
   * A frame behind a held one in its direction. It does not pass until the
   * hold is decided (held means stopped), but the gate may look at it, to
   * notice the requester cancelling the held request. Frames framed with
   * the held one come classified; lines that arrived after it come as their
   * bytes only (`type` undefined), framed for the look and never relayed
   * from this copy. Without this method nothing is shown.
   */
  behind?(frame: Frame): void;
}

/** Options for {@link GateTransform}. */
export interface GateTransformOptions {
  /**
   * The decision core. Without one every frame passes.
   * @default undefined
   */
  gate?: FrameGate;
  /**
   * Batches buffered on each side before backpressure applies.
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
  /** The gate asked about each frame; while `undefined`, every frame passes. */
  gate: FrameGate | undefined;

  constructor(options: GateTransformOptions = {}) {
    const hwm = options.highWaterMark ?? 16;
    super({ objectMode: true, readableHighWaterMark: hwm, writableHighWaterMark: hwm });
    this.gate = options.gate;
  }

  /** Node's Transform hook: pass the batch through the gate (see {@link GateTransform.passBatch}), calling back once the whole batch has gone on. */
  override _transform(batch: FrameBatch, _encoding: BufferEncoding, callback: TransformCallback): void {
    const forward = (frames: FrameBatch): void => {
      this.push(frames);
    };
    if (this.passBatch(batch, forward, () => callback())) callback();
  }

  /**
   * What `_transform` does, for a caller that drives the gate directly (as
   * {@link createRelay} does). Hands `forward` what may go on, in order,
   * stopping at the first frame the gate holds.
   *
   * @returns `true` if the whole batch went through at once (`settled` is
   *   then never called); `false` if a frame is held, in which case nothing
   *   after it moves until the decision, and `settled` is called once the
   *   rest of the batch has been handed to `forward`. Until then the caller
   *   must not pass the gate anything else.
   */
  passBatch(batch: FrameBatch, forward: (frames: FrameBatch) => void, settled: () => void): boolean {
    if (this.gate === undefined) {
      forward(batch);
      return true;
    }
    return this.#pass(batch, 0, forward, settled);
  }

  /** Does the gate look at frames behind a held one (see {@link FrameGate.behind})? */
  get looksBehind(): boolean {
    return this.gate?.behind !== undefined;
  }

  /** Show the gate a frame behind a held one (see {@link FrameGate.behind}); a gate that throws is ignored. */
  lookBehind(frame: Frame): void {
    try {
      this.gate?.behind?.(frame);
    } catch {
      // Only a look: the frame still waits its turn.
    }
  }

  /** Let frames through from `from` on, stopping at the first one the gate holds. */
  #pass(batch: FrameBatch, from: number, forward: (frames: FrameBatch) => void, settled: () => void): boolean {
    for (let i = from; i < batch.length; i++) {
      const frame = batch[i] as Frame;
      // A line relayed in pieces has gone out already: nothing to hold.
      if (frame.streamed || frame.partOf !== undefined) continue;
      let held: Promise<readonly Frame[]> | undefined;
      try {
        held = this.gate?.check(frame);
      } catch {
        held = undefined;
      }
      if (held === undefined) continue;
      // Everything before the held frame goes on; nothing after it does
      // until the decision comes, but the gate may look at it.
      if (i > from) forward(batch.slice(from, i));
      for (let j = i + 1; j < batch.length; j++) this.lookBehind(batch[j] as Frame);
      const next = (): void => {
        if (this.#pass(batch, i + 1, forward, settled)) settled();
      };
      held.then(
        (frames) => {
          if (frames.length > 0) forward([...frames]);
          next();
        },
        () => {
          forward([frame]);
          next();
        },
      );
      return false;
    }
    if (from === 0) forward(batch);
    else if (from < batch.length) forward(batch.slice(from));
    return true;
  }
}

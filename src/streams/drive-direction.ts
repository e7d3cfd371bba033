import type { EventEmitter } from 'node:events';
import { finished, type Readable } from 'node:stream';
import type { Classifier } from './classifier.js';
import { newFrame, type FrameBatch } from './frame.js';
import type { FrameWriter } from './frame-writer.js';
import type { GateTransform } from './gate-transform.js';
import type { Lifter } from './lifter.js';
import type { LineFramer } from './line-framer.js';

/** The five stages of one direction. */
export interface DirectionStages {
  framer: LineFramer;
  classifier: Classifier;
  gate: GateTransform;
  lifter: Lifter;
  writer: FrameWriter;
  /**
   * True when nothing could hold a frame of this direction right now (no
   * gate, or a gate whose `mayHold` says no). A chunk's frames are then
   * written as soon as they are framed, and classified and shown to the
   * gate just after, when the chunk completed more than one line: the peer
   * starts on them without waiting for the parse.
   */
  nothingHolds: () => boolean;
}

const ignore = (): void => {};

/**
 * Bytes a held direction still reads, when its gate looks behind held
 * frames (see `FrameGate.behind`), before its source is paused: about what
 * a paused stream reads ahead anyway, enough for the requester's
 * `notifications/cancelled` to be seen while nothing of it passes.
 */
export const LOOK_AHEAD_BYTES = 64 * 1024;

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/** What {@link driveDirection} fills in for its caller to steer it while it runs. */
export interface DirectionControl {
  /**
   * Read from `next` instead of the current source, from now on: the
   * current one is let go (its unread chunks and any line in progress are
   * dropped, its end and errors no longer concern the direction), and
   * framing starts afresh. Frames already written stay written.
   */
  switchSource?: (next: Readable) => void;
}

/**
 * Move one direction's bytes from `source` through its stages by calling
 * each stage's synchronous core in turn: a chunk is framed, classified,
 * gated and written within the `'data'` event that brought it, with none of
 * the per-stage buffering and deferred callbacks of piping the stages as
 * streams. The stages and their order are the pipeline's; so are flow
 * control and the end:
 *
 * - While nothing can hold a frame (see `nothingHolds`), a chunk that
 *   completes several lines has them written first and classified after.
 * - A frame the gate holds stops the direction. The source is paused, what
 *   still arrives waits as raw chunks, unframed, and nothing behind the
 *   held frame moves until its decision.
 * - A destination that cannot take more (its `write` returned false)
 *   pauses the source until `'drain'`, so a slow reader slows the sender.
 * - When the source ends, the framer's last bytes follow, then the writer
 *   is ended (which ends the destination if it owns it), and the promise
 *   resolves on its `'finish'`.
 * - An error of the source, of the destination (through the writer), or a
 *   stage destroyed from outside rejects the promise and destroys the
 *   source and the stages, as `stream.pipeline` would.
 */
export function driveDirection(initial: Readable, stages: DirectionStages, control: DirectionControl = {}): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const driver = new DirectionDriver(initial, stages, resolve, reject);
    control.switchSource = (next: Readable): void => driver.switchSource(next);
    driver.start();
  });
}

/**
 * The state of one driven direction. Its listeners and the callbacks it
 * gives the gate and the writer are bound once, as fields: a chunk costs
 * the calls it always did, and no closure or object per frame.
 */
class DirectionDriver {
  readonly #framer: LineFramer;
  readonly #classifier: Classifier;
  readonly #gate: GateTransform;
  readonly #lifter: Lifter;
  readonly #writer: FrameWriter;
  readonly #nothingHolds: () => boolean;
  readonly #resolve: () => void;
  readonly #reject: (error: Error) => void;
  #source: Readable;
  #held = false;
  #draining = false;
  #ended = false;
  #flushed = false;
  #over = false;
  /** Chunks that arrived while the direction was stopped, unframed. */
  readonly #waiting: Buffer[] = [];
  /** What the gate was shown of the bytes behind the held frame (see #lookBehind). */
  #lookedAt = 0;
  #lookCarry: Buffer | undefined;
  /** Taken off once the direction is over. The error listeners stay: a late error must not become an uncaught one. */
  readonly #listeners: Array<[EventEmitter, string, () => void]>;

  constructor(source: Readable, stages: DirectionStages, resolve: () => void, reject: (error: Error) => void) {
    this.#framer = stages.framer;
    this.#classifier = stages.classifier;
    this.#gate = stages.gate;
    this.#lifter = stages.lifter;
    this.#writer = stages.writer;
    this.#nothingHolds = stages.nothingHolds;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#source = source;
    this.#listeners = [
      [source, 'end', this.#onEnd],
      [source, 'close', this.#onClose],
      [stages.framer, 'close', this.#onStageClose],
      [stages.writer, 'close', this.#onStageClose],
    ];
  }

  /** Listen, or settle at once if the source is already over. */
  start(): void {
    const source = this.#source;
    for (const emitter of [source, this.#framer, this.#writer]) emitter.on('error', this.#fail);
    for (const [emitter, event, listener] of this.#listeners) emitter.on(event, listener);
    if (source.readableEnded) {
      queueMicrotask(this.#onEnd);
      return;
    }
    if (source.destroyed) {
      queueMicrotask(() => this.#fail(prematureClose()));
      return;
    }
    source.on('data', this.#onData);
  }

  readonly #deliver = (frames: FrameBatch): void => {
    if (this.#over) return;
    if (this.#writer.writeBatch(this.#lifter.lift(frames)) || this.#draining) return;
    this.#draining = true;
    this.#source.pause();
    this.#writer.whenDrained(this.#onDrained);
  };

  readonly #onSettled = (): void => {
    this.#held = false;
    this.#proceed();
  };

  readonly #onDrained = (): void => {
    this.#draining = false;
    this.#proceed();
  };

  #pass(batch: FrameBatch): void {
    this.#classifier.classifyBatch(batch);
    if (this.#gate.passBatch(batch, this.#deliver, this.#onSettled)) return;
    this.#held = true;
    this.#lookedAt = 0;
    this.#lookCarry = undefined;
    // A gate that looks behind the held frame is shown what already
    // waits, and the source goes on being read (up to LOOK_AHEAD_BYTES)
    // for it to see what comes: nothing of it passes until the decision.
    if (this.#gate.looksBehind) {
      let room = true;
      const waiting = this.#waiting;
      for (let i = 0; room && i < waiting.length; i++) room = this.#lookBehind(waiting[i] as Buffer);
      if (room) return;
    }
    this.#source.pause();
  }

  /**
   * Show the gate the lines in `chunk`, behind the held frame, as bytes
   * framed for a look only: the chunk still waits, and is framed for real
   * once the hold is decided. False once the look-ahead is full.
   */
  #lookBehind(chunk: Buffer): boolean {
    this.#lookedAt += chunk.length;
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; start = end + 1, end = chunk.indexOf(0x0a, start)) {
      const carry = this.#lookCarry;
      const line = carry === undefined ? chunk.subarray(start, end + 1) : Buffer.concat([carry, chunk.subarray(start, end + 1)]);
      this.#lookCarry = undefined;
      this.#gate.lookBehind(newFrame(line, this.#classifier.direction, 0, true));
    }
    if (start < chunk.length) {
      const carry = this.#lookCarry;
      this.#lookCarry = carry === undefined ? chunk.subarray(start) : Buffer.concat([carry, chunk.subarray(start)]);
    }
    return this.#lookedAt < LOOK_AHEAD_BYTES;
  }

  #take(chunk: Buffer): void {
    const batch = this.#framer.frame(chunk);
    if (batch === undefined) return;
    // One line (a call at a time): classify it first, so that nothing of
    // ours is left to run once its reader wakes, often on this CPU.
    // Several: the reader has plenty to do, so it gets them first.
    if (batch.length === 1 || !this.#nothingHolds()) {
      this.#pass(batch);
      return;
    }
    this.#deliver(batch);
    // Observed after the write. The gate still sees every frame (it may
    // note something), but it has said it will not hold one.
    this.#classifier.classifyBatch(batch);
    this.#gate.passBatch(batch, ignore, ignore);
  }

  readonly #onData = (chunk: Buffer): void => {
    if (this.#over) return;
    if (this.#held || this.#draining) {
      this.#waiting.push(chunk);
      if (this.#held && !this.#draining && this.#lookedAt < LOOK_AHEAD_BYTES && this.#gate.looksBehind && this.#lookBehind(chunk)) return;
      this.#source.pause();
      return;
    }
    this.#take(chunk);
  };

  #proceed(): void {
    if (this.#over) return;
    const waiting = this.#waiting;
    while (!this.#held && !this.#draining && waiting.length > 0) this.#take(waiting.shift() as Buffer);
    if (this.#held || this.#draining) return;
    if (this.#ended) this.#finish();
    else this.#source.resume();
  }

  #finish(): void {
    if (!this.#flushed) {
      this.#flushed = true;
      const rest = this.#framer.frameEnd();
      if (rest !== undefined) this.#pass(rest);
      // A held last frame, or a full destination: proceed() comes back here.
      if (this.#held || this.#draining) return;
    }
    this.#over = true;
    this.#detach();
    // Ended like a piped writer: its _final ends the destination (if it
    // owns it), and its finish says the direction is done (an error on the
    // way, or a close before it, rejects).
    finished(this.#writer, (error) => (error ? this.#reject(error) : this.#resolve()));
    this.#writer.end();
  }

  readonly #onEnd = (): void => {
    this.#ended = true;
    if (!this.#held && !this.#draining && this.#waiting.length === 0) this.#finish();
  };

  readonly #onClose = (): void => {
    if (!this.#ended) this.#fail(prematureClose());
  };

  readonly #onStageClose = (): void => this.#fail(prematureClose());

  readonly #fail = (error: Error): void => {
    if (this.#over) return;
    this.#over = true;
    this.#detach();
    this.#waiting.length = 0;
    this.#source.destroy();
    this.#framer.destroy();
    this.#writer.destroy();
    this.#reject(error);
  };

  #detach(): void {
    this.#source.off('data', this.#onData);
    for (const [emitter, event, listener] of this.#listeners) emitter.off(event, listener);
  }

  /** See {@link DirectionControl.switchSource}. */
  switchSource(next: Readable): void {
    if (this.#over) return;
    const old = this.#source;
    old.off('data', this.#onData);
    old.off('end', this.#onEnd);
    old.off('close', this.#onClose);
    old.off('error', this.#fail);
    // A late error of the old source must not become an uncaught one.
    old.on('error', ignore);
    this.#waiting.length = 0;
    this.#framer.reset();
    // A long line of the old source cut off half-way: the next line starts on its own.
    this.#writer.endLine();
    this.#source = next;
    this.#listeners[0] = [next, 'end', this.#onEnd];
    this.#listeners[1] = [next, 'close', this.#onClose];
    next.on('error', this.#fail);
    next.on('end', this.#onEnd);
    next.on('close', this.#onClose);
    next.on('data', this.#onData);
    // A source paused by its last reader does not flow again by itself when a 'data' listener is added.
    if (this.#held || this.#draining) next.pause();
    else next.resume();
  }
}

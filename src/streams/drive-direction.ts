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

export function driveDirection(initial: Readable, stages: DirectionStages, control: DirectionControl = {}): Promise<void> {
  const { framer, classifier, gate, lifter, writer, nothingHolds } = stages;
  let source = initial;
  return new Promise<void>((resolve, reject) => {
    let held = false;
    let draining = false;
    let ended = false;
    let flushed = false;
    let over = false;
    const waiting: Buffer[] = [];
    // What the gate was shown of the bytes behind the held frame (see lookBehind).
    let lookedAt = 0;
    let lookCarry: Buffer | undefined;

    const deliver = (frames: FrameBatch): void => {
      if (over) return;
      if (writer.writeBatch(lifter.lift(frames)) || draining) return;
      draining = true;
      source.pause();
      writer.whenDrained(onDrained);
    };
    const onSettled = (): void => {
      held = false;
      proceed();
    };
    const onDrained = (): void => {
      draining = false;
      proceed();
    };
    /**
     * Show the gate the lines in `chunk`, behind the held frame, as bytes
     * framed for a look only: the chunk still waits, and is framed for real
     * once the hold is decided. False once the look-ahead is full.
     */
    const lookBehind = (chunk: Buffer): boolean => {
      lookedAt += chunk.length;
      let start = 0;
      for (let end = chunk.indexOf(0x0a); end !== -1; start = end + 1, end = chunk.indexOf(0x0a, start)) {
        const line = lookCarry === undefined ? chunk.subarray(start, end + 1) : Buffer.concat([lookCarry, chunk.subarray(start, end + 1)]);
        lookCarry = undefined;
        gate.lookBehind(newFrame(line, classifier.direction, 0, true));
      }
      if (start < chunk.length) lookCarry = lookCarry === undefined ? chunk.subarray(start) : Buffer.concat([lookCarry, chunk.subarray(start)]);
      return lookedAt < LOOK_AHEAD_BYTES;
    };
    const pass = (batch: FrameBatch): void => {
      classifier.classifyBatch(batch);
      if (gate.passBatch(batch, deliver, onSettled)) return;
      held = true;
      lookedAt = 0;
      lookCarry = undefined;
      // A gate that looks behind the held frame is shown what already
      // waits, and the source goes on being read (up to LOOK_AHEAD_BYTES)
      // for it to see what comes: nothing of it passes until the decision.
      if (gate.looksBehind) {
        let room = true;
        for (let i = 0; room && i < waiting.length; i++) room = lookBehind(waiting[i] as Buffer);
        if (room) return;
      }
      source.pause();
    };
    const take = (chunk: Buffer): void => {
      const batch = framer.frame(chunk);
      if (batch === undefined) return;
      // One line (a call at a time): classify it first, so that nothing of
      // ours is left to run once its reader wakes, often on this CPU.
      // Several: the reader has plenty to do, so it gets them first.
      if (batch.length === 1 || !nothingHolds()) {
        pass(batch);
        return;
      }
      deliver(batch);
      // Observed after the write. The gate still sees every frame (it may
      // note something), but it has said it will not hold one.
      classifier.classifyBatch(batch);
      gate.passBatch(batch, ignore, ignore);
    };
    const onData = (chunk: Buffer): void => {
      if (over) return;
      if (held || draining) {
        waiting.push(chunk);
        if (held && !draining && lookedAt < LOOK_AHEAD_BYTES && gate.looksBehind && lookBehind(chunk)) return;
        source.pause();
        return;
      }
      take(chunk);
    };
    const proceed = (): void => {
      if (over) return;
      while (!held && !draining && waiting.length > 0) take(waiting.shift() as Buffer);
      if (held || draining) return;
      if (ended) finish();
      else source.resume();
    };
    const finish = (): void => {
      if (!flushed) {
        flushed = true;
        const rest = framer.frameEnd();
        if (rest !== undefined) pass(rest);
        // A held last frame, or a full destination: proceed() comes back here.
        if (held || draining) return;
      }
      over = true;
      detach();
      // Ended like a piped writer: its _final ends the destination (if it
      // owns it), and its finish says the direction is done (an error on the
      // way, or a close before it, rejects).
      finished(writer, (error) => (error ? reject(error) : resolve()));
      writer.end();
    };
    const onEnd = (): void => {
      ended = true;
      if (!held && !draining && waiting.length === 0) finish();
    };
    const onClose = (): void => {
      if (!ended) fail(prematureClose());
    };
    const onStageClose = (): void => fail(prematureClose());
    const fail = (error: Error): void => {
      if (over) return;
      over = true;
      detach();
      waiting.length = 0;
      source.destroy();
      framer.destroy();
      writer.destroy();
      reject(error);
    };
    // Taken off once the direction is over. The error listeners stay: a
    // late error must not become an uncaught one.
    const listeners: Array<[EventEmitter, string, () => void]> = [
      [source, 'end', onEnd],
      [source, 'close', onClose],
      [framer, 'close', onStageClose],
      [writer, 'close', onStageClose],
    ];
    const detach = (): void => {
      source.off('data', onData);
      for (const [emitter, event, listener] of listeners) emitter.off(event, listener);
    };

    for (const emitter of [source, framer, writer]) emitter.on('error', fail);
    for (const [emitter, event, listener] of listeners) emitter.on(event, listener);
    control.switchSource = (next: Readable): void => {
      if (over) return;
      const old = source;
      old.off('data', onData);
      old.off('end', onEnd);
      old.off('close', onClose);
      old.off('error', fail);
      // A late error of the old source must not become an uncaught one.
      old.on('error', ignore);
      waiting.length = 0;
      framer.reset();
      // A long line of the old source cut off half-way: the next line starts on its own.
      writer.endLine();
      source = next;
      listeners[0] = [next, 'end', onEnd];
      listeners[1] = [next, 'close', onClose];
      next.on('error', fail);
      next.on('end', onEnd);
      next.on('close', onClose);
      next.on('data', onData);
      // A source paused by its last reader does not flow again by itself when a 'data' listener is added.
      if (held || draining) next.pause();
      else next.resume();
    };
    if (source.readableEnded) {
      queueMicrotask(onEnd);
      return;
    }
    if (source.destroyed) {
      queueMicrotask(() => fail(prematureClose()));
      return;
    }
    source.on('data', onData);
  });
}

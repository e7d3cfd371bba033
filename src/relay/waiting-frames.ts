/**
 * The frames a recorder has not recorded yet: a ring, oldest first, and the
 * rules of when they are recorded (how long they wait, how many, and which
 * calls wait for their answers so that a call is one event).
 *
 * @module
 */

import type { Frame } from '../streams/frame.js';

/**
 * How long a frame may wait to be recorded (see `RelayRecorder.onFrame`).
 * With a debugger attached, what was recorded goes to it at once: the graph
 * is at most this much later than the wire.
 */
export const RECORD_DELAY_MS = 20;
/**
 * How long a call in flight may keep the timer from recording it and what
 * came after it (see {@link WaitingFrames.settled}): long enough for the
 * calls of a pipelined burst to be answered, short enough that a slow call
 * shows as running at once.
 */
export const PAIR_WAIT_MS = 10;
/** The most frames that wait to be recorded (fewer, detached, when the reporter keeps fewer events). */
export const MAX_WAITING_FRAMES = 8192;
/** Bytes of waiting frames beyond which they are recorded at once: what they hold on to stays small. */
export const MAX_WAITING_BYTES = 1024 * 1024;
/** A frame at least this long is recorded at once, so that its bytes are not held back. */
export const RECORD_AT_ONCE_BYTES = 64 * 1024;

/**
 * The ring of frames waiting to be recorded, oldest at the head, with what
 * they hold on to. It only keeps and looks: the recorder takes frames out
 * and records them.
 */
export class WaitingFrames {
  /** How many frames fit. */
  readonly slots: number;
  /** Frames waiting now. */
  count = 0;
  /** Bytes of the frames waiting now. */
  bytes = 0;
  readonly #ring: Array<Frame | undefined>;
  #head = 0;

  constructor(slots = MAX_WAITING_FRAMES) {
    this.slots = slots;
    this.#ring = new Array<Frame | undefined>(slots).fill(undefined);
  }

  /** Add the newest frame (there must be room); returns the bytes now waiting. */
  push(frame: Frame): number {
    const slots = this.slots;
    const slot = (this.#head + this.count) % slots;
    this.#ring[slot] = frame;
    this.count++;
    return (this.bytes += frame.raw.length);
  }

  /** The oldest waiting frame (there must be one). */
  oldest(): Frame {
    return this.#ring[this.#head] as Frame;
  }

  /** Take the oldest waiting frame out (there must be one). */
  take(): Frame {
    const slot = this.#head;
    const frame = this.#ring[slot] as Frame;
    this.#ring[slot] = undefined;
    this.#head = slot + 1 === this.slots ? 0 : slot + 1;
    this.count--;
    this.bytes -= frame.raw.length;
    return frame;
  }

  /**
   * Find the calls whose request and answer both wait now: each is recorded
   * as one `instance.completed` event where its request stands, instead of
   * a start and an end (half the events for the debugger to take in, and
   * its record of the call is the same). Only answers that end the call
   * well: an error is recorded as it always is. Frames already recorded
   * have their instance id; a request that waits has none yet.
   *
   * Not a call with a frame recorded where it stands (an answer to a call
   * recorded earlier, an error, a notification) between its request and its
   * answer: paired, its answer would be sent before that frame, and a
   * debugger killed between the two would keep a later answer and lose an
   * earlier one (call 3 answered, call 2 still open, on disk). The record
   * stays a prefix of what passed, in the order it passed.
   */
  pairCalls(): void {
    const slots = this.slots;
    const ring = this.#ring;
    for (let i = 0, slot = this.#head; i < this.count; i++, slot = slot + 1 === slots ? 0 : slot + 1) {
      const frame = ring[slot] as Frame;
      if (frame.type !== 'response' || frame.isError === true) continue;
      const request = frame.request;
      if (request === undefined || request.instanceId !== undefined || request.answer !== undefined || request.node === undefined) continue;
      request.answer = frame;
    }
    this.#unpairAcross();
  }

  /**
   * Undo the pairs that a frame recorded where it stands (anything but a
   * request or a paired answer) falls inside. Walks the ring once, counting
   * the pairs open (request passed, answer not yet); at such a frame, walks
   * back to unpair the open ones, no further than the previous such frame
   * (every pair open before it was undone there): linear in all.
   */
  #unpairAcross(): void {
    const slots = this.slots;
    const ring = this.#ring;
    let open = 0;
    for (let i = 0, slot = this.#head; i < this.count; i++, slot = slot + 1 === slots ? 0 : slot + 1) {
      const frame = ring[slot] as Frame;
      if (frame.type === 'request') {
        if (frame.answer !== undefined) open++;
      } else if (frame.request !== undefined && frame.request.answer === frame) {
        open--;
      } else if (open > 0) {
        open = 0;
        this.#unpairOpen(slot);
      }
    }
  }

  /** Unpair the requests before the frame at `at` whose answers come after it. */
  #unpairOpen(at: number): void {
    const slots = this.slots;
    const ring = this.#ring;
    // The answers between: their requests are closed pairs (only met here, where a pair is split: no allocation otherwise).
    const closed = new Set<Frame>();
    for (let slot = at; slot !== this.#head; ) {
      slot = slot === 0 ? slots - 1 : slot - 1;
      const frame = ring[slot] as Frame;
      if (frame.type !== 'request') {
        if (frame.request?.answer === frame) closed.add(frame);
        // A frame recorded where it stands: the pairs open before it were undone when it was met.
        else return;
      } else if (frame.answer !== undefined && !closed.has(frame.answer)) {
        frame.answer = undefined;
      }
    }
  }

  /**
   * How many waiting frames the timer records: those up to the first call
   * still in flight that was read after `young` (ms since the epoch); that
   * call and what came after it wait for the next turn. A burst of
   * pipelined calls is then recorded as it is answered, one event per call,
   * instead of being cut wherever the timer happens to fall.
   */
  settled(young: number): number {
    const slots = this.slots;
    const ring = this.#ring;
    let settled = 0;
    for (let slot = this.#head; settled < this.count; settled++, slot = slot + 1 === slots ? 0 : slot + 1) {
      const frame = ring[slot] as Frame;
      if (frame.type === 'request' && frame.answer === undefined && frame.at > young) break;
    }
    return settled;
  }

  /**
   * Full, with a debugger attached: how many frames to record. Pairs the
   * calls, then counts up to the first call still in flight (of any age),
   * so that calls in flight are not split into a start and an end. A call
   * whose answer waits too is not in flight, an error answer included.
   * When that would free less than a quarter of the ring (a call long in
   * flight, while many frames went by), the older half instead.
   */
  whenFull(): number {
    this.pairCalls();
    const slots = this.slots;
    const ring = this.#ring;
    // Calls answered among the waiting frames but not paired (their answer is an error), found when first needed.
    let answered: Set<Frame> | undefined;
    let settled = 0;
    for (let slot = this.#head; settled < this.count; settled++, slot = slot + 1 === slots ? 0 : slot + 1) {
      const frame = ring[slot] as Frame;
      if (frame.type !== 'request' || frame.answer !== undefined || frame.node === undefined) continue;
      answered ??= this.#answeredRequests();
      if (!answered.has(frame)) break;
    }
    return settled >= this.count >> 2 ? settled : this.count >> 1;
  }

  /** The requests that an answer among the waiting frames answers. */
  #answeredRequests(): Set<Frame> {
    const answered = new Set<Frame>();
    const slots = this.slots;
    const ring = this.#ring;
    for (let i = 0, slot = this.#head; i < this.count; i++, slot = slot + 1 === slots ? 0 : slot + 1) {
      const frame = ring[slot] as Frame;
      if ((frame.type === 'response' || frame.type === 'error') && frame.request !== undefined) answered.add(frame.request);
    }
    return answered;
  }
}

import type { Frame } from '../streams/frame.js';

/** Slots {@link OpenCalls}' table starts with. */
const OPEN_SLOTS = 256;
/** The most slots it grows to; calls beyond go to its map. */
const MAX_OPEN_SLOTS = 65536;

/**
 * The calls that await an answer, in the order they were opened. A table
 * indexed by the request frame's direction and sequence number holds them
 * (no hashing on the relay's path: a call is a store when it goes out and a
 * compare when its answer comes back). A call whose slot is taken grows the
 * table when it is a quarter full (many calls in flight at once); otherwise
 * (a call left open while many frames went by), or once the table is at its
 * largest, it goes to a map instead.
 */
export class OpenCalls {
  #frames: Array<Frame | undefined> = new Array<Frame | undefined>(OPEN_SLOTS).fill(undefined);
  /** When each slot's call was opened (for the order). */
  #opened: number[] = new Array<number>(OPEN_SLOTS).fill(0);
  #mask = OPEN_SLOTS - 1;
  readonly #overflow = new Map<Frame, number>();
  /** Calls opened so far (the order). */
  #count = 0;
  /** Calls in the table. */
  #inTable = 0;

  #slot(frame: Frame): number {
    return ((frame.seq << 1) | (frame.direction === 'client-to-server' ? 0 : 1)) & this.#mask;
  }

  /** Open a call (one already open keeps its place). */
  add(frame: Frame): void {
    let slot = this.#slot(frame);
    let held = this.#frames[slot];
    if (held === frame || (this.#overflow.size > 0 && this.#overflow.has(frame))) return;
    const opened = ++this.#count;
    if (held !== undefined && this.#inTable * 4 >= this.#mask + 1 && this.#mask + 1 < MAX_OPEN_SLOTS) {
      this.#grow();
      slot = this.#slot(frame);
      held = this.#frames[slot];
    }
    if (held === undefined) {
      this.#frames[slot] = frame;
      this.#opened[slot] = opened;
      this.#inTable++;
    } else {
      this.#overflow.set(frame, opened);
    }
  }

  /** Close a call; false if it was not open. */
  delete(frame: Frame): boolean {
    const slot = this.#slot(frame);
    if (this.#frames[slot] === frame) {
      this.#frames[slot] = undefined;
      this.#inTable--;
      return true;
    }
    return this.#overflow.size > 0 && this.#overflow.delete(frame);
  }

  /** How many calls are open: no work beyond two reads, so a log line may ask. */
  get size(): number {
    return this.#inTable + this.#overflow.size;
  }

  /**
   * The one open call when exactly one is open, else undefined. Looked up
   * only when asked (a line of the server's stderr): the relay's path pays
   * nothing for it.
   */
  only(): Frame | undefined {
    if (this.size !== 1) return undefined;
    if (this.#overflow.size === 1) return this.#overflow.keys().next().value;
    const frames = this.#frames;
    for (let slot = 0; slot <= this.#mask; slot++) {
      const frame = frames[slot];
      if (frame !== undefined) return frame;
    }
    return undefined;
  }

  /** The one open call not in `except` when there is exactly one, else undefined (looked up only when asked, as {@link OpenCalls.only}). */
  onlyOutside(except: ReadonlySet<Frame>): Frame | undefined {
    let found: Frame | undefined;
    for (const frame of this.#overflow.keys()) {
      if (except.has(frame)) continue;
      if (found !== undefined) return undefined;
      found = frame;
    }
    const frames = this.#frames;
    for (let slot = 0; slot <= this.#mask; slot++) {
      const frame = frames[slot];
      if (frame === undefined || except.has(frame)) continue;
      if (found !== undefined) return undefined;
      found = frame;
    }
    return found;
  }

  /** Every open call, oldest first; none is open afterwards. */
  take(): Frame[] {
    const open: Array<[number, Frame]> = [...this.#overflow].map(([frame, opened]) => [opened, frame]);
    this.#overflow.clear();
    for (let slot = 0; slot <= this.#mask; slot++) {
      const frame = this.#frames[slot];
      if (frame !== undefined) open.push([this.#opened[slot] as number, frame]);
      this.#frames[slot] = undefined;
    }
    this.#inTable = 0;
    return open.sort((a, b) => a[0] - b[0]).map(([, frame]) => frame);
  }

  /** Double the table; calls that collide in it too stay in (or go to) the map. */
  #grow(): void {
    const frames = this.#frames;
    const opened = this.#opened;
    const slots = frames.length * 2;
    this.#frames = new Array<Frame | undefined>(slots).fill(undefined);
    this.#opened = new Array<number>(slots).fill(0);
    this.#mask = slots - 1;
    for (let i = 0; i < frames.length; i++) {
      const frame = frames[i];
      if (frame === undefined) continue;
      const slot = this.#slot(frame);
      if (this.#frames[slot] === undefined) {
        this.#frames[slot] = frame;
        this.#opened[slot] = opened[i] as number;
      } else {
        this.#overflow.set(frame, opened[i] as number);
        this.#inTable--;
      }
    }
  }
}

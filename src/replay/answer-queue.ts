/**
 * The answers recorded for one key, used in recorded order. Once they are
 * used up, the repeat mode decides: `error` (no more answers), `last` (the
 * last one again and again), `cycle` (from the first again).
 *
 * @module
 */

/** What answers a request whose recorded answers were all used (`--repeat`). */
export type RepeatMode = 'error' | 'last' | 'cycle';

/** The repeat modes, as `--repeat` takes them. */
export const REPEAT_MODES: readonly RepeatMode[] = ['error', 'last', 'cycle'];

/** Recorded items used in order (see the module). */
export class AnswerQueue<T> {
  readonly #items: T[];
  readonly #repeat: RepeatMode;
  #used = 0;

  constructor(items: T[], repeat: RepeatMode) {
    this.#items = items;
    this.#repeat = repeat;
  }

  /** Add one more recorded item (while the queue is built). */
  push(item: T): void {
    this.#items.push(item);
  }

  /** How many were recorded. */
  get size(): number {
    return this.#items.length;
  }

  /** How many were taken. */
  get used(): number {
    return this.#used;
  }

  /** The first recorded item (to show as the nearest when none is left). */
  get first(): T | undefined {
    return this.#items[0];
  }

  /** The item that would be taken next; undefined when none is (used up under `error`, or none recorded). */
  peek(): T | undefined {
    const items = this.#items;
    if (items.length === 0) return undefined;
    if (this.#used < items.length) return items[this.#used];
    if (this.#repeat === 'last') return items[items.length - 1];
    if (this.#repeat === 'cycle') return items[this.#used % items.length];
    return undefined;
  }

  /** Take the next item (see {@link AnswerQueue.peek}). */
  take(): T | undefined {
    const item = this.peek();
    if (item !== undefined) this.#used++;
    return item;
  }
}

/**
 * The reporter's reconnect schedule, as a small state machine with the
 * clock passed in: the delay doubles from the first up to a ceiling, goes
 * back to the first once attached, and while somebody waits for a debugger
 * (see {@link Backoff.hurry}) is never longer than {@link HURRY_RECONNECT_MS}.
 *
 * @module
 */

/** The longest wait between connection attempts. */
export const MAX_RECONNECT_MS = 5000;
/** The longest wait between connection attempts while somebody waits for a debugger. */
export const HURRY_RECONNECT_MS = 250;

/** How long to wait before each next connection attempt. */
export class Backoff {
  readonly #base: number;
  #delay: number;
  /** Until when (ms since the epoch) attempts come quickly. */
  #hurryUntil = 0;

  /** `base`: the first delay, ms. */
  constructor(base: number) {
    this.#base = base;
    this.#delay = base;
  }

  /** The delay before the next attempt, at `now` (ms since the epoch); the one after it is longer. */
  next(now: number): number {
    // While somebody waits for a debugger (hurry), every 250 ms at most: one that starts late is not missed.
    const delay = now < this.#hurryUntil ? Math.min(this.#delay, HURRY_RECONNECT_MS) : this.#delay;
    this.#delay = Math.min(this.#delay * 2, MAX_RECONNECT_MS);
    return delay;
  }

  /** Attached: the next time it is lost, start again from the first delay. */
  reset(): void {
    this.#delay = this.#base;
  }

  /** Somebody waits for a debugger for `ms` from `now`: attempts come quickly until then. */
  hurry(now: number, ms: number): void {
    this.#hurryUntil = Math.max(this.#hurryUntil, now + ms);
  }
}

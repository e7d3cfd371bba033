/**
 * What `--max-runs` deleted, said without flooding: a busy adapter past the
 * limit deletes a run for every run it records, so the deletions are
 * counted and said at most once a second (the first after a quiet second
 * at the end of the turn that made it), as one line and one live-feed
 * message each time.
 *
 * @module
 */

/** The line that says it, e.g. `deleted 12 oldest runs to keep --max-runs 200`. */
export function retentionLine(deleted: number, maxRuns: number): string {
  return `deleted ${deleted} oldest run${deleted === 1 ? '' : 's'} to keep --max-runs ${maxRuns}`;
}

/** Options for {@link RetentionNotice}. */
export interface RetentionNoticeOptions {
  /** Say that `deleted` runs were deleted. */
  say: (deleted: number) => void;
  /** The least time between two sayings, ms. @default 1000 */
  intervalMs?: number;
  /** @default Date.now */
  now?: () => number;
}

/** Counts what retention deletes and says it, coalesced (see the module). */
export class RetentionNotice {
  readonly #say: (deleted: number) => void;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #pending = 0;
  #lastSaid = -Infinity;
  #timer: NodeJS.Timeout | NodeJS.Immediate | undefined;

  constructor(options: RetentionNoticeOptions) {
    this.#say = options.say;
    this.#intervalMs = options.intervalMs ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /** Retention deleted `deleted` more runs. */
  add(deleted: number): void {
    this.#pending += deleted;
    if (this.#timer !== undefined) return;
    const wait = this.#lastSaid + this.#intervalMs - this.#now();
    // Unref'd: a deletion waiting to be said keeps no process alive; close() says it.
    this.#timer = wait <= 0 ? setImmediate(() => this.flush()) : setTimeout(() => this.flush(), wait);
    this.#timer.unref();
  }

  /** Say now what is counted and not said yet (also on close). */
  flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer as NodeJS.Timeout);
      clearImmediate(this.#timer as NodeJS.Immediate);
      this.#timer = undefined;
    }
    if (this.#pending === 0) return;
    const deleted = this.#pending;
    this.#pending = 0;
    this.#lastSaid = this.#now();
    this.#say(deleted);
  }
}

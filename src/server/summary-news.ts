/**
 * A run's summary changes with its calls (`calls`, `failedCalls`, `tools`)
 * and its meta (`client`, `server`): the live feed hears of it as a
 * `run.updated`, at most once per run every {@link SUMMARY_NEWS_MS}, so a
 * flood of calls makes a few messages, not one per call.
 *
 * @module
 */
import type { RunState } from '../protocol/run-state.js';
import type { LiveFeed } from './live-feed.js';

/** How often changed summaries are sent, at most: often enough for a list a person reads. */
export const SUMMARY_NEWS_MS = 250;

/** The changed summaries waiting to be sent (see the module). */
export class SummaryNews {
  readonly #waiting = new Set<RunState>();
  #timer: NodeJS.Timeout | undefined;

  /**
   * @param feed where the news goes
   * @param current is this state still the run the server keeps (not deleted)?
   */
  constructor(
    private readonly feed: LiveFeed,
    private readonly current: (state: RunState) => boolean,
  ) {}

  /** An event was applied to `state`: if its summary changed, it is sent with the next news. */
  note(state: RunState): void {
    if (!state.summaryChanged || this.feed.size === 0) return;
    this.#waiting.add(state);
    this.#timer ??= setTimeout(() => this.flush(), SUMMARY_NEWS_MS).unref();
  }

  /** Send what waits now. */
  flush(): void {
    this.#timer = undefined;
    for (const state of this.#waiting) {
      state.summaryChanged = false;
      // A run deleted meanwhile is not brought back to the viewers' lists.
      if (this.current(state)) this.feed.broadcast({ type: 'run.updated', run: { ...state.summary } });
    }
    this.#waiting.clear();
  }

}

/**
 * The start-up load as the viewers see it: the runs read from disk go out
 * on the live feed as `runs.loaded` messages, a few a second while the
 * load runs (not one per slice: a slice is 10 ms of work), and a last one
 * when it is done.
 *
 * @module
 */
import type { RunsLoading } from '../protocol/control.js';
import type { RunState } from '../protocol/run-state.js';
import type { LiveFeed } from './live-feed.js';
import type { RunStore } from './run-store.js';

/** The least time between two `runs.loaded` messages while the load runs, ms. */
const SEND_EVERY_MS = 250;

/**
 * Load `store`'s runs in the background ({@link RunStore.loadInBackground}),
 * telling the viewers of `feed`; resolves when the load is done (a
 * directory that cannot be listed is said on stderr, and the server goes
 * on with the runs it records).
 */
export async function broadcastLoad(store: RunStore, feed: LiveFeed): Promise<{ runs: number; skippedLines: number }> {
  let waiting: RunState[] = [];
  let lastSent = performance.now();
  const send = (loading: RunsLoading | null): void => {
    // Only those still here, as they are now: one deleted or changed meanwhile had its own message since.
    const runs = waiting.filter((state) => store.get(state.summary.runId) === state).map((state) => ({ ...state.summary }));
    waiting = [];
    lastSent = performance.now();
    feed.broadcast({ type: 'runs.loaded', runs, loading });
  };
  try {
    const done = await store.loadInBackground((states, progress) => {
      // Nobody listens: a viewer that connects later has them in its snapshot.
      if (feed.size === 0) {
        waiting = [];
        return;
      }
      for (const state of states) waiting.push(state);
      if (performance.now() - lastSent >= SEND_EVERY_MS) send(progress);
    });
    send(null);
    return done;
  } catch (error) {
    process.stderr.write(`graphmind: cannot load the runs in ${store.dir} (${error instanceof Error ? error.message : String(error)})\n`);
    send(null);
    return { runs: store.list().length, skippedLines: 0 };
  }
}

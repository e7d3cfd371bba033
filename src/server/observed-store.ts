/**
 * The server's run store, telling an observer of every event it applies
 * and of every run it ends for a reporter that went away: the OTLP stream
 * hangs here, so it sees runs exactly as they are recorded, and ingest
 * does not know it exists.
 *
 * @module
 */
import type { RunObserver } from '../export/run-observer.js';
import type { RunEvent } from '../protocol/ingest.js';
import type { BatchText } from './batch-text.js';
import { RunStore } from './run-store.js';
import type { RunState } from '../protocol/run-state.js';

/** A {@link RunStore} with an optional {@link RunObserver}. */
export class ObservedRunStore extends RunStore {
  /** Told of every event applied while {@link ObservedRunStore.muted} is false. */
  observer: RunObserver | undefined;
  /** While true nothing is told (a run being imported is not news). */
  muted = false;

  override append(event: RunEvent, batch?: BatchText, index = 0): RunState | undefined {
    const state = super.append(event, batch, index);
    if (state !== undefined && !this.muted) this.observer?.applied(state, event);
    return state;
  }

  /** As {@link RunStore.appendCompleted}; false (applied event by event, each told) while somebody is told of every event. */
  override appendCompleted(events: readonly RunEvent[], from: number, batch: BatchText | undefined, index: number): boolean {
    if (this.observer !== undefined && !this.muted) return false;
    return super.appendCompleted(events, from, batch, index);
  }

  override abandon(runId: string, t: number): RunState | undefined {
    const state = super.abandon(runId, t);
    if (state !== undefined && !this.muted) this.observer?.abandoned(state);
    return state;
  }
}

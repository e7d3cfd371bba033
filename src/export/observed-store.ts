/**
 * The server's run store, telling an observer of every event it applies
 * and of every run it ends for a reporter that went away: the OTLP stream
 * hangs here, so it sees runs exactly as they are recorded, and ingest
 * does not know it exists.
 *
 * @module
 */
import type { BatchText } from '../server/batch-text.js';
import type { RunEvent } from '../protocol/ingest.js';
import { RunStore } from '../server/run-store.js';
import type { RunState } from '../server/run-state.js';

/** Told of what the store records. Both calls are on ingest's path: they must be cheap and must not throw. */
export interface RunObserver {
  /** `event` was applied to `state` (and logged). */
  applied(state: RunState, event: RunEvent): void;
  /** The run was ended because its reporter went away (no `run.finished` came). */
  abandoned(state: RunState): void;
}

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

  override abandon(runId: string, t: number): RunState | undefined {
    const state = super.abandon(runId, t);
    if (state !== undefined && !this.muted) this.observer?.abandoned(state);
    return state;
  }
}

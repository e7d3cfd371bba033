/**
 * What watches a run store: told of every event the server records and of
 * every run it ends for a reporter that went away. The OTLP stream is one;
 * the server's store (server/observed-store.ts) tells it, so the exports
 * need nothing of the server but this interface.
 *
 * @module
 */
import type { RunEvent } from '../protocol/ingest.js';
import type { RunState } from '../protocol/run-state.js';

/** Told of what the store records. Both calls are on ingest's path: they must be cheap and must not throw. */
export interface RunObserver {
  /** `event` was applied to `state` (and logged). */
  applied(state: RunState, event: RunEvent): void;
  /** The run was ended because its reporter went away (no `run.finished` came). */
  abandoned(state: RunState): void;
}

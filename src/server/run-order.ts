/**
 * The runs of a store by start time, oldest first, for the run list and
 * for retention. Live runs start in order, so a run is added at the end
 * and nothing is sorted; runs that come out of order (logs loaded in the
 * order the directory lists them, an import of an old run) mark the order
 * unsorted, and it is sorted (stably, once) when next read. So retention
 * finds the oldest finished run without sorting every run for every new
 * one.
 *
 * @module
 */
import type { RunState } from '../protocol/run-state.js';

/** Removed one by one (a search and a splice each) up to this many at once; more: one filter. */
const SPLICE_MAX = 8;

function byStart(a: RunState, b: RunState): number {
  const x = a.summary.startedAt;
  const y = b.summary.startedAt;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Runs by start time (see the module). A tie keeps the order the runs were added in. */
export class RunOrder {
  #runs: RunState[] = [];
  #sorted = true;

  /** How many runs it holds. */
  get size(): number {
    return this.#runs.length;
  }

  /** Add a run (its start time must not change while it is here). */
  add(state: RunState): void {
    const last = this.#runs[this.#runs.length - 1];
    if (last !== undefined && last.summary.startedAt > state.summary.startedAt) this.#sorted = false;
    this.#runs.push(state);
  }

  /** Remove a run. */
  remove(state: RunState): void {
    const index = this.#runs.indexOf(state);
    if (index !== -1) this.#runs.splice(index, 1);
  }

  /** Remove these runs. */
  removeAll(states: readonly RunState[]): void {
    if (states.length <= SPLICE_MAX) {
      for (const state of states) this.remove(state);
      return;
    }
    const gone = new Set(states);
    this.#runs = this.#runs.filter((state) => !gone.has(state));
  }

  /** Every run, newest first; of runs that started in the same millisecond, the one added later first. */
  newestFirst(): RunState[] {
    return this.#inOrder().slice().reverse();
  }

  /** Up to `count` finished runs (not `running`), oldest first, `keep` (a run id) aside. */
  oldestFinished(count: number, keep: string | undefined): RunState[] {
    const found: RunState[] = [];
    if (count <= 0) return found;
    for (const state of this.#inOrder()) {
      if (state.summary.status === 'running' || state.summary.runId === keep) continue;
      found.push(state);
      if (found.length === count) break;
    }
    return found;
  }

  #inOrder(): RunState[] {
    if (!this.#sorted) {
      // Stable: a tie stays in the order added.
      this.#runs.sort(byStart);
      this.#sorted = true;
    }
    return this.#runs;
  }
}

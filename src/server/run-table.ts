/**
 * The runs a `RunStore` holds in memory: by id, by start time (see
 * run-order.ts) and counted per retention kind. A small run that arrived
 * whole is held as a `CompletedRecord` (its summary) until it is opened:
 * {@link RunTable.state} replays it then, in its place.
 *
 * @module
 */
import type { RunSummary } from '../protocol/run-model.js';
import type { RunState } from '../protocol/run-state.js';
import { CompletedRecord } from './completed-record.js';
import { RunOrder, retentionKind, type OrderedRun, type RetentionKind } from './run-order.js';

/** A run as the table holds it. */
export type StoredRun = RunState | CompletedRecord;

/** The runs in memory, by id, by start and per kind. */
export class RunTable {
  readonly #runs = new Map<string, StoredRun>();
  readonly #order = new RunOrder<StoredRun>();
  /**
   * How many runs of each retention kind are here (see `RetentionKind`).
   * A run's kind is read from its source, which its start sets once and
   * for all (no table beside it: a weak map entry per run cost the garbage
   * collector more than the rest of counting it).
   */
  readonly #kindCounts = new Map<RetentionKind, number>();

  /** Runs held. */
  get size(): number {
    return this.#runs.size;
  }

  /** Is the run here? */
  has(runId: string): boolean {
    return this.#runs.has(runId);
  }

  /** The run as held: a `RunState`, or a run still kept as its summary. */
  stored(runId: string): StoredRun | undefined {
    return this.#runs.get(runId);
  }

  /** The run as a `RunState`: one kept as its summary is replayed now, and takes its place. */
  state(runId: string): RunState | undefined {
    const run = this.#runs.get(runId);
    if (!(run instanceof CompletedRecord)) return run;
    const state = run.replay();
    this.#runs.set(runId, state);
    this.#order.replace(run, state);
    return state;
  }

  /** A run joins: in the map, the order and its kind's count. */
  add(run: StoredRun): void {
    this.#runs.set(run.summary.runId, run);
    this.#order.add(run);
    const kind = retentionKind(run.summary.source);
    this.#kindCounts.set(kind, (this.#kindCounts.get(kind) ?? 0) + 1);
  }

  /** The run leaves the order and its kind's count (it stays in the map until {@link RunTable.forget}). */
  unlist(run: StoredRun): void {
    this.#order.remove(run);
    this.#uncount(run);
  }

  /** The run leaves the map. */
  forget(runId: string): void {
    this.#runs.delete(runId);
  }

  /** Run summaries, newest first (see `RunOrder`), each a copy. */
  list(): RunSummary[] {
    return this.#order.newestFirst().map((run) => ({ ...run.summary }));
  }

  /**
   * The oldest finished runs of `kind` beyond `maxRuns` (`keep` aside),
   * taken out of the order and the count (all at once: one at a time would
   * cost a pass over the order per run); they stay in the map.
   */
  takeOldest(kind: RetentionKind, maxRuns: number, keep: string | undefined): StoredRun[] {
    const excess = (this.#kindCounts.get(kind) ?? 0) - maxRuns;
    if (excess <= 0) return [];
    const oldest = this.#order.oldestFinished(excess, keep, kind);
    this.#order.removeAll(oldest);
    for (const run of oldest) this.#uncount(run);
    return oldest;
  }

  #uncount(run: OrderedRun): void {
    const kind = retentionKind(run.summary.source);
    this.#kindCounts.set(kind, (this.#kindCounts.get(kind) ?? 1) - 1);
  }
}

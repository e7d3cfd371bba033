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
import type { RunSummary } from '../protocol/run-model.js';
import type { RunState } from '../protocol/run-state.js';

/** What the order keeps of a run: its summary (a `RunState`, or a run kept as its summary until it is opened). */
export interface OrderedRun {
  readonly summary: RunSummary;
}

function byStart(a: OrderedRun, b: OrderedRun): number {
  const x = a.summary.startedAt;
  const y = b.summary.startedAt;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Holes left before the array is compacted: at least this many, and half of it. */
const COMPACT_AT = 32;

/**
 * What `--max-runs` counts separately: the adapter's runs (one per request,
 * so thousands a minute from a busy server) and sessions (a proxy's,
 * `http-proxy`'s, an import, anything else). Each kind keeps up to
 * `--max-runs`, so a busy adapter never pushes the proxy sessions out of the
 * history.
 */
export type RetentionKind = 'adapter' | 'session';

/** The retention kind of a run from its `source`. */
export function retentionKind(source: string): RetentionKind {
  return source === 'mcp-adapter' ? 'adapter' : 'session';
}

/** The kinds, in the order retention looks at them. */
export const RETENTION_KINDS: readonly RetentionKind[] = ['adapter', 'session'];

/**
 * Runs by start time (see the module). A tie keeps the order the runs were
 * added in. A run removed leaves a hole (retention removes the oldest, near
 * the front: moving every run behind it, for every run recorded, cost more
 * than the rest of retention), and the holes go when they are half of it.
 */
export class RunOrder<T extends OrderedRun = RunState> {
  /** Oldest first; undefined where a run was removed. */
  #runs: Array<T | undefined> = [];
  /** Where the first run is: the holes before it are skipped for good. */
  #head = 0;
  #holes = 0;
  #sorted = true;

  /** How many runs it holds. */
  get size(): number {
    return this.#runs.length - this.#holes;
  }

  /** Add a run (its start time must not change while it is here). */
  add(state: T): void {
    const last = this.#runs[this.#runs.length - 1];
    if (last !== undefined && last.summary.startedAt > state.summary.startedAt) this.#sorted = false;
    this.#runs.push(state);
  }

  /** Remove a run. */
  remove(state: T): void {
    const index = this.#runs.indexOf(state, this.#head);
    if (index === -1) return;
    this.#runs[index] = undefined;
    this.#holes++;
    while (this.#head < this.#runs.length && this.#runs[this.#head] === undefined) this.#head++;
    if (this.#holes >= COMPACT_AT && this.#holes * 2 >= this.#runs.length) this.#compact();
  }

  /** `next` takes the place of `run` (the same run, opened: the same start time). */
  replace(run: T, next: T): void {
    const index = this.#runs.indexOf(run, this.#head);
    if (index !== -1) this.#runs[index] = next;
  }

  /** Remove these runs. */
  removeAll(states: readonly T[]): void {
    for (const state of states) this.remove(state);
  }

  /** Every run, newest first; of runs that started in the same millisecond, the one added later first. */
  newestFirst(): T[] {
    const runs = this.#inOrder();
    const out: T[] = [];
    for (let i = runs.length - 1; i >= this.#head; i--) {
      const state = runs[i];
      if (state !== undefined) out.push(state);
    }
    return out;
  }

  /** Up to `count` finished runs (not `running`) of the retention `kind`, oldest first, `keep` (a run id) aside. */
  oldestFinished(count: number, keep: string | undefined, kind?: RetentionKind): T[] {
    const found: T[] = [];
    if (count <= 0) return found;
    const runs = this.#inOrder();
    for (let i = this.#head; i < runs.length; i++) {
      const state = runs[i];
      if (state === undefined || state.summary.status === 'running' || state.summary.runId === keep) continue;
      if (kind !== undefined && retentionKind(state.summary.source) !== kind) continue;
      found.push(state);
      if (found.length === count) break;
    }
    return found;
  }

  /** The array, sorted (and without holes, when it had to be sorted). */
  #inOrder(): Array<T | undefined> {
    if (!this.#sorted) {
      this.#compact();
      // Stable: a tie stays in the order added.
      (this.#runs as T[]).sort(byStart);
      this.#sorted = true;
    }
    return this.#runs;
  }

  #compact(): void {
    if (this.#holes === 0) return;
    this.#runs = this.#runs.filter((state) => state !== undefined);
    this.#head = 0;
    this.#holes = 0;
  }
}

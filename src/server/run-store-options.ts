/**
 * What a `RunStore` is given: see run-store.ts.
 *
 * @module
 */
/** Options for `RunStore`. */
export interface RunStoreOptions {
  /** Where the logs live: `<dataDir>/runs`. */
  dir: string;
  /**
   * Runs kept of each retention kind (the adapter's runs; sessions): past
   * it the kind's oldest finished runs are deleted; a running one never is
   * (its reporter is live), so live runs may exceed it until they finish.
   * @default 200
   */
  maxRuns?: number;
  /** Told of every run that retention deletes (a delete asked for through `RunStore.delete` is the caller's to announce). */
  onRetentionDelete?: (runId: string) => void;
  /** Told once per pass of retention that deleted runs: how many it deleted (after each run's {@link onRetentionDelete}). */
  onRetention?: (deleted: number) => void;
  /**
   * Log files open at once. Past it the log written least recently is
   * closed, and reopened to append when it is next written. @default 64
   */
  maxOpenLogs?: number;
  /**
   * Told, in one line, of a log that cannot be loaded (not a regular file,
   * unreadable) or written (once per run: its log stops there).
   * @default writes `graphmind: <line>` on stderr
   */
  onWarning?: (line: string) => void;
  /**
   * The adapter's runs start in shared segment files (see
   * segment-rules.ts) instead of a log each; serve turns it on. Segments
   * are read (loaded, exported) either way. @default false
   */
  segments?: boolean;
}

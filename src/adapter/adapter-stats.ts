/** Counts the adapter keeps (see `gm.session.stats`). */
export interface AdapterStats {
  /** Runs started (one per request, plus one per connection). */
  runs: number;
  /** Handler calls gated (tools, resources, prompts). */
  calls: number;
  /** Calls that ended in error. */
  errors: number;
  /** Holds opened. */
  holds: number;
  /** Sampling requests gated. */
  sampling: number;
}

/** A fresh set of counts, all zero. */
export function newStats(): AdapterStats {
  return { runs: 0, calls: 0, errors: 0, holds: 0, sampling: 0 };
}

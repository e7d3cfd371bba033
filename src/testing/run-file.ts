/**
 * The run a test names: a run log or an mcp-recorder cassette, by path or
 * `file:` URL (`new URL('./fixtures/search.jsonl', import.meta.url)`, so
 * a test finds its fixture wherever it runs from), read once, or an error
 * that says in one line why it cannot be used.
 *
 * @module
 */
import { fileURLToPath } from 'node:url';
import { loadRun } from '../replay/load-run.js';
import type { RecordedRun } from '../replay/recorded-run.js';

/**
 * Thrown when a run cannot be replayed or verified at all: the file is not
 * a run, its values were hidden when it was recorded, or the server could
 * not be started, reached, or never answered. Its message is the one line
 * `graphmind replay` or `graphmind verify` would print (exit 2).
 */
export class CannotRunError extends Error {
  /** Always `'ERR_GRAPHMIND_CANNOT_RUN'`. */
  readonly code = 'ERR_GRAPHMIND_CANNOT_RUN';

  /** `message`: the one line. */
  constructor(message: string) {
    super(message);
    this.name = 'CannotRunError';
  }
}

/** A run given as a path or a `file:` URL, as a path. */
export function runPath(run: string | URL): string {
  return run instanceof URL ? fileURLToPath(run) : run;
}

/** Read the run at `path` for `verb` (`replay`, `verify`), or throw a {@link CannotRunError}. */
export function readRun(path: string, verb: string): RecordedRun {
  const loaded = loadRun(path);
  if (!loaded.ok) throw new CannotRunError(`cannot ${verb} ${path}: ${loaded.reason}`);
  const run = loaded.run;
  if (run.missing.length > 0) throw new CannotRunError(`cannot ${verb} ${path}: the recording lacks ${run.missing.join('; ')} (recorded with GRAPHMIND_HIDE_* or too large); record it again without them`);
  return run;
}

/**
 * `graphmind import` into a data directory no debugger serves: the log is
 * written where the next `graphmind serve` loads it, and that start trims
 * the directory to `--max-runs`, oldest first. An import that would make
 * the next start delete runs (perhaps the one just imported, if it is the
 * oldest) says so and writes nothing, unless `--allow-trim` is given.
 *
 * @module
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_ID_PATTERN } from '../protocol/run-model.js';

/** serve's `--max-runs` default, which `graphmind import --max-runs` matches. */
export const DEFAULT_MAX_RUNS = 200;

/** The run logs in `<dataDir>/runs` that the next start loads (and counts toward `--max-runs`). */
export function runLogsIn(dataDir: string): number {
  let names: string[];
  try {
    names = readdirSync(join(dataDir, 'runs'));
  } catch {
    return 0;
  }
  let count = 0;
  for (const name of names) if (name.endsWith('.jsonl') && RUN_ID_PATTERN.test(name.slice(0, -'.jsonl'.length))) count++;
  return count;
}

/** How many runs the next start deletes once one more is added to `runsHere`, at `maxRuns`. */
export function trimmedByNextStart(runsHere: number, maxRuns: number): number {
  return Math.max(0, runsHere + 1 - maxRuns);
}

/**
 * What `graphmind import` says about retention before it writes into
 * `dataDir`: nothing (`undefined`) when the next start trims nothing; a
 * refusal when it would and `--allow-trim` was not given; a warning when
 * it was.
 */
export function retentionNotice(dataDir: string, runsHere: number, maxRuns: number, allowTrim: boolean): { refuse: boolean; line: string } | undefined {
  const trimmed = trimmedByNextStart(runsHere, maxRuns);
  if (trimmed === 0) return undefined;
  const what = `${dataDir} holds ${runsHere} run${runsHere === 1 ? '' : 's'} and --max-runs is ${maxRuns}: with this one the next graphmind serve deletes the ${trimmed} oldest (this run among them if it is older than the rest)`;
  if (!allowTrim) return { refuse: true, line: `${what}; nothing was imported. Give --allow-trim to import it anyway, or a larger --max-runs to import and to serve` };
  return { refuse: false, line: `${what} (--allow-trim)` };
}

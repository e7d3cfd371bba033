// What the run list's chips count and its filters let through, as pure
// rules (no DOM): by status (a run with failed calls counts among the
// runs with errors), by source (the stdio proxy, the HTTP proxy, the
// adapter), and by text in anything that names the run (protocol/run-match).
import { hasErrors } from '../protocol/run-counts.js';
import { runMentions } from '../protocol/run-match.js';
import type { RunSummary, Status } from '../protocol/run-model.js';

/** The run-list filter by status. */
export type RunFilter = 'all' | Status;
/** The run-list filter by source: the stdio proxy's runs (`mcp-proxy`), the HTTP proxy's (`mcp-http-proxy`) or the adapter's (`mcp-adapter`). */
export type SourceFilter = 'all' | 'proxy' | 'http' | 'adapter';

/** The source chips, in order: the filter, its label, and the `source` it keeps. */
export const SOURCE_FILTERS: ReadonlyArray<{ filter: SourceFilter; label: string; source?: string }> = [
  { filter: 'all', label: 'any source' },
  { filter: 'proxy', label: 'proxy', source: 'mcp-proxy' },
  { filter: 'http', label: 'http proxy', source: 'mcp-http-proxy' },
  { filter: 'adapter', label: 'adapter', source: 'mcp-adapter' },
];

/**
 * Does the status chip `filter` count `run`? `running`: the runs still
 * running; `ok`: the ended runs that ended ok with no failed call;
 * `error`: the runs that ended in error and the runs (running or not)
 * with at least one failed call. So a running run with failed calls is
 * counted by both `running` and `error`.
 */
export function statusPasses(run: RunSummary, filter: RunFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'running':
      return run.status === 'running';
    case 'ok':
      return run.status === 'ok' && !hasErrors(run);
    case 'error':
      return hasErrors(run);
  }
}

/** Does the source chip `filter` keep `run`? */
export function sourcePasses(run: RunSummary, filter: SourceFilter): boolean {
  if (filter === 'all') return true;
  return run.source === SOURCE_FILTERS.find((f) => f.filter === filter)?.source;
}

/** Does `run` pass the run list's filters (status, source, and `text`, trimmed, case ignored)? */
export function passesFilters(run: RunSummary, status: RunFilter, source: SourceFilter, text: string): boolean {
  if (!statusPasses(run, status) || !sourcePasses(run, source)) return false;
  const needle = text.trim().toLowerCase();
  return needle === '' || runMentions(run, needle);
}

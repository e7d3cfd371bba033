/**
 * Finding runs by text in their summaries: the one rule behind the
 * viewer's run filter and `graphmind mcp`'s `list_runs` `text`.
 *
 * @module
 */
import type { RunSummary } from './run-model.js';

/**
 * Does `run` hold `needle` (lower case, not empty) in its name (a proxy
 * run's is its server's command line), its server's or client's name, the
 * name of a tool it called, or its adapter connection's server?
 */
export function runMentions(run: RunSummary, needle: string): boolean {
  const has = (text: unknown): boolean => typeof text === 'string' && text.toLowerCase().includes(needle);
  return has(run.name) || has(run.server?.name) || has(run.client?.name) || has(run.group?.server) || (Array.isArray(run.tools) && run.tools.some(has));
}

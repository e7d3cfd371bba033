// Where a breakpoint holds: on one server (its serverInfo.name) or on every
// server. The server a run is of, as the proxies and the adapter match it,
// and words for a scope. No DOM.
import type { RunSummary } from '../protocol/run-model.js';
import type { Breakpoints, NodeBreakpoint } from '../protocol/control.js';

/**
 * The name scoped breakpoints match for a run: its server's
 * `serverInfo.name` (the proxies read it from the answer to `initialize`),
 * else the adapter's `meta.server` (the wrapped server's name). Undefined
 * while unknown (the server has not answered `initialize`).
 */
export function runServerName(summary: RunSummary, meta: Record<string, unknown>): string | undefined {
  const named = summary.server?.name;
  if (named !== undefined) return named;
  const info = meta.serverInfo;
  if (info !== null && typeof info === 'object' && !Array.isArray(info)) {
    const name = (info as Record<string, unknown>).name;
    if (typeof name === 'string' && name !== '' && name.length <= 256) return name;
  }
  const adapter = meta.server;
  return typeof adapter === 'string' && adapter !== '' && adapter.length <= 256 ? adapter : undefined;
}

/** A server name as the page shows it: quoted, and cut when long. */
export function serverLabel(name: string): string {
  return JSON.stringify(name.length > 60 ? `${name.slice(0, 59)}…` : name);
}

/** A breakpoint's scope in words: `every server` or `server "weather"`. */
export function scopeText(bp: NodeBreakpoint): string {
  return bp.server === undefined ? 'every server' : `server ${serverLabel(bp.server)}`;
}

/** Does `bp` hold calls of a run whose server is `server` (undefined: not known yet, when only breakpoints for every server do)? */
export function appliesTo(bp: NodeBreakpoint, server: string | undefined): boolean {
  return bp.server === undefined || bp.server === server;
}

/** The node breakpoints that hold anything (a gate on), as [nodeId, breakpoint]. */
export function activeBreakpoints(breakpoints: Breakpoints): Array<[string, NodeBreakpoint]> {
  return Object.entries(breakpoints.nodes).filter(([, bp]) => bp.before === true || bp.after === true);
}

/** The active breakpoints counted by scope: every server first, then each server by name. */
export function countByScope(breakpoints: Breakpoints): Array<{ server: string | undefined; count: number }> {
  const counts = new Map<string | undefined, number>();
  for (const [, bp] of activeBreakpoints(breakpoints)) counts.set(bp.server, (counts.get(bp.server) ?? 0) + 1);
  return [...counts]
    .map(([server, count]) => ({ server, count }))
    .sort((a, b) => (a.server === undefined ? -1 : b.server === undefined ? 1 : a.server.localeCompare(b.server)));
}

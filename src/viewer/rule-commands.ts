// Rules (conditional breakpoints and logpoints) sent to the server: the PUT
// of a new list (made by rule-list.ts), which keeps the nodes and
// pause-on-error and reports where a refused expression is wrong. Hit counts
// and armed states come back on the live feed (a `breakpoints` message).
import type { BreakpointRule, Breakpoints } from '../protocol/control.js';
import { ApiError, api } from './api.js';
import type { CommandHost } from './commands.js';
import { Dirty } from './view-state.js';

/** What a PUT of rules came to: saved, or refused with the server's words and where the mistake is. */
export type RulesSaved = { ok: true } | { ok: false; error: string; position?: number; rule?: number };

/**
 * Replace the rules on the server, keeping the nodes and pause-on-error
 * (and whatever else the breakpoints carry). Not shown before the server
 * takes them: a refused expression leaves the rules as they were, and the
 * answer says why and where.
 */
export async function putRules(host: CommandHost, rules: BreakpointRule[]): Promise<RulesSaved> {
  const next: Breakpoints = { ...host.breakpoints, rules };
  try {
    const answer = await api.putBreakpoints(next);
    host.breakpoints = answer;
    host.mark(Dirty.Breakpoints);
    return { ok: true };
  } catch (error) {
    const message = error instanceof Error ? error.message : 'error';
    if (error instanceof ApiError) return { ok: false, error: message, ...error.place };
    return { ok: false, error: message };
  }
}


// Rules (conditional breakpoints and logpoints) sent to the server: the PUT
// of a new list (made by rule-list.ts), which keeps the nodes and
// pause-on-error and reports where a refused expression is wrong; and the
// fetch of their hit counts.
import type { BreakpointRule, Breakpoints } from '../protocol/control.js';
import { ApiError, api } from './api.js';
import type { CommandHost } from './commands.js';
import { rulesOf } from './rule-list.js';
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

/** The least time between two fetches of the rules' hit counts, ms. */
const REFRESH_MS = 1000;
let refreshAt = 0;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * Fetch the breakpoints again, for the rules' hit counts and armed state
 * (they change as calls match, which the live feed does not carry): at
 * most once a second, and only while there are rules. Called when holds or
 * the run change.
 */
export function refreshRules(host: CommandHost): void {
  if (rulesOf(host.breakpoints).length === 0 || refreshTimer !== undefined) return;
  const wait = Math.max(0, refreshAt + REFRESH_MS - Date.now());
  refreshTimer = setTimeout(() => {
    refreshTimer = undefined;
    refreshAt = Date.now();
    const asked = host.breakpoints;
    api.breakpoints().then(
      (answer) => {
        // A change made meanwhile (a PUT from this page) wins over the older answer.
        if (host.breakpoints !== asked) return;
        host.breakpoints = answer;
        host.mark(Dirty.Breakpoints);
      },
      () => {},
    );
  }, wait);
}

// Rules (conditional breakpoints and logpoints) as the page changes them:
// the rule list to PUT for an add, an edit, a toggle or a delete (pure, see
// test/viewer-rule-commands.test.ts), and the PUT itself, which keeps the
// nodes and pause-on-error and reports where a refused expression is wrong.
import type { BreakpointRule, Breakpoints, RuleState } from '../protocol/control.js';
import { ApiError, api } from './api.js';
import type { CommandHost } from './commands.js';
import { Dirty } from './view-state.js';

/** A rule as the page holds it: as GET gives it (with its hit count and armed state), or as the page made it (not yet saved). */
export type ShownRule = BreakpointRule & Partial<Pick<RuleState, 'hitCount' | 'armed'>>;

/** The rule as a PUT carries it: its own fields only (the hit count and armed state are the server's). */
export function ruleForPut(rule: ShownRule): BreakpointRule {
  const out: BreakpointRule = { when: rule.when };
  if (rule.id !== undefined) out.id = rule.id;
  if (rule.gate !== undefined) out.gate = rule.gate;
  if (rule.action !== undefined) out.action = rule.action;
  if (rule.hits !== undefined) out.hits = rule.hits;
  if (rule.enabled !== undefined) out.enabled = rule.enabled;
  return out;
}

/** The rules the page has now (none when the server sent none). */
export function rulesOf(breakpoints: Breakpoints): ShownRule[] {
  return (breakpoints.rules ?? []) as ShownRule[];
}

/** The rules with `rule` added at the end. */
export function addedRule(rules: readonly ShownRule[], rule: BreakpointRule): BreakpointRule[] {
  return [...rules.map(ruleForPut), ruleForPut(rule)];
}

/** The rules with the one at `index` replaced by `rule` (its id kept when `rule` has none). */
export function editedRule(rules: readonly ShownRule[], index: number, rule: BreakpointRule): BreakpointRule[] {
  return rules.map((r, i) => (i === index ? ruleForPut({ ...rule, id: rule.id ?? r.id }) : ruleForPut(r)));
}

/** The rules with the one at `index` enabled or disabled. */
export function toggledRule(rules: readonly ShownRule[], index: number, enabled: boolean): BreakpointRule[] {
  return rules.map((r, i) => (i === index ? { ...ruleForPut(r), enabled } : ruleForPut(r)));
}

/** The rules without the one at `index`. */
export function removedRule(rules: readonly ShownRule[], index: number): BreakpointRule[] {
  return rules.filter((_, i) => i !== index).map(ruleForPut);
}

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

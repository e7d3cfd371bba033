// A rule list as the page changes it, and rules in words: pure functions
// (playbooks in test/viewer-rule-list.test.ts). A change makes the whole
// list to PUT (rule-commands.ts), each rule with its own fields only.
import type { BreakpointRule, Breakpoints, RuleState } from '../protocol/control.js';
import { plural } from './format.js';

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

/** `breakpoints` without its rules: a PUT of it leaves the server's rules as they are. */
export function withoutRules(breakpoints: Breakpoints): Breakpoints {
  const { rules: _rules, ...rest } = breakpoints;
  return rest;
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

/** `every match`, `once`, `first 3`: a rule's hits in words. */
export function hitsText(hits: ShownRule['hits']): string {
  if (hits === 'once') return 'once';
  if (typeof hits === 'number') return `first ${hits}`;
  return 'every match';
}

/** `3 hits · armed`, `1 hit · disarmed`: what GET says of a rule (nothing for a rule it has not counted). */
export function ruleStateText(rule: ShownRule): string {
  const parts: string[] = [];
  if (typeof rule.hitCount === 'number') parts.push(plural(rule.hitCount, 'hit'));
  if (rule.enabled === false) parts.push('disabled');
  else if (rule.armed === false) parts.push('disarmed (its hits are used up)');
  else if (rule.armed === true) parts.push('armed');
  return parts.join(' · ');
}

/** The `hits` field from the form's choice and count: `every`, `once`, or a positive whole number. */
export function hitsOf(choice: string, count: string): BreakpointRule['hits'] | { error: string } {
  if (choice === 'once') return 'once';
  if (choice !== 'count') return 'every';
  const n = Number(count.trim());
  if (!Number.isInteger(n) || n < 1) return { error: 'hits: a whole number of 1 or more' };
  return n;
}

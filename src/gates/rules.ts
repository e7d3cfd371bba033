/**
 * Rules (conditional breakpoints and logpoints) where the frame is: the
 * rules of a {@link Breakpoints} compiled once per update into a
 * {@link RuleSet}, split by gate and action, so that a frame at a gate
 * evaluates only the rules that could act on it, and a gate with no rule
 * costs one length check.
 *
 * @module
 */
import { compileCondition, conditionValues, evaluateCondition, type Condition, type ConditionSubject } from '../conditions/index.js';
import type { BreakpointRule } from '../protocol/control.js';

/** A rule compiled for a gate: its expression, and the matches it may still act on. */
export interface CompiledRule {
  /** The rule's id (`rule-<n>` when the server gave it). */
  readonly id: string;
  /** Its `when`, compiled. */
  readonly condition: Condition;
  /**
   * Matches it may still act on here: counted down on each, the rule
   * disarmed at 0 (`Infinity` for `every`). Counted by the reporter itself,
   * so that `once` holds once even before the server has heard of the hit.
   */
  left: number;
}

/** A logpoint that matched: the rule, and the values its expression looked at. */
export interface LogpointHit {
  /** The logpoint's id. */
  ruleId: string;
  /** What its expression looked at (`conditionValues`). */
  values: Array<{ at: string; value: unknown }>;
}

const NONE: readonly CompiledRule[] = Object.freeze([]);

/** How many matches `hits` allows: `every` none counted, `once` one, a number that many. */
export function hitsAllowed(hits: BreakpointRule['hits']): number {
  if (hits === undefined || hits === 'every') return Infinity;
  if (hits === 'once') return 1;
  return typeof hits === 'number' && Number.isSafeInteger(hits) && hits > 0 ? hits : 0;
}

/** The first rule of `rules` (armed) that matches `subject`, counted; undefined if none. */
function first(rules: readonly CompiledRule[], subject: ConditionSubject): CompiledRule | undefined {
  for (const rule of rules) {
    if (rule.left > 0 && evaluateCondition(rule.condition, subject)) {
      rule.left--;
      return rule;
    }
  }
  return undefined;
}

/**
 * The rules in force at a reporter, compiled. A rule whose expression does
 * not compile (the server checks them, so only a foreign server sends one)
 * or that is disabled is left out: it never holds by mistake.
 */
export class RuleSet {
  /** Pause rules at the before gate, in the order given (the first that matches holds). */
  readonly pauseBefore: readonly CompiledRule[];
  /** Pause rules at the after gate. */
  readonly pauseAfter: readonly CompiledRule[];
  /** Logpoints at the before gate (every one that matches logs). */
  readonly logBefore: readonly CompiledRule[];
  /** Logpoints at the after gate. */
  readonly logAfter: readonly CompiledRule[];
  /** True when there is no rule at all: the gates skip rules with this one check. */
  readonly empty: boolean;

  constructor(rules: readonly BreakpointRule[] | undefined) {
    const lists = { pauseBefore: [] as CompiledRule[], pauseAfter: [] as CompiledRule[], logBefore: [] as CompiledRule[], logAfter: [] as CompiledRule[] };
    for (const [index, rule] of (rules ?? []).entries()) {
      // Checked by the server, but a reporter acts on no malformed rule whoever sent it.
      if (rule === null || typeof rule !== 'object' || typeof rule.when !== 'string' || rule.enabled === false) continue;
      const compiled = compileCondition(rule.when);
      if (!compiled.ok) continue;
      const left = hitsAllowed(rule.hits);
      if (!(left > 0)) continue;
      const gate = rule.gate ?? 'before';
      const log = rule.action === 'log';
      const id = typeof rule.id === 'string' ? rule.id : `rule-${index + 1}`;
      // One compiled rule for both gates: its count is shared, as the server counts it.
      const entry: CompiledRule = { id, condition: compiled.condition, left };
      if (gate !== 'after') (log ? lists.logBefore : lists.pauseBefore).push(entry);
      if (gate !== 'before') (log ? lists.logAfter : lists.pauseAfter).push(entry);
    }
    this.pauseBefore = lists.pauseBefore.length > 0 ? lists.pauseBefore : NONE;
    this.pauseAfter = lists.pauseAfter.length > 0 ? lists.pauseAfter : NONE;
    this.logBefore = lists.logBefore.length > 0 ? lists.logBefore : NONE;
    this.logAfter = lists.logAfter.length > 0 ? lists.logAfter : NONE;
    this.empty = this.pauseBefore.length + this.pauseAfter.length + this.logBefore.length + this.logAfter.length === 0;
  }

  /** Any rule at `point`? (The frame's subject is built only then.) */
  at(point: 'before' | 'after'): boolean {
    return point === 'before' ? this.pauseBefore.length + this.logBefore.length > 0 : this.pauseAfter.length + this.logAfter.length > 0;
  }

  /** The id of the first armed pause rule at `point` that matches `subject` (its hit counted), or undefined. */
  pause(point: 'before' | 'after', subject: ConditionSubject): string | undefined {
    const rules = point === 'before' ? this.pauseBefore : this.pauseAfter;
    return rules.length === 0 ? undefined : first(rules, subject)?.id;
  }

  /** Every armed logpoint at `point` that matches `subject` (each hit counted), with the values it looked at. */
  logs(point: 'before' | 'after', subject: ConditionSubject): LogpointHit[] | undefined {
    const rules = point === 'before' ? this.logBefore : this.logAfter;
    let hits: LogpointHit[] | undefined;
    for (const rule of rules) {
      if (rule.left <= 0 || !evaluateCondition(rule.condition, subject)) continue;
      rule.left--;
      (hits ??= []).push({ ruleId: rule.id, values: conditionValues(rule.condition, subject) });
    }
    return hits;
  }
}

/** The rule set with no rule (the default until the server sends rules). */
export const NO_RULES = new RuleSet(undefined);

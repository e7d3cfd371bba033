/**
 * The rules of the breakpoints (conditional breakpoints and logpoints) on
 * the server's side: the check of a `PUT /api/breakpoints` body's `rules`,
 * and the {@link RuleBook} that gives them ids, counts their hits as
 * reporters tell of them and disarms those whose hits are used up.
 *
 * @module
 */
import { compileCondition } from '../conditions/index.js';
import { MAX_RULES, type BreakpointRule, type RuleState } from '../protocol/control.js';
import { hitsAllowed } from '../gates/rules.js';

/** A rule the server cannot take: why, which one (its index in `rules`), and where in its `when` for an expression. */
export interface RuleProblem {
  /** One line saying what is wrong. */
  error: string;
  /** The rule's index in the body's `rules` (from 0); absent when `rules` itself is wrong. */
  rule?: number;
  /** For a bad expression: the 0-based offset in `when` of its first error. */
  position?: number;
}

/** What a rule's `id` may be: short, and safe in a stderr line and a URL. */
const RULE_ID = /^[A-Za-z0-9_.:-]{1,64}$/;
const GATES = new Set(['before', 'after', 'both']);
const ACTIONS = new Set(['pause', 'log']);
/** The keys a rule takes; `hitCount` and `armed` (GET's) are taken and ignored, so GET's answer can be PUT back. */
const KEYS = new Set(['id', 'when', 'gate', 'action', 'hits', 'enabled', 'hitCount', 'armed']);

/** One rule checked: a clean copy, or what is wrong with it. */
function parseRule(value: unknown, index: number): BreakpointRule | RuleProblem {
  const bad = (why: string): RuleProblem => ({ error: `rules[${index}]: ${why}`, rule: index });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad('each rule is { id?, when, gate?, action?, hits?, enabled? }');
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!KEYS.has(key)) return bad('a rule takes only id, when, gate, action, hits and enabled');
  const { id, when, gate, action, hits, enabled } = fields;
  if (id !== undefined && (typeof id !== 'string' || !RULE_ID.test(id))) return bad('id must be 1 to 64 letters, digits, or _ . : -');
  if (typeof when !== 'string') return bad('when must be an expression (a string)');
  const compiled = compileCondition(when);
  if (!compiled.ok) return { error: `rules[${index}].when: ${compiled.error}`, rule: index, position: compiled.position };
  if (gate !== undefined && (typeof gate !== 'string' || !GATES.has(gate))) return bad('gate must be before, after or both');
  if (action !== undefined && (typeof action !== 'string' || !ACTIONS.has(action))) return bad('action must be pause or log');
  if (hits !== undefined && hits !== 'every' && hits !== 'once' && !(typeof hits === 'number' && Number.isSafeInteger(hits) && hits > 0)) {
    return bad('hits must be every, once or a positive integer');
  }
  if (enabled !== undefined && typeof enabled !== 'boolean') return bad('enabled must be true or false');
  const rule: BreakpointRule = { when };
  if (id !== undefined) rule.id = id;
  if (gate !== undefined) rule.gate = gate as BreakpointRule['gate'];
  if (action !== undefined) rule.action = action as BreakpointRule['action'];
  if (hits !== undefined) rule.hits = hits as BreakpointRule['hits'];
  if (enabled !== undefined) rule.enabled = enabled;
  return rule;
}

/**
 * Check the `rules` of a `PUT /api/breakpoints` body: clean copies, or the
 * first problem (with the rule's index, and for a bad expression the
 * position of its first error). At most {@link MAX_RULES}; ids unique.
 */
export function parseRules(value: unknown): BreakpointRule[] | RuleProblem {
  if (!Array.isArray(value)) return { error: 'rules must be an array of rules' };
  if (value.length > MAX_RULES) return { error: `at most ${MAX_RULES} rules (this has ${value.length})` };
  const rules: BreakpointRule[] = [];
  const ids = new Set<string>();
  for (const [index, item] of value.entries()) {
    const rule = parseRule(item, index);
    if ('error' in rule) return rule;
    if (rule.id !== undefined) {
      if (ids.has(rule.id)) return { error: `rules[${index}]: the id ${rule.id} is given twice`, rule: index };
      ids.add(rule.id);
    }
    rules.push(rule);
  }
  return rules;
}

/** What makes a rule the same rule across a PUT: its hit count carries over only then. */
const sameRule = (a: RuleState, b: BreakpointRule): boolean =>
  a.when === b.when && a.gate === (b.gate ?? 'before') && a.action === (b.action ?? 'pause') && a.hits === (b.hits ?? 'every');

/**
 * The rules in force on the server, with every default filled in, their
 * hit counts and whether each is armed. A rule without an id is given
 * `rule-<n>` (a number never given before on this server, so a late hit
 * of an older rule is never counted on a new one). A rule PUT again with
 * the same id, `when`, `gate`, `action` and `hits` keeps its count (and
 * stays disarmed if it was); any other starts again at 0, armed.
 */
export class RuleBook {
  #rules: RuleState[] = [];
  readonly #byId = new Map<string, RuleState>();
  #next = 1;

  /** The rules as GET returns them (copies). */
  states(): RuleState[] {
    return this.#rules.map((rule) => ({ ...rule }));
  }

  /** True when there is no rule. */
  get size(): number {
    return this.#rules.length;
  }

  /** The rules a reporter acts on: enabled and armed, with the hits each has left (so a reporter never counts past them). */
  forReporters(): BreakpointRule[] {
    const out: BreakpointRule[] = [];
    for (const rule of this.#rules) {
      if (!rule.enabled || !rule.armed) continue;
      const left = hitsAllowed(rule.hits) - rule.hitCount;
      out.push({ id: rule.id, when: rule.when, gate: rule.gate, action: rule.action, hits: Number.isFinite(left) ? left : 'every' });
    }
    return out;
  }

  /** Replace the rules (checked by {@link parseRules}). */
  replace(rules: readonly BreakpointRule[]): void {
    const taken = new Set<string>();
    for (const rule of rules) {
      if (rule.id === undefined) continue;
      taken.add(rule.id);
      // A given `rule-<n>` moves the numbering past it: a number is never given twice.
      const n = /^rule-(\d{1,15})$/.exec(rule.id);
      if (n !== null) this.#next = Math.max(this.#next, Number(n[1]) + 1);
    }
    const next: RuleState[] = [];
    for (const rule of rules) {
      let id = rule.id;
      while (id === undefined || (id !== rule.id && taken.has(id))) id = `rule-${this.#next++}`;
      taken.add(id);
      const before = rule.id === undefined ? undefined : this.#byId.get(rule.id);
      const kept = before !== undefined && sameRule(before, rule);
      next.push({
        id,
        when: rule.when,
        gate: rule.gate ?? 'before',
        action: rule.action ?? 'pause',
        hits: rule.hits ?? 'every',
        enabled: rule.enabled ?? true,
        hitCount: kept ? before.hitCount : 0,
        armed: kept ? before.armed : true,
      });
    }
    this.#rules = next;
    this.#byId.clear();
    for (const rule of next) this.#byId.set(rule.id, rule);
  }

  /**
   * A reporter says rule `ruleId` matched (it held a frame, or logged).
   * `'disarmed'` when that used up its hits (reporters must be told),
   * `'counted'` otherwise, undefined for a rule not in force (an old one).
   */
  hit(ruleId: string): 'counted' | 'disarmed' | undefined {
    const rule = this.#byId.get(ruleId);
    if (rule === undefined) return undefined;
    rule.hitCount++;
    if (rule.armed && rule.hitCount >= hitsAllowed(rule.hits)) {
      rule.armed = false;
      return 'disarmed';
    }
    return 'counted';
  }
}

// Why a frame held by a rule holds: the rule's id and its expression (as
// text), looked up in the breakpoints the page has.
import type { BreakpointRule, Hold } from '../protocol/control.js';
import { el } from './dom.js';
import { cut } from './format.js';

/** The sentence under a hold with `reason: "rule"`: which rule held it, and what it matches. */
export function ruleWhy(hold: Hold, rules: readonly BreakpointRule[] | undefined): HTMLElement {
  const id = hold.ruleId;
  const rule = id === undefined ? undefined : rules?.find((r) => r.id === id);
  return el(
    'p',
    { class: 'hold-why rule-why' },
    el('strong', { text: 'Rule: ' }),
    id === undefined ? 'a rule matched this frame' : el('code', { class: 'hold-rule-id', text: cut(id, 64), title: id }),
    rule === undefined ? null : ' matched: ',
    rule === undefined ? null : el('code', { class: 'hold-rule-when', text: cut(rule.when, 300), title: rule.when }),
    id === undefined ? '.' : '. Edit or disable it in Breakpoints.',
  );
}

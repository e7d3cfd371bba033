// The rules in the Breakpoints panel: conditional breakpoints and
// logpoints, each with its expression (as text), gate, action and hits, a
// switch to enable it, its hit count and whether it is still armed (from
// GET /api/breakpoints), Edit and Delete; and a form to add one. Every
// change is a PUT of the whole list that keeps the nodes and
// pause-on-error; a refused expression shows where it is wrong.
import type { BreakpointRule } from '../protocol/control.js';
import { button, el, setAttr, setChildren } from './dom.js';
import { cut } from './format.js';
import { addedRule, editedRule, hitsText, removedRule, ruleStateText, rulesOf, toggledRule, type ShownRule } from './rule-list.js';
import { ruleForm, type RuleForm } from './rule-form.js';
import type { Store } from './store.js';

/** The rules part of the Breakpoints panel. */
export class RulesPanel {
  readonly element: HTMLElement;
  readonly #list: HTMLElement;
  readonly #add: RuleForm;
  /** The rule being edited (by index), if one is. */
  #editing: number | null = null;
  #sig = '';

  constructor(private readonly store: Store) {
    this.#list = el('ul', { class: 'rule-list', attrs: { 'aria-label': 'rules' } });
    this.#add = ruleForm(undefined, 'Add rule', (rule, form) => {
      void this.#save(addedRule(rulesOf(this.store.breakpoints), rule), form, rulesOf(this.store.breakpoints).length).then((ok) => {
        if (ok) form.reset();
      });
    });
    this.element = el(
      'section',
      { class: 'rules', attrs: { 'aria-label': 'rules' } },
      el('h4', { text: 'Rules' }),
      el('p', { class: 'hint', text: 'Hold (or log) only the calls an expression matches: tool:search and $.params.arguments.q ~ "PAY-". The language is in docs/conditions.md; the find bar’s “Break when this matches” adds one.' }),
      this.#list,
      this.#add.element,
    );
  }

  render(): void {
    const rules = rulesOf(this.store.breakpoints);
    const sig = `${JSON.stringify(rules)}|${this.#editing}`;
    if (sig === this.#sig) return;
    this.#sig = sig;
    if (this.#editing !== null && this.#editing >= rules.length) this.#editing = null;
    if (rules.length === 0) {
      setChildren(this.#list, el('li', { class: 'muted none', text: 'No rules.' }));
      return;
    }
    // An open edit form is kept as it is (the user is typing in it); the other rows are drawn again.
    const open = this.#editing === null ? null : this.#list.querySelector<HTMLElement>(`li.rule[data-index="${this.#editing}"].editing`);
    setChildren(this.#list, ...rules.map((rule, index) => (index === this.#editing && open !== null ? open : this.#row(rule, index))));
  }

  #row(rule: ShownRule, index: number): HTMLElement {
    if (index === this.#editing) return this.#editRow(rule, index);
    const enabled = el('input', { class: 'rule-enabled', attrs: { type: 'checkbox', 'aria-label': `rule ${rule.id ?? index + 1} enabled` } });
    enabled.checked = rule.enabled !== false;
    enabled.addEventListener('change', () => {
      enabled.disabled = true;
      void this.#save(toggledRule(rulesOf(this.store.breakpoints), index, enabled.checked), undefined, index);
    });
    const edit = button('Edit', () => {
      this.#editing = index;
      this.render();
      this.#list.querySelector<HTMLTextAreaElement>('li.rule.editing textarea')?.focus();
    }, 'btn small ghost', 'Edit the expression, gate, action and hits');
    setAttr(edit, 'data-action', 'edit-rule');
    const remove = button('Delete', () => void this.#save(removedRule(rulesOf(this.store.breakpoints), index), undefined, index), 'btn small ghost', 'Delete this rule');
    setAttr(remove, 'data-action', 'delete-rule');
    const state = ruleStateText(rule);
    const li = el(
      'li',
      { class: `rule${rule.enabled === false ? ' disabled' : ''}${rule.armed === false ? ' disarmed' : ''}` },
      el(
        'div',
        { class: 'rule-head' },
        enabled,
        el('code', { class: 'rule-id', text: cut(rule.id ?? `#${index + 1}`, 40), title: rule.id ?? '' }),
        el('span', { class: `rule-action-chip ${rule.action === 'log' ? 'log' : 'pause'}`, text: rule.action === 'log' ? 'log' : 'pause' }),
        el('span', { class: 'rule-gate-chip', text: rule.gate ?? 'before' }),
        el('span', { class: 'rule-hits-chip', text: hitsText(rule.hits) }),
        edit,
        remove,
      ),
      el('code', { class: 'rule-when', text: cut(rule.when, 500), title: rule.when }),
      state === '' ? null : el('span', { class: 'rule-state muted', text: state }),
    );
    setAttr(li, 'data-index', String(index));
    if (rule.id !== undefined) setAttr(li, 'data-rule-id', rule.id);
    if (typeof rule.hitCount === 'number') setAttr(li, 'data-hit-count', String(rule.hitCount));
    if (rule.armed !== undefined) setAttr(li, 'data-armed', String(rule.armed));
    return li;
  }

  #editRow(rule: ShownRule, index: number): HTMLElement {
    const form = ruleForm(
      rule,
      'Save',
      (next, handle) => {
        void this.#save(editedRule(rulesOf(this.store.breakpoints), index, next), handle, index).then((ok) => {
          if (ok) {
            this.#editing = null;
            this.#sig = '';
            this.render();
          }
        });
      },
      () => {
        this.#editing = null;
        this.#sig = '';
        this.render();
      },
    );
    const li = el('li', { class: 'rule editing' }, form.element);
    setAttr(li, 'data-index', String(index));
    if (rule.id !== undefined) setAttr(li, 'data-rule-id', rule.id);
    return li;
  }

  /**
   * PUT the rules; true when saved. A refusal shows in `form` (the one the
   * rule was typed in) when the server's error is about the rule at
   * `index` (or names none), else as a notice.
   */
  async #save(rules: BreakpointRule[], form: RuleForm | undefined, index: number): Promise<boolean> {
    const saved = await this.store.putRules(rules);
    if (saved.ok) return true;
    if (form !== undefined && (saved.rule === undefined || saved.rule === index)) form.showError(saved);
    else this.store.notify(`Could not save the rules: ${saved.error}${saved.rule === undefined ? '' : ` (rule ${saved.rule + 1})`}`);
    // A toggle that was refused goes back to what the server has.
    this.#sig = '';
    this.render();
    return false;
  }
}

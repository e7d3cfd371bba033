// The form that adds or edits a rule: its expression, gate, action (hold or
// log) and how many hits it acts on. A refused expression shows the
// server's error with a caret under the character it points at; the form
// keeps what was typed, to be mended.
import type { BreakpointRule } from '../protocol/control.js';
import { errorLines } from './condition-bar.js';
import { hitsOf } from './rule-list.js';
import { el, setAttr, setChildren } from './dom.js';

/** A rule form on the page. */
export interface RuleForm {
  readonly element: HTMLFormElement;
  /** Show a refused expression's error (and where), or clear it (undefined). */
  showError(error: { error: string; position?: number } | undefined): void;
  /** Focus the expression box. */
  focus(): void;
  /** Empty it again (after an add). */
  reset(): void;
}

/** Show a refused expression's error under `when`, with a caret under the character at its position (or clear it). */
function showRuleError(errorBox: HTMLElement, when: HTMLTextAreaElement, error: { error: string; position?: number } | undefined): void {
  errorBox.hidden = error === undefined;
  when.classList.toggle('invalid', error !== undefined);
  setAttr(when, 'aria-invalid', String(error !== undefined));
  if (error === undefined) {
    errorBox.replaceChildren();
    return;
  }
  if (error.position === undefined) {
    setChildren(errorBox, el('span', { class: 'rule-error-message', text: error.error }));
    return;
  }
  setAttr(errorBox, 'data-position', String(error.position));
  setChildren(errorBox, ...errorLines(when.value, error.position, error.error));
}

const option = (value: string, text: string): HTMLOptionElement => el('option', { text, attrs: { value } });

/**
 * A rule form, filled from `rule` (an edit) or empty (an add). `submit`
 * gets the rule to save and resolves once saved or refused; `cancel`, when
 * given, adds a Cancel button.
 */
export function ruleForm(rule: BreakpointRule | undefined, submitLabel: string, submit: (rule: BreakpointRule, form: RuleForm) => void, cancel?: () => void): RuleForm {
  const when = el('textarea', { class: 'rule-when-input', attrs: { name: 'when', rows: '2', placeholder: 'tool:search and $.params.arguments.q ~ "PAY-"', 'aria-label': 'rule expression', spellcheck: 'false', autocomplete: 'off' } });
  when.value = rule?.when ?? '';
  const gate = el('select', { class: 'rule-gate', attrs: { name: 'gate', 'aria-label': 'gate' } }, option('before', 'before'), option('after', 'after'), option('both', 'both'));
  gate.value = rule?.gate ?? 'before';
  const action = el('select', { class: 'rule-action', attrs: { name: 'action', 'aria-label': 'action' } }, option('pause', 'pause (hold)'), option('log', 'log (logpoint)'));
  action.value = rule?.action ?? 'pause';
  const hits = el('select', { class: 'rule-hits-choice', attrs: { name: 'hits', 'aria-label': 'hits' } }, option('every', 'every match'), option('once', 'once'), option('count', 'first n'));
  const count = el('input', { class: 'rule-hits-count', attrs: { type: 'number', name: 'count', 'aria-label': 'how many hits', placeholder: 'n' } });
  count.min = '1';
  const had = rule?.hits;
  hits.value = typeof had === 'number' ? 'count' : (had ?? 'every');
  count.value = typeof had === 'number' ? String(had) : '';
  count.hidden = hits.value !== 'count';
  hits.addEventListener('change', () => {
    count.hidden = hits.value !== 'count';
    if (!count.hidden) count.focus();
  });
  const errorBox = el('div', { class: 'rule-error', attrs: { role: 'alert' } });
  errorBox.hidden = true;
  const save = el('button', { class: 'btn small', text: submitLabel, attrs: { type: 'submit', 'data-action': rule === undefined ? 'add-rule' : 'save-rule' } });
  const cancelButton = cancel === undefined ? null : el('button', { class: 'btn small ghost', text: 'Cancel', attrs: { type: 'button', 'data-action': 'cancel-rule' } });
  cancelButton?.addEventListener('click', () => cancel?.());
  const form = el(
    'form',
    { class: 'rule-form', attrs: { 'aria-label': rule === undefined ? 'add a rule' : 'edit the rule' } },
    when,
    errorBox,
    el('div', { class: 'rule-form-row' }, gate, action, hits, count, save, cancelButton),
  );
  const handle: RuleForm = {
    element: form,
    showError(error) {
      showRuleError(errorBox, when, error);
    },
    focus() {
      when.focus();
    },
    reset() {
      when.value = '';
      count.value = '';
      handle.showError(undefined);
    },
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = when.value.trim();
    // The server's error position counts in the text it was sent: the box shows that text.
    if (text !== when.value) when.value = text;
    if (text === '') {
      handle.showError({ error: 'write an expression: tool:search, is:error and dur>2s…' });
      when.focus();
      return;
    }
    const hitsValue = hitsOf(hits.value, count.value);
    if (typeof hitsValue === 'object') {
      handle.showError(hitsValue);
      count.focus();
      return;
    }
    handle.showError(undefined);
    const next: BreakpointRule = { when: text, gate: gate.value as 'before' | 'after' | 'both', action: action.value === 'log' ? 'log' : 'pause', hits: hitsValue };
    if (rule?.id !== undefined) next.id = rule.id;
    if (rule?.enabled !== undefined) next.enabled = rule.enabled;
    submit(next, handle);
  });
  // Ctrl+Enter saves from the expression box (Enter is a new line there).
  when.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  return handle;
}

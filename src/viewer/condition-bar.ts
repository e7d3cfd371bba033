// Under the find bar: what the text is read as. Plain words search text as
// always; an expression of the condition language says so, with "Break when
// this matches" to turn it into a rule; an expression with a mistake shows
// the mistake and a caret under the character where it is. A "?" opens a
// short syntax hint. The expression is user text: shown as text, only ever
// compiled by the condition language (never evaluated as JavaScript).
import type { BreakpointRule } from '../protocol/control.js';
import { button, el, setAttr, setChildren } from './dom.js';
import { errorWindow, findFilter, suggestedGate, type FindFilter } from './condition-find.js';
import { addedRule, rulesOf } from './rule-list.js';
import type { Store } from './store.js';

/** An expression's mistake shown: the text around it with the character at it marked, a caret under that character, and the message. */
export function errorLines(text: string, position: number, message: string): HTMLElement[] {
  const { before, at, after } = errorWindow(text, position);
  return [
    el('pre', { class: 'cond-error-text' }, el('span', { text: before }), el('mark', { class: 'cond-error-at', text: at }), el('span', { text: after })),
    el('pre', { class: 'cond-caret', text: `${' '.repeat(before.length)}^`, attrs: { 'aria-hidden': 'true' } }),
    el('span', { class: 'cond-error-message', text: `${message} (at character ${position + 1})` }),
  ];
}

/** The syntax hint: the atoms, the operators, a few examples, and where the rest is documented. */
function helpBlock(): HTMLElement {
  const row = (code: string, text: string): HTMLElement => el('li', {}, el('code', { text: code }), ` ${text}`);
  return el(
    'div',
    { class: 'cond-help', attrs: { 'data-testid': 'condition-help' } },
    el('p', {}, 'Plain words search the text of each call. An expression picks calls by what they are:'),
    el(
      'ul',
      {},
      row('tool:search  resource:file://*  prompt:p  node:…  method:tools/*', 'which call (globs)'),
      row('is:error  status:ok|error|open|held  from:host|server', 'how it went, who sent it'),
      row('dur>500ms  bytes>8k', 'the server’s time, the size (answers)'),
      row('$.params.arguments.q ~ "PAY-"  $.result.isError == true  exists($.params.cursor)', 'inside the message (JSONPath; ~ is a case-insensitive regular expression)'),
      row('text ~ "rate limit"', 'the text a model reads in the answer'),
      row('and  or  not  ( )', 'combine them'),
    ),
    el('p', { class: 'muted' }, 'The full grammar, every atom and twenty examples: docs/conditions.md (the condition language). The same text works in Breakpoints rules, graphmind mcp’s where and graphmind export --where.'),
  );
}

/** The line under the find bar. */
export class ConditionBar {
  readonly element: HTMLElement;
  readonly #status: HTMLElement;
  readonly #help: HTMLElement;
  readonly #helpButton: HTMLButtonElement;
  #sig = '';
  #busy = false;

  constructor(
    private readonly store: Store,
    private readonly input: HTMLInputElement,
  ) {
    this.#status = el('div', { class: 'cond-status', attrs: { 'aria-live': 'polite' } });
    this.#help = helpBlock();
    this.#help.hidden = true;
    this.#helpButton = button('?', () => this.#toggleHelp(), 'btn small ghost cond-help-toggle', 'The find bar’s language: words, or an expression');
    setAttr(this.#helpButton, 'aria-expanded', 'false');
    setAttr(this.#helpButton, 'aria-label', 'find syntax help');
    setAttr(this.#helpButton, 'data-action', 'condition-help');
    this.element = el('div', { class: 'cond-bar' }, this.#status, this.#help);
  }

  /** The "?" button, placed by the find bar beside its box. */
  get helpButton(): HTMLButtonElement {
    return this.#helpButton;
  }

  #toggleHelp(): void {
    this.#help.hidden = !this.#help.hidden;
    setAttr(this.#helpButton, 'aria-expanded', String(!this.#help.hidden));
  }

  render(): void {
    const text = this.store.find.text;
    const filter = findFilter(text);
    const sig = `${filter.kind}|${text}|${this.#busy}`;
    if (sig === this.#sig) return;
    this.#sig = sig;
    this.input.classList.toggle('cond', filter.kind === 'condition');
    this.input.classList.toggle('invalid', filter.kind === 'invalid');
    setAttr(this.input, 'aria-invalid', String(filter.kind === 'invalid'));
    this.element.dataset['kind'] = filter.kind;
    setChildren(this.#status, ...this.#statusParts(filter));
  }

  #statusParts(filter: FindFilter): HTMLElement[] {
    if (filter.kind === 'words') return [];
    if (filter.kind === 'invalid') {
      // The caret sits under the character at the mistake: the same text, with that one character marked.
      return [el('div', { class: 'cond-error', attrs: { role: 'alert', 'data-position': String(filter.position) } }, ...errorLines(filter.text, filter.position, filter.error))];
    }
    const gate = suggestedGate(filter.text);
    const breakWhen = button('Break when this matches', () => void this.#breakWhen(filter.text, gate), 'btn small', `Add a rule to Breakpoints: hold the next call that matches, at the ${gate} gate`);
    setAttr(breakWhen, 'data-action', 'break-when');
    breakWhen.disabled = this.#busy;
    return [el('div', { class: 'cond-ok' }, el('span', { class: 'cond-badge', text: 'expression' }), el('span', { class: 'muted', text: ` calls matching it · holds at the ${gate} gate → ` }), breakWhen)];
  }

  /** Add the filter as a rule (the nodes, pause-on-error and the rules there already are kept). */
  async #breakWhen(when: string, gate: 'before' | 'after'): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    this.render();
    const rule: BreakpointRule = { when, gate };
    try {
      const saved = await this.store.putRules(addedRule(rulesOf(this.store.breakpoints), rule));
      if (saved.ok) {
        const added = rulesOf(this.store.breakpoints).at(-1);
        this.store.notify(`Rule ${added?.id ?? ''} added: the next call that matches holds (${gate} gate). Edit it in Breakpoints.`.replace('Rule  added', 'Rule added'));
      } else this.store.notify(`Could not add the rule: ${saved.error}${saved.position === undefined ? '' : ` (at character ${saved.position + 1})`}`);
    } finally {
      this.#busy = false;
      this.render();
    }
  }
}

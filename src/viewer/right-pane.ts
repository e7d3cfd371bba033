// The right column: the find bar (text, status chips, next / previous error)
// over the timeline or the waterfall, whichever is chosen. The find bar's
// query also narrows the selected node's list of calls.
import { ConditionBar } from './condition-bar.js';
import { button, el, setAttr, setChildren } from './dom.js';
import { finding, type FindStatus } from './find.js';
import { plural } from './format.js';
import type { Store } from './store.js';
import { Timeline, timelineCounts } from './timeline.js';
import { Waterfall } from './waterfall.js';

const STATUSES: Array<{ status: FindStatus; label: string }> = [
  { status: 'all', label: 'all' },
  { status: 'error', label: 'errors' },
  { status: 'open', label: 'open' },
  { status: 'held', label: 'held' },
];

/** The right column. */
export class RightPane {
  readonly element: HTMLElement;
  readonly timeline: Timeline;
  readonly waterfall: Waterfall;
  readonly #search: HTMLInputElement;
  readonly #chips: HTMLElement;
  readonly #count: HTMLElement;
  readonly #tabs: { timeline: HTMLButtonElement; waterfall: HTMLButtonElement };
  readonly #errors: { prev: HTMLButtonElement; next: HTMLButtonElement };
  /** What the find text is read as (words or an expression), with its mistake or "Break when this matches". */
  readonly #condition: ConditionBar;
  #chipSig = '';

  constructor(
    private readonly store: Store,
    onPick: (nodeId: string, instanceId: string) => void,
  ) {
    this.timeline = new Timeline(store, onPick);
    this.waterfall = new Waterfall(store, onPick);
    const tab = (view: 'timeline' | 'waterfall', label: string): HTMLButtonElement => {
      const b = button(label, () => this.store.setView(view), 'tab');
      setAttr(b, 'role', 'tab');
      setAttr(b, 'data-view', view);
      return b;
    };
    this.#tabs = { timeline: tab('timeline', 'Timeline'), waterfall: tab('waterfall', 'Waterfall') };
    this.#count = el('span', { class: 'muted pane-count', attrs: { 'aria-live': 'polite' } });
    this.#search = el('input', {
      class: 'find-text',
      attrs: { type: 'search', placeholder: 'find calls: text, or tool:search and dur>500ms  (/)', spellcheck: 'false', autocomplete: 'off', 'aria-label': 'find calls' },
    });
    // Kept across renders, so typing keeps its focus and caret.
    this.#search.addEventListener('input', () => this.store.setFind({ text: this.#search.value, status: this.store.find.status }));
    this.#search.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        if (this.#search.value !== '') {
          this.#search.value = '';
          this.store.setFind({ text: '', status: this.store.find.status });
        } else this.#search.blur();
      } else if (event.key === 'Enter') {
        event.preventDefault();
        this.nextError(event.shiftKey ? -1 : 1);
      }
    });
    this.#condition = new ConditionBar(store, this.#search);
    this.#chips = el('div', { class: 'filters find-chips', attrs: { role: 'group', 'aria-label': 'find calls by status' } });
    this.#errors = {
      prev: button('↑', () => this.nextError(-1), 'btn small', 'Previous failed call (Shift+E)'),
      next: button('Next error ↓', () => this.nextError(1), 'btn small', 'Next failed call (E)'),
    };
    setAttr(this.#errors.prev, 'data-action', 'prev-error');
    setAttr(this.#errors.prev, 'aria-label', 'previous error');
    setAttr(this.#errors.next, 'data-action', 'next-error');
    const tabs = el('div', { class: 'tabs', attrs: { role: 'tablist', 'aria-label': 'view' } }, this.#tabs.timeline, this.#tabs.waterfall);
    // The head and the find bar belong to the timeline's section; the waterfall is drawn below them in its place.
    const section = el(
      'section',
      { class: 'timeline', attrs: { 'aria-label': 'timeline' } },
      el('div', { class: 'pane-head' }, tabs, this.#count),
      el('div', { class: 'find-bar' }, el('div', { class: 'find-box' }, this.#search, this.#condition.helpButton), this.#condition.element, el('div', { class: 'find-row' }, this.#chips, el('span', { class: 'error-nav' }, this.#errors.prev, this.#errors.next))),
      this.timeline.element,
    );
    this.element = el('aside', { class: 'right' }, section, this.waterfall.element);
  }

  /** Put the caret in the find box (the `/` key). */
  focusFind(): void {
    this.#search.focus();
    this.#search.select();
  }

  render(): void {
    const { find, view } = this.store;
    if (this.#search.value !== find.text && document.activeElement !== this.#search) this.#search.value = find.text;
    this.#condition.render();
    const onTimeline = view === 'timeline';
    this.element.classList.toggle('view-waterfall', !onTimeline);
    this.timeline.element.hidden = !onTimeline;
    this.waterfall.element.hidden = onTimeline;
    for (const [name, b] of Object.entries(this.#tabs)) {
      const on = name === view;
      b.classList.toggle('on', on);
      setAttr(b, 'aria-selected', String(on));
    }
    // Only the one on view is drawn: the other catches up when it is chosen.
    if (onTimeline) this.timeline.render();
    else this.waterfall.render();
    const narrowed = finding(find);
    const counts = onTimeline ? this.timeline.counts : this.waterfall.counts;
    if (this.store.run === null) this.#count.textContent = '';
    else if (onTimeline) this.#count.textContent = timelineCounts(this.timeline.counts, narrowed);
    else this.#count.textContent = narrowed ? `${this.waterfall.items.length.toLocaleString()} of ${plural(counts.calls, 'call')}` : plural(counts.calls, 'call');
    const errors = counts.errors;
    this.#errors.next.disabled = errors === 0;
    this.#errors.prev.disabled = errors === 0;
    this.#errors.next.title = errors === 0 ? 'No failed calls in this run' : `Next failed call (E): ${plural(errors, 'failed call')} in this run`;
    const sig = `${find.status}`;
    if (sig !== this.#chipSig) {
      this.#chipSig = sig;
      setChildren(
        this.#chips,
        ...STATUSES.map(({ status, label }) => {
          const b = button(label, () => this.store.setFind({ text: this.store.find.text, status }), status === find.status ? 'chip on' : 'chip');
          setAttr(b, 'aria-pressed', String(status === find.status));
          setAttr(b, 'data-find-status', status);
          return b;
        }),
      );
    }
  }

  /** Open the next (or previous) failed call in the view on show; a notice when there is none. */
  nextError(step: 1 | -1): void {
    const found = this.store.view === 'timeline' ? this.timeline.nextError(step) : this.waterfall.nextError(step);
    if (found === undefined) {
      this.store.notify(finding(this.store.find) ? 'No failed call among the calls shown.' : 'No failed call in this run.');
      return;
    }
    this.store.openCall(found.nodeId, found.instanceId);
  }

  /** Scroll the view on show to a call. */
  showCall(instanceId: string): void {
    if (this.store.view === 'timeline') this.timeline.scrollToCall(instanceId);
    else this.waterfall.scrollToCall(instanceId);
  }
}

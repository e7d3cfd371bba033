// Notes at the top of the run list: the server still loading its runs from
// disk just after it started ("loading 4,210 of 10,000"), and what
// `--max-runs` deleted while the page was open (until dismissed). Both come
// from the live feed (the snapshot's `loading`, `runs.loaded`, `runs.trimmed`).
import { button, el, setAttr, setChildren } from './dom.js';
import { loadingText, trimmedText } from './run-notes-text.js';
import type { Store } from './store.js';
import { Dirty } from './view-state.js';

/** The notes above the run list (see the module). */
export class RunListNotes {
  readonly element: HTMLElement;

  constructor(private readonly store: Store) {
    this.element = el('div', { class: 'run-notes', attrs: { role: 'status', 'aria-live': 'polite' } });
  }

  render(): void {
    const { runsLoading, trimmed } = this.store;
    const loading = runsLoading === null ? null : el('div', { class: 'run-note loading muted', text: loadingText(runsLoading) });
    if (loading !== null) setAttr(loading, 'data-note', 'loading');
    let deleted: HTMLElement | null = null;
    if (trimmed !== null) {
      const dismiss = button('×', () => {
        this.store.trimmed = null;
        this.store.mark(Dirty.Runs);
      }, 'btn small ghost', 'Dismiss');
      setAttr(dismiss, 'aria-label', 'Dismiss this note');
      deleted = el('div', { class: 'run-note trimmed' }, el('span', { text: trimmedText(trimmed.deleted, trimmed.maxRuns) }), dismiss);
      setAttr(deleted, 'data-note', 'trimmed');
    }
    setChildren(this.element, loading, deleted);
  }
}

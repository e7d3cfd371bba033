// The run list: newest first, with live status, source, start time and
// duration; a filter by status; a run can be deleted (two clicks).
import type { RunSummary } from '../report/events.js';
import { api } from './api.js';
import { button, clickable, el, setAttr, setChildren, tickTimes } from './dom.js';
import { duration, span, when } from './format.js';
import type { RunFilter, Store } from './store.js';

const FILTERS: RunFilter[] = ['all', 'running', 'ok', 'error'];

/** The list of runs in the sidebar. */
export class RunList {
  readonly element: HTMLElement;
  readonly #filters: HTMLElement;
  readonly #list: HTMLElement;
  /** The run whose delete button was clicked once. */
  #confirming: string | null = null;

  constructor(private readonly store: Store) {
    this.#filters = el('div', { class: 'filters', attrs: { role: 'group', 'aria-label': 'filter runs by status' } });
    this.#list = el('ol', { class: 'runs', attrs: { 'aria-label': 'runs' } });
    this.element = el('section', { class: 'run-list' }, el('div', { class: 'pane-head' }, el('h3', { text: 'Runs' })), this.#filters, this.#list);
  }

  render(): void {
    const { runs, filter } = this.store;
    setChildren(
      this.#filters,
      ...FILTERS.map((f) => {
        const count = f === 'all' ? runs.length : runs.filter((r) => r.status === f).length;
        const b = button(`${f} ${count}`, () => this.store.setFilter(f), f === filter ? 'chip on' : 'chip');
        setAttr(b, 'aria-pressed', String(f === filter));
        setAttr(b, 'data-filter', f);
        return b;
      }),
    );
    const shown = filter === 'all' ? runs : runs.filter((r) => r.status === filter);
    if (shown.length === 0) {
      setChildren(this.#list, el('li', { class: 'muted none', text: runs.length === 0 ? 'No runs yet.' : `No ${filter} runs.` }));
      return;
    }
    setChildren(this.#list, ...shown.map((run) => this.#item(run)));
  }

  /** Update the durations of running runs (once a second). */
  tick(): void {
    tickTimes(this.#list, 'data-running-since', duration);
  }

  #item(run: RunSummary): HTMLElement {
    const selected = run.runId === this.store.selectedRunId;
    const took = el('span', { class: 'run-dur', text: duration(span(run.startedAt, run.endedAt)) });
    if (run.endedAt === null && run.status === 'running') setAttr(took, 'data-running-since', run.startedAt);
    const confirming = this.#confirming === run.runId;
    const del = button(
      confirming ? 'Delete?' : '×',
      (event) => {
        event.stopPropagation();
        if (this.#confirming !== run.runId) {
          this.#confirming = run.runId;
          this.render();
          return;
        }
        this.#confirming = null;
        api.deleteRun(run.runId).catch((error: unknown) => this.store.notify(`Could not delete the run: ${error instanceof Error ? error.message : 'error'}`));
      },
      confirming ? 'btn small danger' : 'btn small ghost del',
      confirming ? 'Click again to delete this run' : 'Delete this run',
    );
    setAttr(del, 'data-action', 'delete');
    // Its face is a symbol until it asks to be sure; its name says what it does.
    setAttr(del, 'aria-label', confirming ? 'Delete this run? Click again to confirm' : 'Delete this run');
    // Named by the run's name, described by its status, source, start and duration.
    const nameId = `run-name-${run.runId}`;
    const factsId = `run-facts-${run.runId}`;
    const body = el(
      'div',
      { class: 'run-body' },
      el('div', { class: 'run-line' }, el('span', { class: `dot status-${run.status}`, title: run.status }), el('span', { class: 'run-name', text: run.name, title: run.name, attrs: { id: nameId } })),
      el('div', { class: 'run-line muted', attrs: { id: factsId } }, el('span', { class: 'run-status', text: run.status }), el('span', { text: run.source }), el('span', { text: when(run.startedAt) }), took),
    );
    const li = el('li', { class: `run status-${run.status}${selected ? ' selected' : ''}` }, body, del);
    setAttr(li, 'data-run-id', run.runId);
    setAttr(li, 'data-status', run.status);
    if (selected) setAttr(body, 'aria-current', 'true');
    const choose = (): void => {
      this.#confirming = null;
      void this.store.selectRun(run.runId, true);
    };
    // The item stays a list item; what selects the run is its body, a button
    // beside the delete button (not one button inside another).
    clickable(body, choose);
    setAttr(body, 'aria-labelledby', nameId);
    setAttr(body, 'aria-describedby', factsId);
    li.addEventListener('click', (event) => {
      if (event.target === li) choose();
    });
    return li;
  }
}

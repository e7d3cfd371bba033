// The run list: newest first, with live status, source, start time,
// duration, its client and server and its counts of calls and failed calls;
// filters by status, by source and by text (run-list-filter.ts); a run can
// be deleted (two clicks). The adapter records
// one run per request, so the runs of one adapter connection (the same
// `group` in their summaries) are listed as one collapsible row, placed
// where its newest run would be.
import type { RunSummary } from '../protocol/run-model.js';
import { api } from './api.js';
import { button, clickable, el, setAttr, setChildren, tickTimes } from './dom.js';
import { cut, duration, plural, span, when } from './format.js';
import { hasErrors } from '../protocol/run-counts.js';
import { redrawKeepingFocus } from './keep-focus.js';
import { RunListNotes } from './run-list-notes.js';
import { SOURCE_FILTERS, sourcePasses, statusPasses, type RunFilter } from './run-list-filter.js';
import { runCounts, runPeers } from './run-list-row.js';
import type { Store } from './store.js';

const FILTERS: RunFilter[] = ['all', 'running', 'ok', 'error'];
/** Runs an open group draws at first; a button draws this many more. */
const GROUP_PAGE = 100;
/** The attributes that name a row of the list: a run's, a connection's group. */
const ROW_ATTRIBUTES = ['data-run-id', 'data-group-id'] as const;

type Group = NonNullable<RunSummary['group']>;

/** A row of the list: one run, or the runs of one adapter connection (newest first). */
type Row = { kind: 'run'; run: RunSummary } | { kind: 'group'; group: Group; runs: RunSummary[] };

/** What a group's row shows of its runs. */
interface GroupShown {
  open: boolean;
  /** Every run of the group (the row lists those the filters let through). */
  total: readonly RunSummary[];
  errors: number;
  running: number;
  status: 'running' | 'error' | 'ok';
  /** The run on view, if it is one of the group's. */
  selected: RunSummary | undefined;
  label: string;
}

/** The list of runs in the sidebar. */
export class RunList {
  readonly element: HTMLElement;
  readonly #filters: HTMLElement;
  readonly #sources: HTMLElement;
  readonly #search: HTMLInputElement;
  readonly #list: HTMLElement;
  /** The run (or group, by its id) whose delete button was clicked once. */
  #confirming: string | null = null;
  /** Groups the user opened, by id. */
  readonly #open = new Set<string>();
  /** How many runs an open group draws, by id (when more than {@link GROUP_PAGE}). */
  readonly #limits = new Map<string, number>();
  /** The run chosen by the user whose group was opened to show it (once: the user may close it again). */
  #revealed: string | null = null;
  /** A short element id per group id (which is JSON text, with quotes and spaces): for aria references. */
  readonly #domIds = new Map<string, string>();
  /** Runs per group id among all runs, counted once per render. */
  #totals = new Map<string, RunSummary[]>();
  readonly #deleteFinished: HTMLButtonElement;
  /** The finished runs the list shows now: what "Delete finished" deletes. */
  #finished: RunSummary[] = [];
  /** Still loading from disk, what --max-runs deleted. */
  readonly #notes: RunListNotes;

  constructor(private readonly store: Store) {
    this.#filters = el('div', { class: 'filters', attrs: { role: 'group', 'aria-label': 'filter runs by status' } });
    this.#sources = el('div', { class: 'filters sources', attrs: { role: 'group', 'aria-label': 'filter runs by source' } });
    this.#search = el('input', { class: 'run-search', attrs: { type: 'search', placeholder: 'filter: command, client, server, tool', spellcheck: 'false', autocomplete: 'off', 'aria-label': 'filter runs by command, client, server or tool' } });
    // Kept across renders (only the chips and the list are redrawn), so typing keeps its focus and caret.
    this.#search.addEventListener('input', () => this.store.setSearch(this.#search.value));
    this.#search.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.#search.value !== '') {
        event.preventDefault();
        this.#search.value = '';
        this.store.setSearch('');
      }
    });
    this.#list = el('ol', { class: 'runs', attrs: { 'aria-label': 'runs' } });
    this.#notes = new RunListNotes(store);
    this.#deleteFinished = button('Delete finished', () => this.#onDeleteFinished(), 'btn small ghost', 'Delete the finished runs the list shows');
    setAttr(this.#deleteFinished, 'data-action', 'delete-finished');
    this.element = el(
      'section',
      { class: 'run-list' },
      el('div', { class: 'pane-head' }, el('h3', { text: 'Runs' }), this.#deleteFinished),
      this.#notes.element,
      this.#filters,
      this.#sources,
      this.#search,
      this.#list,
    );
  }

  render(): void {
    this.#notes.render();
    const { filter, source, search, deleting } = this.store;
    // Runs on their way out (a connection's, deleted from here) count no more.
    const runs = deleting.size === 0 ? this.store.runs : this.store.runs.filter((run) => !deleting.has(run.runId));
    setChildren(
      this.#filters,
      ...FILTERS.map((f) => {
        const count = f === 'all' ? runs.length : runs.filter((r) => statusPasses(r, f)).length;
        const b = button(`${f} ${count}`, () => this.store.setFilter(f), f === filter ? 'chip on' : 'chip');
        setAttr(b, 'aria-pressed', String(f === filter));
        setAttr(b, 'data-filter', f);
        return b;
      }),
    );
    setChildren(
      this.#sources,
      ...SOURCE_FILTERS.map(({ filter: f, label }) => {
        const count = f === 'all' ? runs.length : runs.filter((r) => sourcePasses(r, f)).length;
        const b = button(`${label} ${count}`, () => this.store.setSource(f), f === source ? 'chip on' : 'chip');
        setAttr(b, 'aria-pressed', String(f === source));
        setAttr(b, 'data-source', f);
        return b;
      }),
    );
    if (this.#search.value !== search) this.#search.value = search;
    const shown = runs.filter((run) => this.store.shows(run));
    this.#renderDeleteFinished(shown);
    if (shown.length === 0) {
      const text = runs.length === 0 ? (this.store.runsLoading !== null ? 'Loading runs…' : 'No runs yet.') : filter === 'all' && source === 'all' && search.trim() === '' ? 'No runs.' : 'No runs match the filters.';
      setChildren(this.#list, el('li', { class: 'muted none', text }));
      return;
    }
    this.#totals = new Map();
    for (const run of runs) {
      const id = run.group?.id;
      if (typeof id !== 'string') continue;
      const members = this.#totals.get(id);
      if (members === undefined) this.#totals.set(id, [run]);
      else members.push(run);
    }
    const rows = this.#rows(shown);
    this.#reveal(rows);
    // Redrawn on every live update: the keyboard keeps its place on the row it was on.
    redrawKeepingFocus(this.#list, ROW_ATTRIBUTES, () => setChildren(this.#list, ...rows.map((row) => (row.kind === 'run' ? this.#item(row.run) : this.#group(row.group, row.runs)))));
  }

  /** The "Delete finished" button: how many it deletes, and its second click to be sure. */
  #renderDeleteFinished(shown: readonly RunSummary[]): void {
    this.#finished = shown.filter((run) => run.status !== 'running');
    const count = this.#finished.length;
    const confirming = this.#confirming === 'finished' && count > 0;
    if (!confirming && this.#confirming === 'finished') this.#confirming = null;
    const b = this.#deleteFinished;
    b.disabled = count === 0;
    b.className = confirming ? 'btn small danger' : 'btn small ghost';
    b.textContent = confirming ? `Delete ${plural(count, 'run')}?` : `Delete finished${count > 0 ? ` (${count.toLocaleString()})` : ''}`;
    b.title = confirming ? `Click again to delete ${plural(count, 'finished run')}` : count === 0 ? 'No finished runs in the list' : `Delete the ${plural(count, 'finished run')} the list shows (running ones stay)`;
    setAttr(b, 'aria-label', confirming ? `Delete ${plural(count, 'finished run')}? Click again to confirm` : `Delete ${plural(count, 'finished run')}`);
  }

  #onDeleteFinished(): void {
    if (this.#confirming !== 'finished') {
      this.#confirming = 'finished';
      this.render();
      return;
    }
    this.#confirming = null;
    const runs = this.#finished;
    void this.store.deleteFinished(runs).then((failed) => {
      this.store.notify(failed > 0 ? `Could not delete ${plural(failed, 'run')}.` : `Deleted ${plural(runs.length, 'finished run')}.`);
    });
    this.render();
  }

  /** Update the durations of running runs (once a second). */
  tick(): void {
    tickTimes(this.#list, 'data-running-since', duration);
  }

  /** The shown runs as rows: a run without a group alone, a group where its newest run is. */
  #rows(shown: readonly RunSummary[]): Row[] {
    const rows: Row[] = [];
    const groups = new Map<string, RunSummary[]>();
    for (const run of shown) {
      const group = run.group;
      if (group === undefined || typeof group.id !== 'string') {
        rows.push({ kind: 'run', run });
        continue;
      }
      const members = groups.get(group.id);
      if (members !== undefined) {
        members.push(run);
        continue;
      }
      const list = [run];
      groups.set(group.id, list);
      rows.push({ kind: 'group', group, runs: list });
    }
    return rows;
  }

  /** A run the user chose (a click, an address) inside a closed group: open it, once, so the run is in view. */
  #reveal(rows: readonly Row[]): void {
    const selected = this.store.selectedRunId;
    if (this.store.followNewest || selected === null || selected === this.#revealed) return;
    for (const row of rows) {
      if (row.kind !== 'group' || !row.runs.some((run) => run.runId === selected)) continue;
      this.#revealed = selected;
      this.#open.add(row.group.id);
      const index = row.runs.findIndex((run) => run.runId === selected);
      if (index >= (this.#limits.get(row.group.id) ?? GROUP_PAGE)) this.#limits.set(row.group.id, index + 1);
      return;
    }
  }

  #group(group: Group, runs: readonly RunSummary[]): HTMLElement {
    const id = group.id;
    const open = this.#open.has(id);
    const total = this.#totals.get(id) ?? runs;
    const errors = runs.filter(hasErrors).length;
    const running = runs.filter((run) => run.status === 'running').length;
    const status = running > 0 ? 'running' : errors > 0 ? 'error' : 'ok';
    const selected = runs.find((run) => run.runId === this.store.selectedRunId);
    const label = `${group.server} · ${group.connection}`;
    const head = this.#drawGroupHead(group, runs, { open, total, errors, running, status, selected, label });
    const top = el('div', { class: 'group-top' }, head, this.#groupDelete(id, total));
    const li = el('li', { class: `run-group status-${status}${open ? ' open' : ''}${selected !== undefined ? ' has-selected' : ''}` }, top);
    setAttr(li, 'data-group-id', id);
    setAttr(li, 'data-runs', String(runs.length));
    setAttr(li, 'data-errors', String(errors));
    if (open) this.#drawGroupRuns(li, id, label, runs);
    return li;
  }

  /** The head of a group's row: what the connection is and did; a click opens or closes it. */
  #drawGroupHead(group: Group, runs: readonly RunSummary[], shown: GroupShown): HTMLElement {
    const { open, total, errors, running, status, selected, label } = shown;
    const id = group.id;
    const sessionId = group.sessionId ?? runs.find((run) => run.group?.sessionId !== undefined)?.group?.sessionId;
    const counts = [runs.length === total.length ? plural(runs.length, 'run') : `${runs.length.toLocaleString()} of ${plural(total.length, 'run')}`];
    if (errors > 0) counts.push(plural(errors, 'error'));
    if (running > 0) counts.push(`${running.toLocaleString()} running`);
    const newest = runs[0] as RunSummary;
    const oldest = runs[runs.length - 1] as RunSummary;
    let domId = this.#domIds.get(id);
    if (domId === undefined) {
      domId = String(this.#domIds.size + 1);
      this.#domIds.set(id, domId);
    }
    const headId = `group-name-${domId}`;
    const factsId = `group-facts-${domId}`;
    const facts = el(
      'div',
      { class: 'run-line muted', attrs: { id: factsId } },
      el('span', { class: 'group-counts', text: counts.join(', ') }),
      el('span', { text: newest.source }),
      el('span', { text: when(oldest.startedAt) === when(newest.startedAt) ? when(newest.startedAt) : `${when(oldest.startedAt)} – ${when(newest.startedAt)}` }),
    );
    if (sessionId !== undefined) facts.appendChild(el('span', { class: 'group-session', text: `session ${cut(sessionId, 12)}`, title: `session ${sessionId}` }));
    const head = el(
      'div',
      { class: 'run-body group-head' },
      el(
        'div',
        { class: 'run-line' },
        el('span', { class: 'chevron', text: open ? '▾' : '▸' }),
        el('span', { class: `dot status-${status}`, title: status }),
        el('span', { class: 'run-name group-name', text: label, title: sessionId === undefined ? label : `${label} · session ${sessionId}`, attrs: { id: headId } }),
      ),
      facts,
      // Closed, a group holding the run on view says which it is.
      selected !== undefined && !open ? el('div', { class: 'run-line group-viewing', text: `viewing ${selected.name}`, title: selected.name }) : null,
    );
    clickable(head, () => {
      this.#confirming = null;
      if (this.#open.has(id)) this.#open.delete(id);
      else this.#open.add(id);
      this.render();
    });
    setAttr(head, 'aria-expanded', String(open));
    setAttr(head, 'aria-labelledby', headId);
    setAttr(head, 'aria-describedby', factsId);
    return head;
  }

  /** A group's delete button: deletes every run of the connection, on a second click. */
  #groupDelete(id: string, total: readonly RunSummary[]): HTMLButtonElement {
    const confirming = this.#confirming === `group:${id}`;
    const del = button(
      confirming ? `Delete ${total.length}?` : '×',
      (event) => {
        event.stopPropagation();
        if (this.#confirming !== `group:${id}`) {
          this.#confirming = `group:${id}`;
          this.render();
          return;
        }
        this.#confirming = null;
        void this.#deleteAll(total.map((run) => run.runId));
      },
      confirming ? 'btn small danger' : 'btn small ghost del',
      confirming ? `Click again to delete ${total.length === 1 ? 'the 1 run' : `all ${plural(total.length, 'run')}`} of this connection` : 'Delete the runs of this connection',
    );
    setAttr(del, 'data-action', 'delete-group');
    setAttr(del, 'aria-label', confirming ? `Delete ${total.length === 1 ? 'the 1 run' : `all ${plural(total.length, 'run')}`} of this connection? Click again to confirm` : 'Delete the runs of this connection');
    return del;
  }

  /** An open group's runs, a page at a time. */
  #drawGroupRuns(li: HTMLElement, id: string, label: string, runs: readonly RunSummary[]): void {
    const limit = this.#limits.get(id) ?? GROUP_PAGE;
    const inner = el('ol', { class: 'runs group-runs', attrs: { 'aria-label': `runs of ${label}` } }, ...runs.slice(0, limit).map((run) => this.#item(run)));
    li.appendChild(inner);
    if (runs.length > limit) {
      const more = button(`Show ${Math.min(GROUP_PAGE, runs.length - limit)} more of ${runs.length.toLocaleString()}`, () => {
        this.#limits.set(id, limit + GROUP_PAGE);
        this.render();
      }, 'btn small ghost group-more');
      setAttr(more, 'data-action', 'more');
      li.appendChild(more);
    }
  }

  /** Delete runs (a group's), through the store: the page does not stop on one of them on the way. */
  async #deleteAll(runIds: readonly string[]): Promise<void> {
    const failed = await this.store.deleteRuns(runIds);
    if (failed > 0) this.store.notify(`Could not delete ${plural(failed, 'run')}.`);
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
    // A run of a proxy is named by its server (serverInfo.name, once initialize is answered), with its command below.
    const server = run.server?.name;
    const title = server ?? run.name;
    const peers = runPeers(run, `run-peers-${run.runId}`);
    const counts = runCounts(run, `run-counts-${run.runId}`);
    const body = el(
      'div',
      { class: 'run-body' },
      el('div', { class: 'run-line' }, el('span', { class: `dot status-${run.status}`, title: run.status }), el('span', { class: 'run-name', text: title, title: server === undefined ? run.name : `${server}${run.server?.version === undefined ? '' : ` ${run.server.version}`} · ${run.name}`, attrs: { id: nameId } })),
      server === undefined || server === run.name ? null : el('div', { class: 'run-line run-label', text: run.name, title: run.name }),
      peers,
      el('div', { class: 'run-line muted run-facts-line', attrs: { id: factsId } }, el('span', { class: 'run-status', text: run.status }), el('span', { class: 'run-source', text: run.source, title: run.source }), el('span', { class: 'run-when', text: when(run.startedAt) }), took),
      counts,
    );
    const li = el('li', { class: `run status-${run.status}${selected ? ' selected' : ''}${hasErrors(run) ? ' has-errors' : ''}` }, body, del);
    setAttr(li, 'data-run-id', run.runId);
    setAttr(li, 'data-status', run.status);
    if (selected) setAttr(body, 'aria-current', 'true');
    const choose = (): void => {
      this.#confirming = null;
      // Chosen from inside its group: the group stays open as the user left it.
      this.#revealed = run.runId;
      void this.store.selectRun(run.runId, true);
    };
    // The item stays a list item; what selects the run is its body, a button
    // beside the delete button (not one button inside another).
    clickable(body, choose);
    setAttr(body, 'aria-labelledby', nameId);
    setAttr(body, 'aria-describedby', [factsId, peers?.id, counts?.id].filter((id) => id !== undefined).join(' '));
    li.addEventListener('click', (event) => {
      if (event.target === li) choose();
    });
    return li;
  }
}

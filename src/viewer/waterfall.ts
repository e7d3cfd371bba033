// The waterfall: one row per call, in the order they started, each a bar
// from its request to the answer the client got, on one time axis, coloured
// by how it ended — so a slow call, a stuck one (a bar that grows to now) and
// calls that overlap are seen at a glance, as in a browser's network panel.
// The axis spans the whole run, or (zoomed) just the rows in view. The find
// bar narrows it. Virtualised like the timeline. Time the debugger held a
// call is the debugger's, not the server's: each bar is split into the
// server's part and the held part, and "Slowest first" orders the calls by
// the server's time alone.
import type { Instance } from '../protocol/run-model.js';
import type { Hold } from '../protocol/control.js';
import { callTimes } from '../protocol/call-times.js';
import { barParts } from './bar-parts.js';
import { changeBadge } from './call-changes.js';
import { callView, holdBadge, serverText, tookText, tookTitle, waitingText, type CallView } from './call-state.js';
import { button, clickable, el, setAttr, setChildren, tickTimes } from './dom.js';
import { callMatches, finding, isCall, words, type FindQuery } from './find.js';
import { clock, cut, duration } from './format.js';
import type { RunModel } from './run-model.js';
import type { Store } from './store.js';
import { sentByBadge } from './send-again.js';
import { heldByInstance, nextErrorIndex } from './timeline.js';
import { VirtualList } from './virtual-list.js';

/** A time range on the axis, in ms since the epoch. */
interface Range {
  from: number;
  to: number;
}

/** When the client got (or still waits for) the end of a call: ms since the epoch. */
function endOf(instance: Instance, view: CallView, now: number): number {
  if (view.waitingSince !== undefined || instance.endedAt === null) return now;
  return Date.parse(instance.deliveredAt ?? instance.endedAt);
}

/** The waterfall pane. */
export class Waterfall {
  readonly element: HTMLElement;
  readonly #list: VirtualList<Instance>;
  readonly #axis: HTMLElement;
  readonly #zoom: HTMLButtonElement;
  /** The axis's start, as a clock time. */
  readonly #from: HTMLElement;
  #items: Instance[] = [];
  /** The calls shown, by instance id. */
  #byId = new Map<string, Instance>();
  #held = new Map<string, Hold>();
  #shown: { run: RunModel | null; length: number; version: number; find: FindQuery; holds: Hold[] } | null = null;
  /** The whole run's range, and the one drawn (the run's, or the rows in view when zoomed). */
  #whole: Range = { from: 0, to: 1 };
  #range: Range = { from: 0, to: 1 };
  #zoomed = false;
  /** Ordered by the server's time, slowest first, instead of by start. */
  #slowest = false;
  readonly #sort: HTMLButtonElement;
  #scheduled = false;

  constructor(
    private readonly store: Store,
    private readonly onPick: (nodeId: string, instanceId: string) => void,
  ) {
    this.#list = new VirtualList<Instance>(
      {
        key: (instance) => instance.instanceId,
        version: (instance) => {
          const hold = this.#held.get(instance.instanceId);
          const view = callView(instance, this.store.run, hold);
          // Not the axis: when it moves, the bars drawn are moved in place (see #reposition).
          return `${view.state}|${instance.endedAt}|${instance.deliveredAt}|${instance.changed?.holdId ?? ''}|${instance.heldMs ?? 0}|${hold?.holdId ?? ''}|${this.store.activeInstance === instance.instanceId}`;
        },
        render: (instance) => this.#row(instance),
      },
      22,
      'waterfall-list',
      true,
    );
    setAttr(this.#list.element, 'aria-label', 'waterfall');
    this.#list.element.addEventListener('scroll', () => this.#onScroll(), { passive: true });
    this.#axis = el('div', { class: 'wf-axis', attrs: { 'aria-hidden': 'true' } });
    this.#zoom = button('Zoom to rows in view', () => this.setZoom(!this.#zoomed), 'btn small ghost wf-zoom', 'Stretch the time axis over the calls in view (again: the whole run)');
    setAttr(this.#zoom, 'aria-pressed', 'false');
    setAttr(this.#zoom, 'data-action', 'zoom');
    this.#sort = button('Slowest first', () => this.setSlowest(!this.#slowest), 'btn small ghost wf-sort', "Order the calls by the server's time, slowest first (again: in the order they started). Time held by the debugger does not count.");
    setAttr(this.#sort, 'aria-pressed', 'false');
    setAttr(this.#sort, 'data-action', 'slowest');
    const legend = el(
      'span',
      { class: 'wf-legend muted' },
      ...(['ok', 'error', 'open', 'held'] as const).map((state) => el('span', { class: 'wf-key' }, el('span', { class: `wf-swatch state-${state}` }), state)),
      el('span', { class: 'wf-key', title: 'the part of a bar the debugger held the call: not the server\'s time' }, el('span', { class: 'wf-swatch wf-held-swatch' }), 'time held'),
    );
    // The axis sits over the bars: a row laid out like the calls' rows.
    const axisRow = el('div', { class: 'wf-axis-row' }, el('span', { class: 'wf-name muted', text: 'call' }), this.#axis, el('span', { class: 'wf-dur muted', text: 'took' }));
    this.#from = el('span', { class: 'wf-from muted' });
    this.element = el('div', { class: 'waterfall' }, el('div', { class: 'wf-head' }, el('div', { class: 'wf-tools' }, legend, this.#from, this.#sort, this.#zoom), axisRow), this.#list.element);
  }

  /** The calls shown now. */
  get items(): readonly Instance[] {
    return this.#items;
  }

  /** Stretch the axis over the rows in view, or back over the whole run. */
  setZoom(on: boolean): void {
    this.#zoomed = on;
    setAttr(this.#zoom, 'aria-pressed', String(on));
    this.#zoom.textContent = on ? 'Whole run' : 'Zoom to rows in view';
    this.#rescale();
  }

  /** Order the calls by the server's time, slowest first, or back by start. */
  setSlowest(on: boolean): void {
    this.#slowest = on;
    setAttr(this.#sort, 'aria-pressed', String(on));
    this.#sort.textContent = on ? 'In start order' : 'Slowest first';
    this.#shown = null;
    this.render();
    // The slowest are at the top; back in start order, the newest at the bottom (as render left it).
    if (on && this.#items.length > 0) this.#list.scrollToIndex(0);
  }

  render(): void {
    const { run, find, holds } = this.store;
    const all = run?.instances ?? [];
    const previous = this.#shown;
    const fresh = previous === null || previous.run !== run;
    this.#held = heldByInstance(this.store);
    // A run still going: its axis ends now, so everything moves as time passes.
    const live = run !== null && run.summary.status === 'running';
    const changed = fresh || previous.length !== all.length || previous.find !== find || previous.holds !== holds || previous.version !== run?.version || live;
    // Slowest first: a call's time changes as it ends, so the order is found again on every change.
    const rebuild = fresh || previous.length !== all.length || previous.find !== find || previous.holds !== holds || ((finding(find) || this.#slowest) && previous.version !== run?.version);
    if (rebuild) {
      this.#items = run === null ? [] : this.#narrow(run, all, find);
      this.#list.setItems(this.#items, fresh || previous.find !== find);
      if (fresh) this.#list.scrollToBottom();
    } else {
      // Rows whose call changed (it ended, it was held) are drawn again.
      this.#list.refresh();
    }
    if (changed) {
      this.#whole = run === null ? { from: 0, to: 1 } : this.#extent(run, this.#items);
      this.#rescale();
    }
    tickTimes(this.#list.element, 'data-waiting-since', waitingText);
    tickTimes(this.#list.element, 'data-open-since', (ms) => `open ${duration(ms)}`);
    this.#shown = { run, length: all.length, version: run?.version ?? -1, find, holds };
  }

  /** The calls of the run, and how many failed. */
  counts = { calls: 0, errors: 0 };

  #narrow(run: RunModel, all: readonly Instance[], find: FindQuery): Instance[] {
    const needles = words(find);
    const narrowing = finding(find);
    const out: Instance[] = [];
    let calls = 0;
    let errors = 0;
    for (const instance of all) {
      if (!isCall(instance)) continue;
      calls++;
      if (instance.status === 'error') errors++;
      if (narrowing && !callMatches(instance, run, find, needles, this.#held.get(instance.instanceId))) continue;
      out.push(instance);
    }
    this.counts = { calls, errors };
    if (this.#slowest) sortByServerTime(out);
    this.#byId = new Map(out.map((instance) => [instance.instanceId, instance]));
    return out;
  }

  /** From the run's start (or the first call's) to the last end (now, while anything waits or the run runs). */
  #extent(run: RunModel, items: readonly Instance[]): Range {
    const now = Date.now();
    let from = Date.parse(run.summary.startedAt);
    let to = run.summary.endedAt === null ? now : Date.parse(run.summary.endedAt);
    for (const instance of items) {
      const start = Date.parse(instance.startedAt);
      if (start < from) from = start;
      const end = endOf(instance, callView(instance, run, this.#held.get(instance.instanceId)), now);
      if (end > to) to = end;
    }
    return { from, to: Math.max(to, from + 1) };
  }

  /** The range of the rows in view. */
  #inView(): Range {
    const [first, last] = this.#list.visibleRange();
    const run = this.store.run;
    if (run === null || last < first) return this.#whole;
    const now = Date.now();
    let from = Number.POSITIVE_INFINITY;
    let to = Number.NEGATIVE_INFINITY;
    for (let i = first; i <= last; i++) {
      const instance = this.#items[i] as Instance;
      from = Math.min(from, Date.parse(instance.startedAt));
      to = Math.max(to, endOf(instance, callView(instance, run, this.#held.get(instance.instanceId)), now));
    }
    if (!Number.isFinite(from)) return this.#whole;
    return { from, to: Math.max(to, from + 1) };
  }

  #onScroll(): void {
    if (!this.#zoomed || this.#scheduled) return;
    this.#scheduled = true;
    requestAnimationFrame(() => {
      this.#scheduled = false;
      this.#rescale();
    });
  }

  /** Draw the axis for the range in force, and the rows again if it moved. */
  #rescale(): void {
    const next = this.#zoomed ? this.#inView() : this.#whole;
    const moved = next.from !== this.#range.from || next.to !== this.#range.to;
    this.#range = next;
    this.#drawAxis();
    if (moved) this.#reposition();
  }

  /** Put the bars drawn now where the axis in force puts them (no row is drawn again). */
  #reposition(): void {
    const now = Date.now();
    for (const bar of this.#list.element.querySelectorAll<HTMLElement>('.wf-bar')) {
      const id = bar.closest('.wf-row')?.getAttribute('data-instance-id');
      const instance = id === null || id === undefined ? undefined : this.#byId.get(id);
      if (instance !== undefined) this.#place(bar, instance, now);
    }
  }

  /** Set a bar's left edge and width from its call's start and end on the axis in force. */
  #place(bar: HTMLElement, instance: Instance, now: number): void {
    const { from, to } = this.#range;
    const width = to - from;
    const view = callView(instance, this.store.run, this.#held.get(instance.instanceId));
    const left = Math.max(0, Math.min(1, (Date.parse(instance.startedAt) - from) / width));
    const right = Math.max(left, Math.min(1, (endOf(instance, view, now) - from) / width));
    bar.style.left = `${(left * 100).toFixed(3)}%`;
    bar.style.width = `${((right - left) * 100).toFixed(3)}%`;
  }

  /** A bar's parts: the server's time, and the time held where it was (before, between a Retry's attempts, after; see bar-parts.ts). */
  #parts(bar: HTMLElement, instance: Instance, view: CallView): void {
    if (view.waitingSince !== undefined || view.took === undefined || view.heldMs <= 0) return;
    const parts = barParts(instance);
    for (const part of parts) {
      const piece = el('span', { class: `wf-part wf-${part.kind}` });
      piece.style.width = `${(part.share * 100).toFixed(3)}%`;
      bar.appendChild(piece);
    }
    bar.classList.add('split');
  }

  #drawAxis(): void {
    const { from, to } = this.#range;
    const width = to - from;
    // Three labels fit a narrow column: the start (its clock time is in the tooltip and beside the zoom), the middle, the end.
    const ticks = [0, 0.5, 1].map((f) => {
      const tick = el('span', { class: `wf-tick${f === 1 ? ' last' : ''}`, text: f === 0 ? '0' : `+${duration(width * f)}` });
      tick.style.left = `${f * 100}%`;
      return tick;
    });
    setChildren(this.#axis, ...ticks);
    this.#from.textContent = `from ${clock(new Date(from).toISOString())}`;
    setAttr(this.element, 'data-range', `${from}-${to}`);
  }

  /** The next (or previous) failed call from the one open (or the first in view); undefined if none. */
  nextError(step: 1 | -1): Instance | undefined {
    const items = this.#items;
    const active = this.store.activeInstance;
    let from = active === null ? -1 : items.findIndex((instance) => instance.instanceId === active);
    if (from === -1) from = step === 1 ? this.#list.firstVisible() - 1 : this.#list.firstVisible();
    const index = nextErrorIndex(items, from, step, (instance) => instance.status === 'error');
    if (index === -1) return undefined;
    this.#list.scrollToIndex(index, 44);
    return items[index];
  }

  /** Scroll to the row of a call; false if the waterfall does not show it. */
  scrollToCall(instanceId: string): boolean {
    const index = this.#items.findIndex((instance) => instance.instanceId === instanceId);
    if (index === -1) return false;
    if (!this.#list.inView(index)) this.#list.scrollToIndex(index, 44);
    return true;
  }

  #row(instance: Instance): HTMLElement {
    const run = this.store.run;
    const label = run?.node(instance.nodeId)?.node.label ?? instance.nodeId;
    const hold = this.#held.get(instance.instanceId);
    const view = callView(instance, run, hold);
    const bar = el('span', { class: `wf-bar state-${view.state}${view.waitingSince !== undefined ? ' waiting' : ''}` });
    this.#place(bar, instance, Date.now());
    this.#parts(bar, instance, view);
    // The column is the server's time alone when the call was held: the bar shows the held part.
    const took = el('span', { class: 'wf-dur', text: view.heldMs > 0 && view.took !== undefined ? serverText(view) : tookText(view), title: tookTitle(instance, view) });
    if (view.waitingSince !== undefined) setAttr(took, view.state === 'held' ? 'data-waiting-since' : 'data-open-since', view.waitingSince);
    const name = `${label} ${instance.instanceId}`;
    const tip = [`${label} · ${instance.instanceId}`, hold === undefined ? view.state : holdBadge(hold), `started ${clock(instance.startedAt)}`, view.took === undefined ? undefined : tookTitle(instance, view)]
      .filter((part) => part !== undefined)
      .join(' · ');
    const row = el(
      'div',
      { class: `wf-row state-${view.state}${this.store.activeInstance === instance.instanceId ? ' active' : ''}`, title: tip },
      el('span', { class: 'wf-name', title: name }, sentByBadge(instance), changeBadge(instance, true), el('span', { class: 'wf-label', text: cut(label, 60) }), ' ', el('span', { class: 'muted', text: instance.instanceId })),
      el('span', { class: 'wf-track' }, bar),
      took,
    );
    setAttr(row, 'data-instance-id', instance.instanceId);
    setAttr(row, 'data-state', view.state);
    if (view.serverMs !== null && view.took !== undefined) setAttr(row, 'data-server-ms', String(view.serverMs));
    clickable(row, () => this.onPick(instance.nodeId, instance.instanceId));
    return row;
  }
}

/** Slowest first by the server's time; calls the server never answered (or still open) after those it did, by start. */
function sortByServerTime(calls: Instance[]): void {
  const server = new Map(calls.map((instance) => [instance, instance.endedAt === null ? null : callTimes(instance).serverMs]));
  calls.sort((a, b) => {
    const x = server.get(a) ?? null;
    const y = server.get(b) ?? null;
    if (x === null || y === null) return x === y ? a.startedAt.localeCompare(b.startedAt) : x === null ? 1 : -1;
    return y - x;
  });
}

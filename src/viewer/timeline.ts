// The session's timeline: every call and every log line (the server's
// stderr) in the order they happened, so a log line sits next to the request
// it was about. Lines the server wrote to stdout that are not JSON-RPC are
// shown with their text quoted. The session itself is a marker row, not a
// call, and the protocol card (a container) is not a row at all. The find
// bar narrows it. Virtualised, and it follows the tail.
import type { Instance } from '../protocol/run-model.js';
import type { Hold } from '../protocol/control.js';
import { changeBadge } from './call-changes.js';
import { callView, holdBadge, requestIdChip, tookText, tookTitle, waitingText } from './call-state.js';
import { clickable, el, setAttr, tickTimes } from './dom.js';
import { callMatches, finding, isCall, logMatches, words, type FindQuery } from './find.js';
import { clock, cut, plural, preview } from './format.js';
import { isLogpoint, logpointRow } from './logpoint-lines.js';
import { isRestartLine } from './restarts.js';
import { sentByBadge } from './send-again.js';
import { SESSION_NODE_ID, STDOUT_NOISE_NODE_ID, shownState, type RunModel, type TimelineItem } from './run-model.js';
import type { Store } from './store.js';
import { VirtualList } from './virtual-list.js';

/** Where the next error is, from `from` on (or back), in `items`: wrapping round; -1 if there is none. */
export function nextErrorIndex<T>(items: readonly T[], from: number, step: 1 | -1, isError: (item: T) => boolean): number {
  const n = items.length;
  for (let k = 1; k <= n; k++) {
    const i = (((from + step * k) % n) + n) % n;
    if (isError(items[i] as T)) return i;
  }
  return -1;
}

/** The calls of the selected run held right now, by instance id. */
export function heldByInstance(store: Store): Map<string, Hold> {
  const held = new Map<string, Hold>();
  for (const hold of store.holds) if (hold.runId === store.selectedRunId && !held.has(hold.instanceId)) held.set(hold.instanceId, hold);
  return held;
}

/** The timeline pane. */
export class Timeline {
  readonly element: HTMLElement;
  readonly #list: VirtualList<TimelineItem>;
  /** What the list shows now: the run's timeline, narrowed by the find bar. */
  #items: TimelineItem[] = [];
  #shown: { run: RunModel | null; length: number; version: number; find: FindQuery; holds: Hold[] } | null = null;
  #held = new Map<string, Hold>();
  /** Counts for the pane's head. */
  counts = { calls: 0, logs: 0, shownCalls: 0, shownLogs: 0, errors: 0 };

  constructor(
    private readonly store: Store,
    private readonly onPick: (nodeId: string, instanceId: string) => void,
  ) {
    this.#list = new VirtualList<TimelineItem>(
      {
        key: (item) => (item.kind === 'log' ? `l${item.index}` : `i${item.instance.instanceId}`),
        version: (item) => {
          if (item.kind === 'log') return '';
          const { instance } = item;
          const hold = this.#held.get(instance.instanceId);
          const view = callView(instance, this.store.run, hold);
          // The run's status is in it: an open call turns unfinished when the run ends, and back on a reclaim.
          return `${view.state}|${instance.endedAt}|${instance.deliveredAt}|${instance.attempts?.length ?? 0}|${instance.changed?.holdId ?? ''}|${instance.heldMs ?? 0}|${hold?.holdId ?? ''}|${hold?.givenUp ?? ''}|${this.store.activeInstance === instance.instanceId}`;
        },
        render: (item) => this.#row(item),
      },
      24,
      'timeline-list',
      true,
    );
    setAttr(this.#list.element, 'aria-label', 'timeline');
    this.element = this.#list.element;
  }

  /** The rows shown now. */
  get items(): readonly TimelineItem[] {
    return this.#items;
  }

  render(): void {
    const { run, find, holds } = this.store;
    const all = run?.timeline ?? [];
    const previous = this.#shown;
    const fresh = previous === null || previous.run !== run;
    const changed = fresh || previous.length !== all.length || previous.find !== find || previous.holds !== holds || (finding(find) && previous.version !== run?.version);
    this.#held = heldByInstance(this.store);
    if (changed) {
      this.#items = run === null ? [] : this.#narrow(run, all, find);
      const refound = !fresh && previous.find !== find;
      this.#list.setItems(this.#items, fresh || refound);
      if (fresh) this.#list.scrollToBottom();
      else if (refound) {
        // A new query: back to the call that is open, if it is still shown; else the end.
        const active = this.store.activeInstance;
        if (active === null || !this.scrollToCall(active)) this.#list.scrollToBottom();
      }
    } else {
      this.#list.refresh();
    }
    tickTimes(this.#list.element, 'data-waiting-since', waitingText);
    this.#shown = { run, length: all.length, version: run?.version ?? -1, find, holds };
  }

  /** The run's timeline without the protocol card's row, narrowed by `find`; counts what it has and shows. */
  #narrow(run: RunModel, all: readonly TimelineItem[], find: FindQuery): TimelineItem[] {
    const out: TimelineItem[] = [];
    const needles = words(find);
    const narrowing = finding(find);
    let calls = 0;
    let shownCalls = 0;
    let errors = 0;
    let shownLogs = 0;
    // With an expression, a log line shows with the call it is about (shown before it: the timeline is in time order).
    const shownIds = new Set<string>();
    const callShown = (instanceId: string): boolean => shownIds.has(instanceId);
    for (const item of all) {
      if (item.kind === 'log') {
        if (!narrowing || logMatches(item.log, find, needles, callShown)) {
          out.push(item);
          shownLogs++;
        }
        continue;
      }
      const { instance } = item;
      if (instance.nodeId === SESSION_NODE_ID) {
        // The session's start, as a marker: not a call, and not counted as one.
        if (!narrowing) out.push(item);
        continue;
      }
      if (!isCall(instance)) continue;
      calls++;
      if (instance.status === 'error') errors++;
      if (!narrowing || callMatches(instance, run, find, needles, this.#held.get(instance.instanceId))) {
        out.push(item);
        shownCalls++;
        if (narrowing) shownIds.add(instance.instanceId);
      }
    }
    this.counts = { calls, logs: run.logs.length, shownCalls, shownLogs, errors };
    return out;
  }

  /** Scroll to the row of a call (and mark it); false if the list does not show it. */
  scrollToCall(instanceId: string): boolean {
    const index = this.#items.findIndex((item) => item.kind === 'instance' && item.instance.instanceId === instanceId);
    if (index === -1) return false;
    if (!this.#list.inView(index)) this.#list.scrollToIndex(index, 48);
    return true;
  }

  /** The next (or previous) failed call from the one open (or the first in view); undefined if none. */
  nextError(step: 1 | -1): Instance | undefined {
    const items = this.#items;
    const active = this.store.activeInstance;
    let from = active === null ? -1 : items.findIndex((item) => item.kind === 'instance' && item.instance.instanceId === active);
    if (from === -1) from = step === 1 ? this.#list.firstVisible() - 1 : this.#list.firstVisible();
    const index = nextErrorIndex(items, from, step, (item) => item.kind === 'instance' && isCall(item.instance) && item.instance.status === 'error');
    if (index === -1) return undefined;
    this.#list.scrollToIndex(index, 48);
    return (items[index] as Extract<TimelineItem, { kind: 'instance' }>).instance;
  }

  #row(item: TimelineItem): HTMLElement {
    if (item.kind === 'log') {
      const { log } = item;
      if (isLogpoint(log)) return logpointRow(log);
      // A restart of the server is a marker across the timeline: what comes after it ran on the new server.
      const restart = isRestartLine(log);
      return el(
        'div',
        { class: `tl tl-log stream-${log.stream === 'stderr' ? 'stderr' : 'other'}${restart ? ' tl-restart' : ''}` },
        el('span', { class: 'tl-time', text: clock(log.at) }),
        el('span', { class: 'tl-tag', text: restart ? '⟳ restart' : log.stream }),
        el('span', { class: 'tl-text', text: log.text }),
      );
    }
    const { instance } = item;
    const run = this.store.run;
    const entry = run?.node(instance.nodeId);
    const label = entry?.node.label ?? instance.nodeId;
    if (instance.nodeId === SESSION_NODE_ID) {
      // Not a call: where the session began, and how it is doing (it stays open as long as the session runs).
      const state = shownState(instance.status, run);
      const text = state === 'open' ? 'running' : state === 'ok' ? 'ended' : state;
      const row = el(
        'div',
        { class: 'tl tl-session' },
        el('span', { class: 'tl-time', text: clock(instance.startedAt) }),
        el('span', { class: `pill status-${instance.status === 'open' ? 'running' : instance.status}${state === 'unfinished' ? ' unfinished' : ''}`, text }),
        el('span', { class: 'tl-text' }, el('span', { class: 'tl-session-tag', text: 'session started ' }), el('span', { class: 'tl-node', text: cut(label, 120), title: label })),
      );
      setAttr(row, 'data-instance-id', instance.instanceId);
      return row;
    }
    const noise = instance.nodeId === STDOUT_NOISE_NODE_ID;
    const hold = this.#held.get(instance.instanceId);
    const view = callView(instance, run, hold);
    const text = el('span', { class: 'tl-text' });
    if (noise) {
      // Quoted as a JSON string: the exact text, with any control characters visible.
      text.append(el('span', { class: 'muted', text: 'stdout noise ' }), el('span', { class: 'noise-text', text: preview(instance.input, 400) }));
    } else {
      text.append(el('span', { class: 'tl-node', text: cut(label, 80), title: label }), ' ', el('span', { class: 'muted', text: instance.instanceId }));
      const id = requestIdChip(hold);
      if (id !== null) text.append(' ', id);
      if (hold !== undefined) text.append(' ', el('span', { class: `held-badge${hold.givenUp === undefined ? '' : ' given-up'}`, text: holdBadge(hold), title: hold.givenUp }));
      // A call the debugger sent (Send again) is not the client's: marked as in its detail.
      const sent = sentByBadge(instance);
      if (sent !== null) text.append(' ', sent);
      const change = changeBadge(instance);
      if (change !== null) text.append(' ', change);
      const tries = instance.attempts?.length ?? 0;
      if (tries > 0) text.append(' ', el('span', { class: 'retried', text: `sent ${tries + 1}×`, title: `the request was sent ${tries + 1} times (Retry at the after gate)` }));
      if (instance.error !== undefined) text.append(' ', el('span', { class: 'tl-error', text: cut(instance.error.message, 200), title: instance.error.message }));
    }
    // An open call says so (the waterfall shows it growing); a held one, how long the client has waited.
    const took = el('span', { class: 'tl-dur', text: view.state === 'open' ? 'open' : tookText(view), title: tookTitle(instance, view) });
    if (view.state === 'held' && view.waitingSince !== undefined) setAttr(took, 'data-waiting-since', view.waitingSince);
    const active = this.store.activeInstance === instance.instanceId;
    const row = el(
      'div',
      { class: `tl tl-call status-${instance.status}${view.state === 'unfinished' ? ' unfinished' : ''}${view.state === 'held' ? ' held' : ''}${noise ? ' tl-noise' : ''}${active ? ' active' : ''}` },
      el('span', { class: 'tl-time', text: clock(instance.startedAt) }),
      el('span', { class: `pill ${view.pillClass}`, text: view.state }),
      text,
      took,
    );
    setAttr(row, 'data-instance-id', instance.instanceId);
    setAttr(row, 'data-state', view.state);
    clickable(row, () => this.onPick(instance.nodeId, instance.instanceId));
    return row;
  }
}

/** `12 calls · 3 log lines`, or what the find bar lets through of them. */
export function timelineCounts(counts: Timeline['counts'], narrowed: boolean): string {
  if (!narrowed) return `${plural(counts.calls, 'call')} · ${plural(counts.logs, 'log line')}`;
  const logs = counts.shownLogs > 0 ? ` · ${plural(counts.shownLogs, 'log line')}` : '';
  return `${counts.shownCalls.toLocaleString()} of ${plural(counts.calls, 'call')}${logs}`;
}

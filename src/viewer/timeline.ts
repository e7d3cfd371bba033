// The session's timeline: every execution and every log line (the server's
// stderr) in the order they happened, so a log line sits next to the request
// it was about. Lines the server wrote to stdout that are not JSON-RPC are
// shown with their text quoted. Virtualised, and it follows the tail.
import { clickable, el, setAttr } from './dom.js';
import { clock, cut, duration, preview, span } from './format.js';
import { STDOUT_NOISE_NODE_ID, shownState, type RunModel, type TimelineItem } from './run-model.js';
import type { Store } from './store.js';
import { VirtualList } from './virtual-list.js';

/** The timeline pane. */
export class Timeline {
  readonly element: HTMLElement;
  readonly #list: VirtualList<TimelineItem>;
  readonly #count: HTMLElement;
  #shown: { run: RunModel | null; length: number } = { run: null, length: -1 };

  constructor(
    private readonly store: Store,
    private readonly onPick: (nodeId: string, instanceId: string) => void,
  ) {
    this.#list = new VirtualList<TimelineItem>(
      {
        key: (item) => (item.kind === 'log' ? `l${item.index}` : `i${item.instance.instanceId}`),
        version: (item) => {
          if (item.kind === 'log') return '';
          // The run's status is in it: an open call turns unfinished when the run ends, and back on a reclaim.
          const shown = shownState(item.instance.status, this.store.run);
          const tick = shown === 'open' ? Math.floor(Date.now() / 1000) : 0;
          return `${shown}|${item.instance.endedAt}|${tick}`;
        },
        render: (item) => this.#row(item),
      },
      24,
      'timeline-list',
      true,
    );
    setAttr(this.#list.element, 'aria-label', 'timeline');
    this.#count = el('span', { class: 'muted' });
    this.element = el(
      'section',
      { class: 'timeline', attrs: { 'aria-label': 'timeline' } },
      el('div', { class: 'pane-head' }, el('h3', { text: 'Timeline' }), this.#count),
      this.#list.element,
    );
  }

  render(): void {
    const run = this.store.run;
    const items = run?.timeline ?? [];
    if (this.#shown.run !== run || this.#shown.length !== items.length) {
      const fresh = this.#shown.run !== run;
      this.#list.setItems(items, fresh);
      if (fresh) this.#list.scrollToBottom();
      const logs = run?.logs.length ?? 0;
      this.#count.textContent = run === null ? '' : `${(items.length - logs).toLocaleString()} calls · ${logs.toLocaleString()} log lines`;
    } else {
      this.#list.refresh();
    }
    this.#shown = { run, length: items.length };
  }

  #row(item: TimelineItem): HTMLElement {
    if (item.kind === 'log') {
      const { log } = item;
      const row = el(
        'div',
        { class: `tl tl-log stream-${log.stream === 'stderr' ? 'stderr' : 'other'}` },
        el('span', { class: 'tl-time', text: clock(log.at) }),
        el('span', { class: 'tl-tag', text: log.stream }),
        el('span', { class: 'tl-text', text: log.text }),
      );
      return row;
    }
    const { instance } = item;
    const entry = this.store.run?.node(instance.nodeId);
    const label = entry?.node.label ?? instance.nodeId;
    const noise = instance.nodeId === STDOUT_NOISE_NODE_ID;
    const text = el('span', { class: 'tl-text' });
    if (noise) {
      // Quoted as a JSON string: the exact text, with any control characters visible.
      text.append(el('span', { class: 'muted', text: 'stdout noise ' }), el('span', { class: 'noise-text', text: preview(instance.input, 400) }));
    } else {
      text.append(el('span', { class: 'tl-node', text: cut(label, 80) }), ' ', el('span', { class: 'muted', text: instance.instanceId }));
      if (instance.error !== undefined) text.append(' ', el('span', { class: 'tl-error', text: cut(instance.error.message, 200) }));
    }
    const took = span(instance.startedAt, instance.endedAt);
    const shown = shownState(instance.status, this.store.run);
    const unfinished = shown === 'unfinished';
    const row = el(
      'div',
      { class: `tl tl-call status-${instance.status}${unfinished ? ' unfinished' : ''}${noise ? ' tl-noise' : ''}` },
      el('span', { class: 'tl-time', text: clock(instance.startedAt) }),
      el('span', { class: `pill status-${instance.status}${unfinished ? ' unfinished' : ''}`, text: shown }),
      text,
      el('span', { class: 'tl-dur', text: instance.status === 'open' ? shown : duration(took) }),
    );
    setAttr(row, 'data-instance-id', instance.instanceId);
    clickable(row, () => this.onPick(instance.nodeId, instance.instanceId));
    return row;
  }
}

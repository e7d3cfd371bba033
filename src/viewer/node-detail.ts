// A node's detail: its breakpoints, and its executions in order, each with
// status, duration, and input / output / error as collapsible pretty JSON.
// The list is virtualised: a node with thousands of calls draws only what is in view.
import type { Instance } from '../report/events.js';
import { button, clickable, el, setAttr, setChildren, tickTimes } from './dom.js';
import { clock, duration, preview, span } from './format.js';
import { jsonBlock } from './json-view.js';
import { STDOUT_NOISE_NODE_ID, SESSION_NODE_ID, isContainer, runEnded, shownState, type RunModel } from './run-model.js';
import type { Store } from './store.js';
import { VirtualList } from './virtual-list.js';

/** The body of a call still open when its run ended (its reporter vanished, the server restarted). */
const UNFINISHED_TEXT = 'The run ended before this call finished, so its outcome is unknown.';

/** The detail pane of the selected node. */
export class NodeDetail {
  readonly element: HTMLElement;
  readonly #head: HTMLElement;
  readonly #list: VirtualList<Instance>;
  #shown: { run: RunModel | null; nodeId: string | null; count: number; version: number } = { run: null, nodeId: null, count: -1, version: -1 };
  #headSig = '';

  constructor(private readonly store: Store) {
    this.#head = el('div', { class: 'detail-head' });
    this.#list = new VirtualList<Instance>(
      {
        key: (instance) => instance.instanceId,
        version: (instance) => {
          const held = this.store.holds.some((h) => h.runId === this.store.selectedRunId && h.instanceId === instance.instanceId);
          // The run's status is in it: an open call turns unfinished when the run ends, and back on a reclaim.
          const shown = shownState(instance.status, this.store.run);
          // No ticking time in it: an open call's duration is updated in place (see #tick), so that
          // its folded JSON, a selection or "Show all" are not reset every second while it is looked at.
          return `${shown}|${instance.endedAt}|${this.store.expanded.has(instance.instanceId)}|${held}`;
        },
        render: (instance, index) => this.#row(instance, index),
      },
      34,
      'instances',
    );
    setAttr(this.#list.element, 'aria-label', 'instances');
    this.element = el('section', { class: 'detail', attrs: { 'aria-label': 'node detail' } }, this.#head, this.#list.element);
  }

  /** Scroll the list to an execution of the shown node. */
  reveal(instanceId: string): void {
    const entry = this.store.run?.node(this.store.selectedNodeId ?? '');
    const index = entry?.instances.findIndex((i) => i.instanceId === instanceId) ?? -1;
    if (index >= 0) this.#list.scrollToIndex(index);
  }

  render(): void {
    const { run, selectedNodeId } = this.store;
    const entry = run !== null && selectedNodeId !== null ? run.node(selectedNodeId) : undefined;
    if (run === null || entry === undefined) {
      this.element.classList.add('empty');
      const sig = run === null ? 'none' : 'pick';
      if (this.#headSig !== sig) {
        this.#headSig = sig;
        setChildren(this.#head, run === null ? null : el('p', { class: 'hint', text: 'Select a node in the graph to see its calls. The timeline on the right shows everything in order.' }));
      }
      if (this.#shown.count !== 0 || this.#shown.run !== run) this.#list.setItems([], true);
      this.#shown = { run, nodeId: null, count: 0, version: -1 };
      return;
    }
    this.element.classList.remove('empty');
    this.#renderHead(run, entry.node.nodeId);
    const same = this.#shown.run === run && this.#shown.nodeId === selectedNodeId;
    if (!same || this.#shown.count !== entry.instances.length) {
      this.#list.setItems(entry.instances, !same);
      if (!same) {
        const held = this.store.holdOn(selectedNodeId as string);
        if (held !== undefined) this.reveal(held.instanceId);
        else this.#list.scrollToBottom();
      }
    } else {
      this.#list.refresh();
    }
    this.#tick();
    this.#shown = { run, nodeId: selectedNodeId, count: entry.instances.length, version: run.version };
  }

  /** The durations of the open calls on screen, brought up to now without redrawing their rows. */
  #tick(): void {
    tickTimes(this.#list.element, 'data-open-since', (ms) => `open ${duration(ms)}`);
  }

  #renderHead(run: RunModel, nodeId: string): void {
    const entry = run.node(nodeId);
    if (entry === undefined) return;
    const bp = this.store.breakpoints.nodes[nodeId] ?? {};
    const status = run.shownStatus(nodeId);
    const shown = shownState(status, run);
    const ended = runEnded(run);
    const hold = this.store.holdOn(nodeId);
    const hinted = run.isHinted(nodeId);
    const sig = [nodeId, hinted, shown, ended, entry.instances.length, entry.open, entry.errors, bp.before === true, bp.after === true, hold?.holdId ?? ''].join('|');
    if (sig === this.#headSig) return;
    this.#headSig = sig;
    const { node } = entry;
    const title = el(
      'div',
      { class: 'detail-title' },
      el('span', { class: `kind kind-${node.kind}`, text: node.kind }),
      el('h2', { text: node.label === '' ? node.nodeId : node.label }),
      hinted
        ? el('span', { class: 'pill not-run', text: 'not run' })
        : el('span', { class: `pill status-${status}${shown === 'unfinished' ? ' unfinished' : ''}`, text: shown }),
    );
    const counts = [`${entry.instances.length} call${entry.instances.length === 1 ? '' : 's'}`];
    if (entry.open > 0) counts.push(`${entry.open} ${ended ? 'unfinished' : 'open'}`);
    if (entry.errors > 0) counts.push(`${entry.errors} failed`);
    const info = el('div', { class: 'detail-info' }, el('code', { class: 'node-id', text: nodeId }), el('span', { class: 'muted', text: counts.join(' · ') }));
    const breakable = nodeId !== SESSION_NODE_ID && !isContainer(nodeId) && nodeId !== STDOUT_NOISE_NODE_ID && node.kind !== 'server';
    const controls = el('div', { class: 'bp-controls' });
    if (breakable) {
      const toggle = (gate: 'before' | 'after', label: string, help: string): HTMLButtonElement => {
        const on = bp[gate] === true;
        const b = button(`${on ? '◆' : '◇'} ${label}`, () => void this.store.setBreakpoint(nodeId, gate, !on), on ? 'btn toggle on' : 'btn toggle', help);
        setAttr(b, 'aria-pressed', String(on));
        setAttr(b, 'data-gate', gate);
        return b;
      };
      controls.append(
        toggle('before', 'Break before', 'Hold the request before it reaches the server'),
        toggle('after', 'Break after', 'Hold the answer before it reaches the client'),
      );
    } else {
      controls.appendChild(el('span', { class: 'muted', text: 'No breakpoints on this node: it is not a request.' }));
    }
    if (hold !== undefined) controls.appendChild(el('span', { class: 'held-badge', text: `HELD at ${hold.gate}` }));
    const note = hinted
      ? el('p', { class: 'hint hinted-note', text: 'Registered on the server, not called in this run: drawn grey from the connection’s graph hint. A breakpoint set here holds its next call.' })
      : null;
    setChildren(this.#head, title, info, controls, note);
  }

  #row(instance: Instance, index: number): HTMLElement {
    const expanded = this.store.expanded.has(instance.instanceId);
    const held = this.store.holds.find((h) => h.runId === this.store.selectedRunId && h.instanceId === instance.instanceId);
    const took = span(instance.startedAt, instance.endedAt);
    const shown = shownState(instance.status, this.store.run);
    const unfinished = shown === 'unfinished';
    const head = el(
      'div',
      { class: 'inst-head' },
      el('span', { class: 'chevron', text: expanded ? '▾' : '▸' }),
      el('span', { class: 'inst-n', text: `#${index + 1}` }),
      el('span', { class: 'inst-id', text: instance.instanceId }),
      el('span', { class: `pill status-${instance.status}${unfinished ? ' unfinished' : ''}`, text: shown }),
      // No ticking time for an unfinished call: it did not go on after the run ended.
      el('span', {
        class: 'inst-dur',
        text: unfinished ? 'unfinished' : shown === 'open' ? `open ${duration(took)}` : duration(took),
        attrs: shown === 'open' ? { 'data-open-since': instance.startedAt } : undefined,
      }),
      el('span', { class: 'inst-time', text: clock(instance.startedAt) }),
      held === undefined ? null : el('span', { class: 'held-badge', text: `held · ${held.gate}` }),
      // A stdout-noise record is its quoted line; its error only says what such a line is.
      expanded ? null : el('span', { class: 'inst-preview', text: preview(instance.error !== undefined && instance.nodeId !== STDOUT_NOISE_NODE_ID ? instance.error.message : instance.input, 200) }),
    );
    clickable(head, () => this.store.toggleExpanded(instance.instanceId));
    setAttr(head, 'aria-expanded', String(expanded));
    const row = el('div', { class: `inst status-${instance.status}${unfinished ? ' unfinished' : ''}${held !== undefined ? ' held' : ''}` }, head);
    setAttr(row, 'data-instance-id', instance.instanceId);
    if (expanded) {
      const body = el('div', { class: 'inst-body' });
      if (instance.nodeId === STDOUT_NOISE_NODE_ID && typeof instance.input === 'string') {
        body.appendChild(el('div', { class: 'noise-line' }, el('span', { class: 'muted', text: 'the server wrote to stdout: ' }), el('span', { class: 'noise-text', text: JSON.stringify(instance.input) })));
      }
      if (instance.input !== undefined) body.appendChild(jsonBlock('input', instance.input));
      if (instance.error !== undefined) body.appendChild(jsonBlock('error', instance.error, true, 'error'));
      if (instance.output !== undefined) body.appendChild(jsonBlock('output', instance.output));
      const waiting = unfinished ? UNFINISHED_TEXT : 'Waiting for an answer…';
      const note = unfinished ? 'muted unfinished-note' : 'muted';
      if (instance.input === undefined && instance.output === undefined && instance.error === undefined) {
        body.appendChild(el('p', { class: note, text: instance.status === 'open' ? waiting : 'Nothing recorded.' }));
      } else if (instance.status === 'open' && instance.output === undefined) {
        body.appendChild(el('p', { class: note, text: waiting }));
      }
      row.appendChild(body);
    }
    return row;
  }
}

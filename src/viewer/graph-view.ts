// The run's graph as an HTML tree: the session on top, its work nodes in a
// grid below it (a node's own children, such as the sampling a tool issued,
// in a grid below that node), and the protocol card folded with a count of
// the calls inside. Nodes from the run's graph hint that did not run are
// drawn grey. Cards are kept per node and rebuilt only when what they show changes.
import type { Hold, NodeStatus } from '../report/events.js';
import { reasonText } from './call-state.js';
import { clickable, el, setAttr } from './dom.js';
import { plural } from './format.js';
import { isContainer, kindText, runEnded, shownState, type RunModel } from './run-model.js';
import type { Store } from './store.js';

interface Card {
  el: HTMLElement;
  sig: string;
}

/** The graph of the selected run. */
export class GraphView {
  readonly element: HTMLElement;
  readonly #cards = new Map<string, Card>();
  #lastRun: RunModel | null = null;
  #shape = '';

  constructor(private readonly store: Store) {
    this.element = el('div', { class: 'graph', attrs: { role: 'region', 'aria-label': 'graph' } });
  }

  render(): void {
    const run = this.store.run;
    if (run !== this.#lastRun) {
      this.#cards.clear();
      this.#lastRun = run;
      this.#shape = '';
    }
    if (run === null) {
      this.element.replaceChildren();
      return;
    }
    const shape = `${run.shapeVersion}|${[...this.store.unfolded].join('\u0000')}`;
    if (shape === this.#shape) {
      // Same tree: only cards whose content changed are swapped, in place (focus stays put elsewhere).
      for (const nodeId of [...this.#cards.keys()]) this.#card(run, nodeId);
      return;
    }
    this.#shape = shape;
    const seen = new Set<string>();
    const roots = run.roots().map((id) => this.#branch(run, id, seen, 0));
    this.element.replaceChildren(...roots);
    for (const id of this.#cards.keys()) if (!seen.has(id)) this.#cards.delete(id);
  }

  #branch(run: RunModel, nodeId: string, seen: Set<string>, depth: number): HTMLElement {
    seen.add(nodeId);
    const card = this.#card(run, nodeId);
    const children = (run.children.get(nodeId) ?? []).filter((id) => !seen.has(id));
    const container = isContainer(nodeId);
    const folded = container && !this.store.unfolded.has(nodeId);
    if (children.length === 0 || folded || depth > 32) {
      return el('div', { class: container ? 'branch leaf container-branch' : 'branch leaf' }, card);
    }
    const grid = el('div', { class: container ? 'children nested' : 'children' }, ...children.map((id) => this.#branch(run, id, seen, depth + 1)));
    return el('div', { class: container ? 'branch open-container container-branch' : 'branch' }, card, grid);
  }

  #card(run: RunModel, nodeId: string): HTMLElement {
    const entry = run.node(nodeId);
    if (entry === undefined) return el('div');
    const status: NodeStatus = run.shownStatus(nodeId);
    // Open in a run that is no longer running: unfinished, not running.
    const shown = shownState(status, run);
    const ended = runEnded(run);
    const container = isContainer(nodeId);
    const folded = container && !this.store.unfolded.has(nodeId);
    const inside = container ? run.callsInside(nodeId) : undefined;
    // A folded card stands for the nodes inside it: a hold or a breakpoint on one of them shows on the card.
    const within = folded ? run.descendants(nodeId) : undefined;
    const hold = this.store.holdOn(nodeId) ?? (within === undefined ? undefined : this.#holdWithin(within));
    const bp = this.store.breakpoints.nodes[nodeId];
    const bpsInside = within === undefined ? 0 : within.filter((id) => this.store.breakpoints.nodes[id]?.before === true || this.store.breakpoints.nodes[id]?.after === true).length;
    const selected = this.store.selectedNodeId === nodeId;
    // Registered on the server (the graph hint), not run here: grey, no status of its own.
    const hinted = run.isHinted(nodeId);
    const sig = [
      hinted,
      shown,
      ended,
      entry.instances.length,
      entry.open,
      entry.errors,
      folded,
      inside === undefined ? '' : `${inside.calls}/${inside.errors}/${inside.open}`,
      hold === undefined ? '' : `${hold.holdId}:${hold.gate}:${hold.givenUp ?? ''}`,
      bpsInside,
      bp?.before === true,
      bp?.after === true,
      selected,
    ].join('|');
    const cached = this.#cards.get(nodeId);
    if (cached !== undefined && cached.sig === sig) return cached.el;

    const { node } = entry;
    const classes = ['node', `kind-${node.kind}`, hinted ? 'hinted' : `status-${status}`];
    if (shown === 'unfinished') classes.push('unfinished');
    if (container) classes.push('container', folded ? 'folded' : 'unfolded');
    if (hold !== undefined) classes.push('held');
    if (selected) classes.push('selected');
    const card = el('div', { class: classes.join(' '), title: hinted ? `${node.nodeId} · registered on the server, not run in this run` : node.nodeId });
    setAttr(card, 'data-node-id', node.nodeId);
    setAttr(card, 'data-status', hinted ? 'not-run' : status);
    if (hinted) setAttr(card, 'data-hinted', 'true');

    const head = el(
      'div',
      { class: 'node-head' },
      el('span', { class: 'kind', text: kindText(node) }),
      hinted
        ? el('span', { class: 'pill not-run', text: 'not run' })
        : el('span', { class: `pill status-${status}${shown === 'unfinished' ? ' unfinished' : ''}`, text: node.kind === 'server' && shown === 'open' ? 'running' : shown }),
    );
    if (!container && !hinted) head.appendChild(el('span', { class: 'count', text: `×${entry.instances.length}`, title: plural(entry.instances.length, 'call') }));
    card.appendChild(head);
    const label = node.label === '' ? node.nodeId : node.label;
    card.appendChild(el('div', { class: 'node-label', text: label, title: label }));

    if (container && inside !== undefined) {
      const parts = [`${plural(inside.calls, 'call')} inside`];
      if (inside.errors > 0) parts.push(`${inside.errors} failed`);
      if (inside.open > 0) parts.push(`${inside.open} ${ended ? 'unfinished' : 'open'}`);
      card.appendChild(el('div', { class: 'inside', text: parts.join(' · ') }));
      card.appendChild(el('div', { class: 'fold-hint', text: folded ? '▸ click to unfold' : '▾ click to fold' }));
      setAttr(card, 'aria-expanded', String(!folded));
      setAttr(card, 'data-calls', String(inside.calls));
      clickable(card, () => this.store.toggleFold(nodeId));
    } else {
      clickable(card, () => this.store.selectNode(nodeId));
      if (entry.open > 0 && node.kind !== 'server') {
        const note = ended
          ? (entry.open === 1 ? 'no answer: the run ended first' : `${entry.open} without an answer: the run ended first`)
          : (entry.open === 1 ? 'no answer yet' : `${entry.open} without an answer yet`);
        card.appendChild(el('div', { class: ended ? 'open-note unfinished' : 'open-note', text: note }));
      }
    }
    const marks: HTMLElement[] = [];
    if (bp?.before === true) marks.push(el('span', { class: 'bp-mark', text: '◆ before', title: 'breakpoint before the request' }));
    if (bp?.after === true) marks.push(el('span', { class: 'bp-mark', text: '◆ after', title: 'breakpoint after the answer' }));
    if (bpsInside > 0) marks.push(el('span', { class: 'bp-mark', text: `◆ ${bpsInside} inside`, title: `breakpoints on ${plural(bpsInside, 'node')} inside` }));
    if (marks.length > 0) card.appendChild(el('div', { class: 'bp-marks' }, ...marks));
    if (hold !== undefined) {
      const where = hold.nodeId === nodeId ? '' : ` · ${run.node(hold.nodeId)?.node.label || hold.nodeId}`;
      // A breakpoint is on the card already (◆); a loop hold or pause on error says so.
      const reason = hold.reason === 'breakpoint' ? undefined : reasonText(hold);
      const text = `HELD at ${hold.gate}${where}${reason === undefined ? '' : ` · ${reason}`}${hold.givenUp === undefined ? '' : ' · given up'}`;
      card.appendChild(el('div', { class: `held-badge${hold.givenUp === undefined ? '' : ' given-up'}`, text, title: hold.givenUp }));
    }

    if (cached !== undefined && cached.el.isConnected) {
      const focused = document.activeElement === cached.el;
      cached.el.replaceWith(card);
      if (focused) card.focus();
    }
    this.#cards.set(nodeId, { el: card, sig });
    return card;
  }

  /** The oldest hold of the selected run on one of `nodeIds`. */
  #holdWithin(nodeIds: readonly string[]): Hold | undefined {
    const ids = new Set(nodeIds);
    return this.store.holds.find((h) => h.runId === this.store.selectedRunId && ids.has(h.nodeId));
  }
}

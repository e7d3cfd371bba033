// The run's graph as an HTML tree: the session on top, its work nodes in a
// grid below it (a node's own children, such as the sampling a tool issued,
// in a grid below that node), and the protocol card folded with a count of
// the calls inside. Nodes from the run's graph hint that did not run are
// drawn grey. Cards are kept per node and rebuilt only when what they show changes.
import type { Instance, NodeStatus } from '../protocol/run-model.js';
import { changeText } from '../protocol/call-times.js';
import { changeWords } from './answer-pairs.js';
import type { Breakpoints, Hold } from '../protocol/control.js';
import { appliesTo, runServerName, serverLabel } from './breakpoint-scope.js';
import { reasonText } from './call-state.js';
import { clickable, el, setAttr } from './dom.js';
import { plural } from './format.js';
import { isContainer, kindText, runEnded, shownState, type NodeEntry, type RunModel, type ShownStatus } from './run-model.js';
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
    const facts = this.#facts(run, nodeId, entry);
    const sig = cardSig(facts);
    const cached = this.#cards.get(nodeId);
    if (cached !== undefined && cached.sig === sig) return cached.el;

    const card = drawCard(run, facts);
    if (facts.container && facts.inside !== undefined) clickable(card, () => this.store.toggleFold(nodeId));
    else clickable(card, () => this.store.selectNode(nodeId));
    if (cached !== undefined && cached.el.isConnected) {
      const focused = document.activeElement === cached.el;
      cached.el.replaceWith(card);
      if (focused) card.focus();
    }
    this.#cards.set(nodeId, { el: card, sig });
    return card;
  }

  /** What the card of `nodeId` shows. */
  #facts(run: RunModel, nodeId: string, entry: NodeEntry): CardFacts {
    const status: NodeStatus = run.shownStatus(nodeId);
    const container = isContainer(nodeId);
    const folded = container && !this.store.unfolded.has(nodeId);
    // A folded card stands for the nodes inside it: a hold or a breakpoint on one of them shows on the card.
    const within = folded ? run.descendants(nodeId) : undefined;
    const nodes = this.store.breakpoints.nodes;
    return {
      entry,
      status,
      // Open in a run that is no longer running: unfinished, not running.
      shown: shownState(status, run),
      ended: runEnded(run),
      container,
      folded,
      inside: container ? run.callsInside(nodeId) : undefined,
      hold: this.store.holdOn(nodeId) ?? (within === undefined ? undefined : this.#holdWithin(within)),
      bp: nodes[nodeId],
      // A breakpoint for another server does not hold this run's calls: its mark says so.
      bpElsewhere: nodes[nodeId] !== undefined && !appliesTo(nodes[nodeId], runServerName(run.summary, run.meta)),
      bpsInside: within === undefined ? 0 : within.filter((id) => nodes[id]?.before === true || nodes[id]?.after === true).length,
      selected: this.store.selectedNodeId === nodeId,
      // Registered on the server (the graph hint), not run here: grey, no status of its own.
      hinted: run.isHinted(nodeId),
      changed: run.changedCalls(nodeId),
    };
  }

  /** The oldest hold of the selected run on one of `nodeIds`. */
  #holdWithin(nodeIds: readonly string[]): Hold | undefined {
    const ids = new Set(nodeIds);
    return this.store.holds.find((h) => h.runId === this.store.selectedRunId && ids.has(h.nodeId));
  }
}

/** What one node's card shows; its signature says when the card must be drawn again. */
interface CardFacts {
  entry: NodeEntry;
  status: NodeStatus;
  shown: ShownStatus;
  ended: boolean;
  container: boolean;
  folded: boolean;
  inside: { calls: number; errors: number; open: number } | undefined;
  hold: Hold | undefined;
  bp: Breakpoints['nodes'][string] | undefined;
  bpElsewhere: boolean;
  bpsInside: number;
  selected: boolean;
  hinted: boolean;
  /** Its calls whose answer the debugger changed (injected, aborted, retried). */
  changed: readonly Instance[];
}

function cardSig(f: CardFacts): string {
  const { inside, hold, bp } = f;
  return [
    f.hinted,
    f.shown,
    f.ended,
    f.entry.instances.length,
    f.entry.open,
    f.entry.errors,
    f.folded,
    inside === undefined ? '' : `${inside.calls}/${inside.errors}/${inside.open}`,
    hold === undefined ? '' : `${hold.holdId}:${hold.gate}:${hold.givenUp ?? ''}`,
    f.bpsInside,
    bp?.before === true,
    bp?.after === true,
    f.bpElsewhere,
    f.selected,
    f.changed.length,
    f.changed[f.changed.length - 1]?.changed?.holdId ?? '',
  ].join('|');
}

/** A node's card (its click is wired by the view). */
function drawCard(run: RunModel, f: CardFacts): HTMLElement {
  const { node } = f.entry;
  const { status, shown, hinted } = f;
  const classes = ['node', `kind-${node.kind}`, hinted ? 'hinted' : `status-${status}`];
  if (shown === 'unfinished') classes.push('unfinished');
  if (f.container) classes.push('container', f.folded ? 'folded' : 'unfolded');
  if (f.hold !== undefined) classes.push('held');
  if (f.selected) classes.push('selected');
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
  if (!f.container && !hinted) head.appendChild(el('span', { class: 'count', text: `×${f.entry.instances.length}`, title: plural(f.entry.instances.length, 'call') }));
  card.appendChild(head);
  const label = node.label === '' ? node.nodeId : node.label;
  card.appendChild(el('div', { class: 'node-label', text: label, title: label }));
  if (f.container && f.inside !== undefined) drawInside(card, f, f.inside);
  else drawOpenNote(card, f);
  drawMarks(card, f);
  drawChanged(card, f.changed);
  if (f.hold !== undefined) drawHeld(card, run, node.nodeId, f.hold);
  return card;
}

/** A container's count of the calls inside it, and how to (un)fold it. */
function drawInside(card: HTMLElement, f: CardFacts, inside: NonNullable<CardFacts['inside']>): void {
  const parts = [`${plural(inside.calls, 'call')} inside`];
  if (inside.errors > 0) parts.push(`${inside.errors} failed`);
  if (inside.open > 0) parts.push(`${inside.open} ${f.ended ? 'unfinished' : 'open'}`);
  card.appendChild(el('div', { class: 'inside', text: parts.join(' · ') }));
  card.appendChild(el('div', { class: 'fold-hint', text: f.folded ? '▸ click to unfold' : '▾ click to fold' }));
  setAttr(card, 'aria-expanded', String(!f.folded));
  setAttr(card, 'data-calls', String(inside.calls));
}

/** Calls of the node still without an answer. */
function drawOpenNote(card: HTMLElement, f: CardFacts): void {
  const { open } = f.entry;
  if (open <= 0 || f.entry.node.kind === 'server') return;
  const note = f.ended
    ? (open === 1 ? 'no answer: the run ended first' : `${open} without an answer: the run ended first`)
    : (open === 1 ? 'no answer yet' : `${open} without an answer yet`);
  card.appendChild(el('div', { class: f.ended ? 'open-note unfinished' : 'open-note', text: note }));
}

/** The breakpoints on the node (or inside a folded card). */
function drawMarks(card: HTMLElement, f: CardFacts): void {
  const marks: HTMLElement[] = [];
  const mark = f.bpElsewhere ? 'bp-mark elsewhere' : 'bp-mark';
  const where = f.bpElsewhere && f.bp?.server !== undefined ? ` (for server ${serverLabel(f.bp.server)}, not this run's)` : '';
  if (f.bp?.before === true) marks.push(el('span', { class: mark, text: '◆ before', title: `breakpoint before the request${where}` }));
  if (f.bp?.after === true) marks.push(el('span', { class: mark, text: '◆ after', title: `breakpoint after the answer${where}` }));
  if (f.bpsInside > 0) marks.push(el('span', { class: 'bp-mark', text: `◆ ${f.bpsInside} inside`, title: `breakpoints on ${plural(f.bpsInside, 'node')} inside` }));
  if (marks.length > 0) card.appendChild(el('div', { class: 'bp-marks' }, ...marks));
}

/** The badge of the calls the debugger changed: what the host got from them was not the server's own answer. */
function drawChanged(card: HTMLElement, changed: readonly Instance[]): void {
  const last = changed[changed.length - 1];
  if (last === undefined) return;
  const text = changed.length === 1 ? changeWords(last) ?? 'changed by the debugger' : `${changed.length} calls changed by the debugger`;
  const title = `${changed.map((instance) => `${instance.instanceId}: ${changeText(instance) ?? ''}`).slice(-10).join('\n')}\nwhat the host got was decided in the debugger, not the server's own answer`;
  const badge = el('div', { class: 'changed-badge node-changed', text: `✎ ${text}`, title });
  setAttr(badge, 'data-changed', String(changed.length));
  card.appendChild(badge);
}

/** The badge of a hold on the node (or inside a folded card). */
function drawHeld(card: HTMLElement, run: RunModel, nodeId: string, hold: Hold): void {
  const where = hold.nodeId === nodeId ? '' : ` · ${run.node(hold.nodeId)?.node.label || hold.nodeId}`;
  // A breakpoint is on the card already (◆); a loop hold or pause on error says so.
  const reason = hold.reason === 'breakpoint' ? undefined : reasonText(hold);
  const text = `HELD at ${hold.gate}${where}${reason === undefined ? '' : ` · ${reason}`}${hold.givenUp === undefined ? '' : ' · given up'}`;
  card.appendChild(el('div', { class: `held-badge${hold.givenUp === undefined ? '' : ' given-up'}`, text, title: hold.givenUp }));
}

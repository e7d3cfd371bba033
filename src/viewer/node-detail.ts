// A node's detail: its breakpoints, and its executions in order, each with
// status, duration, and input / output / error as collapsible pretty JSON.
// The list is virtualised: a node with thousands of calls draws only what is in view.
import type { Instance } from '../protocol/run-model.js';
import type { Hold } from '../protocol/control.js';
import { answerDiffs } from './answer-diff.js';
import { answerLabel, changeBadge, timesLine } from './call-changes.js';
import { callView, holdBadge, requestIdChip, tookText, tookTitle, waitingText } from './call-state.js';
import { callLineCount, callLinesBlock } from './call-lines.js';
import { costBlock } from './cost-view.js';
import { button, clickable, el, setAttr, setChildren, tickTimes } from './dom.js';
import { callMatches, finding, words, type FindQuery } from './find.js';
import { clock, duration, ordinal, plural, preview, span } from './format.js';
import { jsonBlock } from './json-view.js';
import { runServerName } from './breakpoint-scope.js';
import { defaultChoice, nodeBreakpointControls, type ScopeChoice } from './node-breakpoint.js';
import { generationOf, restartsOf } from './restarts.js';
import { sendAgainBar, sentByBadge } from './send-again.js';
import { STDOUT_NOISE_NODE_ID, SESSION_NODE_ID, isContainer, kindText, runEnded, shownState, type RunModel } from './run-model.js';
import { heldByInstance } from './timeline.js';
import type { Store } from './store.js';
import { Dirty } from './view-state.js';
import { VirtualList } from './virtual-list.js';

/** The body of a call still open when its run ended (its reporter vanished, the server restarted). */
const UNFINISHED_TEXT = 'The run ended before this call finished, so its outcome is unknown.';

/** The detail pane of the selected node. */
export class NodeDetail {
  readonly element: HTMLElement;
  readonly #head: HTMLElement;
  readonly #list: VirtualList<Instance>;
  #shown: { run: RunModel | null; nodeId: string | null; count: number; version: number; find: FindQuery; holds: Hold[] } | null = null;
  #headSig = '';
  /** The node's calls as listed: all of them, or those the find bar lets through (and any held one). */
  #items: readonly Instance[] = [];
  #held = new Map<string, Hold>();
  /** The scope picked for a new breakpoint on the node shown (see `nodeBreakpointControls`). */
  #scope: { key: string; choice: ScopeChoice } | null = null;

  constructor(private readonly store: Store) {
    this.#head = el('div', { class: 'detail-head' });
    this.#list = new VirtualList<Instance>(
      {
        key: (instance) => instance.instanceId,
        version: (instance) => {
          const hold = this.#held.get(instance.instanceId);
          // The run's status is in it: an open call turns unfinished when the run ends, and back on a reclaim.
          const shown = shownState(instance.status, this.store.run);
          // No ticking time in it: an open call's duration is updated in place (see #tick), so that
          // its folded JSON, a selection or "Show all" are not reset every second while it is looked at.
          return `${shown}|${instance.endedAt}|${instance.deliveredAt}|${instance.attempts?.length ?? 0}|${instance.changed?.holdId ?? ''}|${instance.heldMs ?? 0}|${this.store.expanded.has(instance.instanceId)}|${hold?.holdId ?? ''}|${hold?.givenUp ?? ''}|${this.store.activeInstance === instance.instanceId}|${callLineCount(this.store.run, instance)}`;
        },
        render: (instance, index) => this.#row(instance, index),
      },
      34,
      'instances',
    );
    setAttr(this.#list.element, 'aria-label', 'instances');
    this.element = el('section', { class: 'detail', attrs: { 'aria-label': 'node detail' } }, this.#head, this.#list.element);
  }

  /** Scroll the list to an execution of the shown node; false if it does not list it. */
  reveal(instanceId: string): boolean {
    const index = this.#items.findIndex((i) => i.instanceId === instanceId);
    if (index >= 0) this.#list.scrollToIndex(index);
    return index >= 0;
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
      if (this.#shown === null || this.#shown.count !== 0 || this.#shown.run !== run) this.#list.setItems([], true);
      this.#items = [];
      this.#shown = { run, nodeId: null, count: 0, version: -1, find: this.store.find, holds: this.store.holds };
      return;
    }
    this.element.classList.remove('empty');
    const { find, holds } = this.store;
    this.#held = heldByInstance(this.store);
    const previous = this.#shown;
    const same = previous !== null && previous.run === run && previous.nodeId === selectedNodeId;
    const narrowing = finding(find);
    const refresh = !same || previous.count !== entry.instances.length || previous.find !== find || (narrowing && (previous.version !== run.version || previous.holds !== holds));
    if (refresh) {
      this.#items = narrowing ? this.#narrow(run, entry.instances, find) : entry.instances;
      this.#list.setItems(this.#items, !same || previous.find !== find);
      if (!same) {
        // A node just chosen: its held call, or the call it opened (its last), from the top of its row.
        const held = this.store.holdOn(selectedNodeId as string);
        const last = this.#items[this.#items.length - 1];
        if (held !== undefined) this.reveal(held.instanceId);
        else if (last !== undefined && this.store.expanded.has(last.instanceId)) this.reveal(last.instanceId);
        else this.#list.scrollToBottom();
      }
    } else {
      this.#list.refresh();
    }
    this.#renderHead(run, entry.node.nodeId);
    // A call opened from elsewhere (the timeline, a hold, "next error") is scrolled into view once.
    const wanted = this.store.reveal;
    if (wanted !== null && this.reveal(wanted)) this.store.reveal = null;
    this.#tick();
    this.#shown = { run, nodeId: selectedNodeId, count: entry.instances.length, version: run.version, find, holds };
  }

  /** The user picked where a new breakpoint on the node shown holds. */
  #pickScope(key: string, choice: ScopeChoice): void {
    this.#scope = { key, choice };
    this.#headSig = '';
    this.store.mark(Dirty.Breakpoints);
  }

  /** The calls the find bar lets through, and those held (which always show). */
  #narrow(run: RunModel, instances: readonly Instance[], find: FindQuery): Instance[] {
    const needles = words(find);
    return instances.filter((instance) => {
      const hold = this.#held.get(instance.instanceId);
      return hold !== undefined || callMatches(instance, run, find, needles, hold);
    });
  }

  /** The durations of the open calls on screen, brought up to now without redrawing their rows. */
  #tick(): void {
    tickTimes(this.#list.element, 'data-open-since', (ms) => `open ${duration(ms)}`);
    tickTimes(this.#list.element, 'data-waiting-since', waitingText);
  }

  #renderHead(run: RunModel, nodeId: string): void {
    const entry = run.node(nodeId);
    if (entry === undefined) return;
    const bp = this.store.breakpoints.nodes[nodeId] ?? {};
    const server = runServerName(run.summary, run.meta);
    // The scope picked for a new breakpoint, per run and node; by default this server when it is known.
    const scopeKey = `${run.summary.runId}|${nodeId}`;
    const choice = this.#scope?.key === scopeKey ? this.#scope.choice : defaultChoice(server);
    const status = run.shownStatus(nodeId);
    const shown = shownState(status, run);
    const ended = runEnded(run);
    const hold = this.store.holdOn(nodeId);
    const hinted = run.isHinted(nodeId);
    const find = this.store.find;
    const narrowed = finding(find) ? this.#items.length : -1;
    const sig = [nodeId, hinted, shown, ended, entry.instances.length, entry.open, entry.errors, run.changedCalls(nodeId).length, bp.before === true, bp.after === true, bp.server ?? '', server ?? '', choice, hold?.holdId ?? '', hold?.givenUp ?? '', narrowed].join('|');
    if (sig === this.#headSig) return;
    this.#headSig = sig;
    const { node } = entry;
    const title = el(
      'div',
      { class: 'detail-title' },
      el('span', { class: `kind kind-${node.kind}`, text: kindText(node) }),
      el('h2', { text: node.label === '' ? node.nodeId : node.label, title: node.label === '' ? node.nodeId : node.label }),
      hinted
        ? el('span', { class: 'pill not-run', text: 'not run' })
        : el('span', { class: `pill status-${status}${shown === 'unfinished' ? ' unfinished' : ''}`, text: shown }),
    );
    const counts = [plural(entry.instances.length, 'call')];
    if (entry.open > 0) counts.push(`${entry.open} ${ended ? 'unfinished' : 'open'}`);
    if (entry.errors > 0) counts.push(`${entry.errors} failed`);
    const changed = run.changedCalls(nodeId).length;
    if (changed > 0) counts.push(`${changed} changed by the debugger`);
    const info = el('div', { class: 'detail-info' }, el('code', { class: 'node-id', text: nodeId, title: nodeId }), el('span', { class: 'muted', text: counts.join(' · ') }));
    if (narrowed >= 0) {
      // The find bar narrows this list too: say so, and how to see everything.
      const all = button('Show all', () => this.store.setFind({ text: '', status: 'all' }), 'btn small ghost', 'Clear the find bar');
      setAttr(all, 'data-action', 'clear-find');
      info.appendChild(el('span', { class: 'find-note' }, `${narrowed.toLocaleString()} of ${plural(entry.instances.length, 'call')} match the find bar `, all));
    }
    const breakable = nodeId !== SESSION_NODE_ID && !isContainer(nodeId) && nodeId !== STDOUT_NOISE_NODE_ID && node.kind !== 'server';
    const controls = el('div', { class: 'bp-controls' });
    if (breakable) {
      controls.append(...nodeBreakpointControls(this.store, { nodeId, bp, server, choice }, (picked) => this.#pickScope(scopeKey, picked)));
    } else {
      controls.appendChild(el('span', { class: 'muted', text: 'No breakpoints on this node: it is not a request.' }));
    }
    if (hold !== undefined) {
      // Which call, by its instance and its JSON-RPC id (the #id of the proxy's HOLDING line), and why.
      const badge = el('span', { class: `held-badge${hold.givenUp === undefined ? '' : ' given-up'}`, text: holdBadge(hold, 'HELD'), title: hold.givenUp });
      controls.append(badge, el('span', { class: 'held-call' }, el('span', { class: 'inst-id', text: hold.instanceId }), ' ', requestIdChip(hold)));
    }
    const note = hinted
      ? el('p', { class: 'hint hinted-note', text: 'Registered on the server, not called in this run: drawn grey from the connection’s graph hint. A breakpoint set here holds its next call.' })
      : null;
    setChildren(this.#head, title, info, controls, note);
  }

  #row(instance: Instance, position: number): HTMLElement {
    const expanded = this.store.expanded.has(instance.instanceId);
    const held = this.#held.get(instance.instanceId);
    const view = callView(instance, this.store.run, held);
    const shown = shownState(instance.status, this.store.run);
    const unfinished = shown === 'unfinished';
    // Numbered among all the node's calls, whatever the find bar shows.
    const all = this.store.run?.node(instance.nodeId)?.instances;
    const index = all === undefined || all === this.#items ? position : all.indexOf(instance);
    const tries = instance.attempts?.length ?? 0;
    const dur = el('span', { class: 'inst-dur', text: tookText(view), title: tookTitle(instance, view) });
    // No ticking time for an unfinished call: it did not go on after the run ended.
    if (view.waitingSince !== undefined) setAttr(dur, view.state === 'held' ? 'data-waiting-since' : 'data-open-since', view.waitingSince);
    const head = el(
      'div',
      { class: 'inst-head' },
      el('span', { class: 'chevron', text: expanded ? '▾' : '▸' }),
      el('span', { class: 'inst-n', text: `#${index + 1}` }),
      el('span', { class: 'inst-id', text: instance.instanceId }),
      requestIdChip(held),
      el('span', { class: `pill ${view.pillClass}`, text: view.state }),
      dur,
      el('span', { class: 'inst-time', text: clock(instance.startedAt) }),
      held === undefined ? null : el('span', { class: `held-badge${held.givenUp === undefined ? '' : ' given-up'}`, text: holdBadge(held), title: held.givenUp }),
      changeBadge(instance),
      sentByBadge(instance),
      tries === 0 ? null : el('span', { class: 'retried', text: `sent ${tries + 1}×`, title: `the request was sent ${tries + 1} times (Retry at the after gate)` }),
      // A stdout-noise record is its quoted line; its error only says what such a line is.
      expanded ? null : el('span', { class: 'inst-preview', text: preview(instance.error !== undefined && instance.nodeId !== STDOUT_NOISE_NODE_ID ? instance.error.message : instance.input, 200) }),
    );
    clickable(head, () => this.store.toggleExpanded(instance.instanceId));
    setAttr(head, 'aria-expanded', String(expanded));
    const active = this.store.activeInstance === instance.instanceId;
    const row = el('div', { class: `inst status-${instance.status}${unfinished ? ' unfinished' : ''}${held !== undefined ? ' held' : ''}${active ? ' active' : ''}` }, head);
    setAttr(row, 'data-instance-id', instance.instanceId);
    setAttr(row, 'data-state', view.state);
    if (expanded) {
      const body = el('div', { class: 'inst-body' });
      if (held !== undefined) body.appendChild(this.#heldNote(held));
      if (instance.nodeId === STDOUT_NOISE_NODE_ID && typeof instance.input === 'string') {
        body.appendChild(el('div', { class: 'noise-line' }, el('span', { class: 'muted', text: 'the server wrote to stdout: ' }), el('span', { class: 'noise-text', text: JSON.stringify(instance.input) })));
      }
      if (instance.input !== undefined) body.appendChild(jsonBlock('input', instance.input));
      body.append(sendAgainBar(this.store, instance) ?? '');
      if (tries > 0) body.appendChild(this.#attempts(instance));
      if (instance.error !== undefined) body.appendChild(jsonBlock(answerLabel('error', instance, tries), instance.error, true, 'error'));
      // What the answer costs a model's context, above the answer itself (cost-view.ts).
      body.append(costBlock(this.store.run, instance) ?? '');
      if (instance.output !== undefined) body.appendChild(jsonBlock(answerLabel('output', instance, tries), instance.output));
      // What the debugger changed, beside what it replaced; and the call's time, the held part apart.
      const diffs = answerDiffs(instance);
      if (diffs !== null) body.appendChild(diffs);
      const times = timesLine(instance);
      if (times !== null) body.appendChild(times);
      // What the server printed while this was the only call in flight (call-lines.ts).
      const lines = callLinesBlock(this.store.run, instance);
      if (lines !== null) body.appendChild(lines);
      // In a run whose server was restarted: which of its servers answered.
      const generation = generationOf(instance, restartsOf(this.store.run));
      if (generation !== undefined) {
        const answeredBy = generation === 0 ? 'Answered by the first server (before any restart).' : `Answered by server generation ${generation} (started by restart #${generation}).`;
        body.appendChild(el('p', { class: 'muted generation', text: answeredBy }));
      }
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

  /** What a held call is waiting for, and (given up) that nobody waits any more. */
  #heldNote(hold: Hold): HTMLElement {
    const answer = hold.gate !== 'before';
    const note = el(
      'p',
      { class: 'held-note' },
      answer
        ? 'The answer has arrived and is held at the gate: the client has not received it. It goes on when you decide in the panel above.'
        : 'The request is held at the gate: the server has not received it, and the client is waiting.',
    );
    if (hold.givenUp !== undefined) note.append(el('span', { class: 'given-up-text' }, el('strong', { text: 'Given up: ' }), `${hold.givenUp}. Nobody waits for this answer any more; continuing it is still allowed.`));
    return note;
  }

  /** The answers a Retry dropped, oldest first, then a line for the one the call has now. */
  #attempts(instance: Instance): HTMLElement {
    const attempts = instance.attempts ?? [];
    const list = el('ol', { class: 'attempts', attrs: { 'aria-label': 'attempts' } });
    attempts.forEach((attempt, i) => {
      const item = el(
        'li',
        { class: `attempt status-${attempt.status}` },
        el('span', { class: 'attempt-n', text: `${ordinal(i + 1)} answer` }),
        ' ',
        el('span', { class: `pill status-${attempt.status}`, text: attempt.status }),
        ` at ${clock(attempt.endedAt)} (${duration(span(i === 0 ? instance.startedAt : (attempts[i - 1]?.retriedAt ?? instance.startedAt), attempt.endedAt))}) — dropped at ${clock(attempt.retriedAt)}, request sent again`,
      );
      if (attempt.error !== undefined) item.appendChild(jsonBlock('error', attempt.error, false, 'error'));
      if (attempt.output !== undefined) item.appendChild(jsonBlock('output', attempt.output, false));
      setAttr(item, 'data-attempt', String(i + 1));
      list.appendChild(item);
    });
    const last = attempts[attempts.length - 1];
    const now = el('li', { class: 'attempt current' }, el('span', { class: 'attempt-n', text: `${ordinal(attempts.length + 1)} answer` }), ' ');
    if (instance.endedAt === null) now.append(this.#held.has(instance.instanceId) ? 'held' : 'waiting…');
    else {
      now.append(
        el('span', { class: `pill status-${instance.status}`, text: instance.status }),
        ` at ${clock(instance.endedAt)} (${duration(span(last?.retriedAt ?? instance.startedAt, instance.endedAt))} after it was sent again)`,
      );
      if (instance.deliveredAt !== undefined) now.append(`, reached the client at ${clock(instance.deliveredAt)}`);
      now.append(`; the client waited ${duration(span(instance.startedAt, instance.deliveredAt ?? instance.endedAt))} in all`);
    }
    setAttr(now, 'data-attempt', String(attempts.length + 1));
    list.appendChild(now);
    return el('div', { class: 'attempts-block' }, el('div', { class: 'attempts-title', text: `Sent ${attempts.length + 1} times (Retry)` }), list);
  }
}

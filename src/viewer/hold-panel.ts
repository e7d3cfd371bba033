// Frames held right now: method, gate, node and the frame itself, with
// Continue, Inject…, Retry (at an answer: re-send the request) and Abort.
import type { Hold, HoldAction } from '../protocol/control.js';
import { ApiError, api } from './api.js';
import { button, el, setAttr, setChildren, tickTimes } from './dom.js';
import { clock, duration, span } from './format.js';
import { openInjectEditor, type EditorHandle } from './inject-editor.js';
import { heldRequestId, reasonText } from './call-state.js';
import { copyText, jsonBlock } from './json-view.js';
import { ruleWhy } from './rule-hold.js';
import type { Store } from './store.js';

const GATE_TEXT: Record<string, string> = {
  before: 'before the request reaches the server',
  after: 'after the answer, before the client sees it',
  error: 'on a failing answer (pause on error)',
};

/**
 * The tool a loop hold holds: from its node (`tool:<name>`), else the
 * held request's `params.name`.
 */
export function loopTool(hold: Hold): string {
  if (hold.nodeId.startsWith('tool:')) return hold.nodeId.slice('tool:'.length);
  const params = (hold.frame as { params?: { name?: unknown } } | null)?.params;
  return typeof params?.name === 'string' ? params.name : hold.nodeId;
}

/** The holds banner. */
export class HoldPanel {
  readonly element: HTMLElement;
  #editor: EditorHandle | null = null;
  #sig: string | null = null;
  readonly #pending = new Set<string>();

  constructor(private readonly store: Store) {
    this.element = el('section', { class: 'holds', attrs: { 'aria-label': 'held frames' } });
  }

  /** Is the Inject… editor open? */
  get editing(): boolean {
    return this.#editor !== null;
  }

  closeEditor(): void {
    this.#editor?.close();
  }

  render(): void {
    const { holds } = this.store;
    const editing = this.#editor;
    if (editing !== null && !holds.some((h) => h.holdId === editing.holdId)) {
      editing.close();
      if (!this.#pending.has(editing.holdId)) this.store.notify('That hold was decided elsewhere.');
    }
    const runs = new Map(this.store.runs.map((r) => [r.runId, r.name]));
    const sig = holds.map((h) => `${h.holdId}:${runs.get(h.runId) ?? ''}:${this.#pending.has(h.holdId)}:${h.givenUp ?? ''}`).join(',');
    if (sig === this.#sig) {
      this.tick();
      return;
    }
    this.#sig = sig;
    this.element.classList.toggle('none', holds.length === 0);
    if (holds.length === 0) {
      this.element.replaceChildren();
      return;
    }
    const title = el(
      'div',
      { class: 'holds-head' },
      el('h3', { text: holds.length === 1 ? '1 frame held' : `${holds.length} frames held` }),
      el('span', { class: 'muted keys', text: 'c: continue the oldest · i: inject into it' }),
    );
    setChildren(this.element, title, ...holds.map((hold, index) => this.#card(hold, index === 0, runs.get(hold.runId))));
  }

  /** Update the "held for" times. */
  tick(): void {
    tickTimes(this.element, 'data-since', (ms) => `held for ${duration(ms)}`);
  }

  /** Continue the oldest hold (the keyboard shortcut). */
  continueOldest(): void {
    const hold = this.store.holds[0];
    if (hold !== undefined) void this.decide(hold, 'continue');
  }

  /** Open the editor on the oldest hold. */
  injectOldest(): void {
    const hold = this.store.holds[0];
    if (hold !== undefined) this.openEditor(hold);
  }

  openEditor(hold: Hold): void {
    this.#editor?.close();
    this.#editor = openInjectEditor(
      hold,
      (value) => this.decide(hold, 'inject', value),
      () => {
        this.#editor = null;
      },
    );
  }

  /** Send a decision; true when the server took it. */
  async decide(hold: Hold, action: HoldAction, value?: unknown): Promise<boolean> {
    if (this.#pending.has(hold.holdId)) return false;
    this.#pending.add(hold.holdId);
    this.#sig = null;
    this.render();
    try {
      await api.decide(hold.holdId, action, value);
      if (this.#editor?.holdId === hold.holdId) this.#editor.close();
      this.store.removeHold(hold.holdId);
      return true;
    } catch (error) {
      if (error instanceof ApiError && (error.status === 404 || error.status === 409)) {
        if (this.#editor?.holdId === hold.holdId) this.#editor.close();
        this.store.removeHold(hold.holdId);
        this.store.notify(error.status === 409 ? 'That hold was already decided.' : 'That hold is gone.');
        return true;
      }
      this.store.notify(`Could not ${action}: ${error instanceof Error ? error.message : 'error'}`);
      return false;
    } finally {
      this.#pending.delete(hold.holdId);
      this.#sig = null;
      this.render();
    }
  }

  #card(hold: Hold, oldest: boolean, runName: string | undefined): HTMLElement {
    const pending = this.#pending.has(hold.holdId);
    const action = (label: string, act: HoldAction, cls: string, help: string): HTMLButtonElement => {
      const b = button(label, () => void this.decide(hold, act), cls, help);
      setAttr(b, 'data-action', act);
      b.disabled = pending;
      return b;
    };
    const inject = button('Inject…', () => this.openEditor(hold), 'btn', 'Answer with your own value');
    setAttr(inject, 'data-action', 'inject');
    inject.disabled = pending;
    const resume = action('Continue', 'continue', 'btn primary', 'Let the frame go on unchanged');
    if (oldest) {
      // The shortcut is shown beside the name, not in it: the button is called "Continue".
      resume.appendChild(el('kbd', { class: 'shortcut', text: ' (c)', attrs: { 'aria-hidden': 'true' } }));
      setAttr(resume, 'aria-keyshortcuts', 'c');
    }
    const actions = el(
      'div',
      { class: 'hold-actions' },
      resume,
      inject,
      hold.gate === 'before' ? null : action('Retry', 'retry', 'btn', 'Drop this answer and send the original request again'),
      action('Abort', 'abort', 'btn danger', hold.gate === 'before' ? 'Do not forward; answer the caller with an error' : 'Drop the answer and answer the caller with an error'),
      button('Show call', () => {
        // The held call itself, opened in its node's list (in its run, fetched first if another is shown).
        if (hold.runId === this.store.selectedRunId && this.store.run !== null) this.store.openCall(hold.nodeId, hold.instanceId);
        else void this.store.selectRun(hold.runId, true).then(() => this.store.openCall(hold.nodeId, hold.instanceId));
      }, 'btn ghost', 'Open the held call in its node'),
    );
    const since = el('span', { class: 'muted', text: `held for ${duration(span(hold.since, null))}` });
    setAttr(since, 'data-since', hold.since);
    const rpcId = heldRequestId(hold);
    const reason = reasonText(hold);
    const card = el(
      'article',
      { class: `hold gate-${hold.gate}${hold.givenUp === undefined ? '' : ' given-up'}`, attrs: { 'aria-label': `${hold.method} held at the ${hold.gate} gate${reason === undefined ? '' : ` (${reason})`}` } },
      el(
        'div',
        { class: 'hold-title' },
        el('span', { class: 'pause-icon', attrs: { 'aria-hidden': 'true' } }),
        el('code', { class: 'hold-method', text: hold.method }),
        rpcId === undefined ? null : el('code', { class: 'hold-rpc-id', text: `#${rpcId.length > 40 ? `${rpcId.slice(0, 39)}…` : rpcId}`, title: `JSON-RPC id ${rpcId}: the #${rpcId} of the proxy's HOLDING line` }),
        el('span', { class: `gate gate-${hold.gate}`, text: `${hold.gate} gate` }),
        reason === undefined ? null : el('span', { class: `reason reason-${hold.reason ?? ''}`, text: reason }),
        hold.givenUp === undefined ? null : el('span', { class: 'given-up-badge', text: 'given up', title: hold.givenUp }),
        actions,
      ),
      this.#why(hold),
      hold.givenUp === undefined
        ? null
        : el('p', { class: 'given-up-text' }, el('strong', { text: 'The requester has given up: ' }), `${hold.givenUp}. Nobody is waiting for this answer any more; continuing it is still allowed.`),
      el(
        'div',
        { class: 'hold-where muted' },
        el('span', { class: 'gate-text', text: `${GATE_TEXT[hold.gate] ?? ''} · ` }),
        el('span', { text: 'node ' }),
        el('code', { class: 'hold-node', text: hold.nodeId, title: hold.nodeId }),
        el('span', { text: ` · ${hold.instanceId} · run ` }),
        el('span', { class: 'hold-run', text: runName ?? hold.runId, title: runName ?? hold.runId }),
        el('span', { text: ` · since ${clock(hold.since)} · ` }),
        since,
      ),
      jsonBlock('frame', hold.frame, true, 'hold-frame'),
    );
    setAttr(card, 'data-hold-id', hold.holdId);
    setAttr(card, 'data-gate', hold.gate);
    if (hold.reason !== undefined) setAttr(card, 'data-reason', hold.reason);
    if (hold.givenUp !== undefined) setAttr(card, 'data-given-up', 'true');
    return card;
  }

  /** Why this frame holds, in a sentence: which breakpoint, the error gate, or the loop hold and how to allow the tool. */
  #why(hold: Hold): HTMLElement | null {
    if (hold.reason === 'loop') {
      const tool = loopTool(hold);
      const allow = `GRAPHMIND_LOOP_ALLOW=${tool}`;
      const copy = button('Copy', () => {
        void copyText(allow).then((ok) => {
          copy.textContent = ok ? 'Copied' : 'Copy failed';
          setTimeout(() => (copy.textContent = 'Copy'), 1200);
        });
      }, 'btn small copy', `Copy ${allow}`);
      return el(
        'p',
        { class: 'hold-why loop' },
        el('strong', { text: 'Loop hold: ' }),
        'this is the third identical call to ',
        el('code', { class: 'loop-tool', text: tool }),
        ' in a row (the same arguments, nothing else in between), so the agent may be stuck. Continue lets it run; Abort answers it with an error. If the tool is polled on purpose, allow it in the proxy’s environment (the ',
        el('code', { text: 'env' }),
        ' of its host config entry): ',
        el('code', { class: 'loop-allow', text: allow }),
        ' ',
        copy,
      );
    }
    if (hold.reason === 'error') return el('p', { class: 'hold-why' }, el('strong', { text: 'Pause on error: ' }), 'the answer is a failure (a JSON-RPC error, or a tool result with isError). Turn off “Pause on error” in the sidebar to let failures through.');
    if (hold.reason === 'rule') return ruleWhy(hold, this.store.breakpoints.rules);
    if (hold.reason === 'drift') return el('p', { class: 'hold-why' }, el('strong', { text: 'The tool list changed: ' }), 'the server’s list answer differs from the one it gave before in this session. Continue lets it through; Abort answers the caller with an error.');
    if (hold.reason === 'breakpoint') {
      return el('p', { class: 'hold-why' }, el('strong', { text: 'Breakpoint: ' }), `${hold.gate === 'before' ? 'Break before' : 'Break after'} is set on `, el('code', { text: hold.nodeId }), '.');
    }
    return null;
  }
}

// Every breakpoint in one place: pause-on-error, and each node's before /
// after gates and where they hold (every server, or one), each clearable;
// and a breakpoint by node id, for a node no run has shown yet
// (`mcp:initialize`, the first call of a tool), on every server or on a
// server the run list knows.
import type { RunSummary } from '../protocol/run-model.js';
import { activeBreakpoints, scopeText, serverLabel } from './breakpoint-scope.js';
import { button, el, setAttr, setChildren } from './dom.js';
import { RulesPanel } from './rules-panel.js';
import type { Store } from './store.js';

/** The server names of the runs listed (serverInfo.name, or the adapter's server), sorted. */
function knownServers(runs: readonly RunSummary[]): string[] {
  const names = new Set<string>();
  for (const run of runs) {
    const name = run.server?.name ?? run.group?.server;
    if (name !== undefined && name !== '' && name.length <= 256) names.add(name);
  }
  return [...names].sort((a, b) => a.localeCompare(b));
}

/** The breakpoints panel in the sidebar. */
export class BreakpointsPanel {
  readonly element: HTMLElement;
  readonly #toggle: HTMLInputElement;
  readonly #list: HTMLElement;
  readonly #clearAll: HTMLButtonElement;
  /** The add form's scope: every server, or a server the run list knows. */
  readonly #addScope: HTMLSelectElement;
  /** The rules: conditional breakpoints and logpoints. */
  readonly #rules: RulesPanel;
  #sig = '';
  #servers = '';

  constructor(private readonly store: Store) {
    this.#toggle = el('input', { attrs: { type: 'checkbox', id: 'pause-on-error', 'data-testid': 'pause-on-error' } });
    this.#toggle.addEventListener('change', () => void this.store.setPauseOnError(this.#toggle.checked));
    const label = el('label', { class: 'switch', attrs: { for: 'pause-on-error' } }, this.#toggle, el('span', { text: 'Pause on error' }));
    this.#list = el('ul', { class: 'bp-list', attrs: { 'aria-label': 'breakpoints' } });
    this.#clearAll = button('Clear all', () => void this.store.clearBreakpoints(), 'btn small ghost');
    setAttr(this.#clearAll, 'data-action', 'clear-all-breakpoints');
    this.#addScope = el('select', { class: 'bp-add-scope', attrs: { name: 'server', 'aria-label': 'where it holds' } });
    const add = this.#addForm();
    this.#rules = new RulesPanel(store);
    this.element = el(
      'section',
      { class: 'breakpoints' },
      el('div', { class: 'pane-head' }, el('h3', { text: 'Breakpoints', attrs: { tabindex: '-1' } }), this.#clearAll),
      label,
      el('p', { class: 'hint', text: 'Failing calls (JSON-RPC errors, isError results) hold when this is on.' }),
      this.#list,
      add,
      this.#rules.element,
    );
  }

  /** Node id, gate, Add: node ids are stable, so this arms the next run (and every live one) before the node appears. */
  #addForm(): HTMLFormElement {
    const nodeId = el('input', { class: 'bp-add-node', attrs: { type: 'text', name: 'nodeId', placeholder: 'tool:search, mcp:initialize…', 'aria-label': 'node id', spellcheck: 'false', autocomplete: 'off' } });
    const gate = el(
      'select',
      { class: 'bp-add-gate', attrs: { name: 'gate', 'aria-label': 'gate' } },
      el('option', { text: 'before', attrs: { value: 'before' } }),
      el('option', { text: 'after', attrs: { value: 'after' } }),
    );
    const submit = el('button', { class: 'btn small', text: 'Add breakpoint', attrs: { type: 'submit', 'data-action': 'add-breakpoint' } });
    const form = el('form', { class: 'bp-add', attrs: { 'aria-label': 'add a breakpoint by node id' } }, nodeId, gate, this.#addScope, submit);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const id = nodeId.value.trim();
      if (id === '') {
        nodeId.focus();
        return;
      }
      const scope = this.#addScope.value === '' ? null : this.#addScope.value;
      void this.store.setBreakpoint(id, gate.value === 'after' ? 'after' : 'before', true, scope).then((saved) => {
        // Refused (the notice says why): the id stays, to be mended.
        if (saved) nodeId.value = '';
      });
    });
    return form;
  }

  /** Bring the panel into view and draw the eye to it (the top bar's breakpoints strip was clicked). */
  reveal(): void {
    this.element.scrollIntoView({ block: 'nearest' });
    this.element.querySelector<HTMLElement>('h3')?.focus({ preventScroll: true });
    this.element.classList.remove('flash');
    // Restarted: a second click flashes again.
    void this.element.offsetWidth;
    this.element.classList.add('flash');
  }

  render(): void {
    this.#renderScopes();
    const { breakpoints } = this.store;
    this.#toggle.checked = breakpoints.pauseOnError;
    this.#rules.render();
    const sig = JSON.stringify(breakpoints.nodes);
    if (sig === this.#sig) return;
    this.#sig = sig;
    const entries = activeBreakpoints(breakpoints);
    this.#clearAll.disabled = entries.length === 0;
    if (entries.length === 0) {
      setChildren(this.#list, el('li', { class: 'muted none', text: 'No node breakpoints. Select a node and click Break before / Break after, or add one by its id below.' }));
      return;
    }
    setChildren(
      this.#list,
      ...entries.map(([nodeId, gates]) => {
        const gateButton = (gate: 'before' | 'after'): HTMLElement | null => {
          if (gates[gate] !== true) return null;
          const b = button(`${gate} ×`, () => void this.store.setBreakpoint(nodeId, gate, false), 'chip on', `Clear the ${gate} breakpoint`);
          setAttr(b, 'data-gate', gate);
          return b;
        };
        const clear = button('Clear', () => void this.store.clearBreakpoints(nodeId), 'btn small ghost', 'Clear both gates');
        setAttr(clear, 'data-action', 'clear');
        const li = el(
          'li',
          { class: 'bp' },
          el('code', { class: 'bp-node', text: nodeId, title: nodeId }),
          el('span', { class: 'bp-gates' }, gateButton('before'), gateButton('after')),
          el('span', { class: `bp-scope-chip${gates.server === undefined ? ' every' : ''}`, text: scopeText(gates), title: gates.server === undefined ? 'Holds on every server' : `Holds only sessions of server ${serverLabel(gates.server)} (its serverInfo.name)` }),
          clear,
        );
        li.addEventListener('dblclick', () => this.store.selectNode(nodeId));
        setAttr(li, 'data-node-id', nodeId);
        return li;
      }),
    );
  }

  /** The add form's scopes: every server, then each server the run list knows (the choice kept while it is still there). */
  #renderScopes(): void {
    const servers = knownServers(this.store.runs);
    const sig = JSON.stringify(servers);
    if (sig === this.#servers) return;
    this.#servers = sig;
    const chosen = this.#addScope.value;
    setChildren(this.#addScope, el('option', { text: 'every server', attrs: { value: '' } }), ...servers.map((name) => el('option', { text: `server ${serverLabel(name)}`, attrs: { value: name } })));
    this.#addScope.value = servers.includes(chosen) ? chosen : '';
  }
}
